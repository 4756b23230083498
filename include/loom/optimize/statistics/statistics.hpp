// Defines loom::statistics, the per-tensor summary the runtime optimizer reads
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_STATISTICS_HPP
#define LOOM_OPTIMIZE_STATISTICS_STATISTICS_HPP

#include <cstdint>
#include <vector>

namespace loom {

/// What the optimizer knows about one tensor: a plain value, gathered by
/// `loom::gather_statistics` and never updated in place (a changed tensor needs new statistics;
/// `loom::statistics_cache` recomputes them when the tensor's storage signature changes).
///
/// Counts are *structural*: every stored entry counts, explicit zeros included (so a dense
/// tensor has `nnz == product of extents`). Vectors indexed by *mode* use logical mode order;
/// `nonempty_fibers` is indexed by *level* (storage order).
struct statistics {
  /// Extents, in logical mode order.
  std::vector<std::int64_t> shape;
  /// Number of stored entries.
  std::int64_t nnz = 0;
  /// `nonempty_fibers[k]`: distinct coordinate prefixes (levels 0..k, storage order) holding at
  /// least one stored entry. `nonempty_fibers[0]` counts the non-empty top-level slices; the last
  /// entry counts distinct stored coordinates (below `nnz` only with duplicate coordinates).
  std::vector<std::int64_t> nonempty_fibers;
  /// `distinct[m]`: number of coordinates of mode m that appear in at least one stored entry.
  std::vector<std::int64_t> distinct;
  /// `max_degree[m]`: largest number of stored entries sharing one coordinate of mode m
  /// (for a matrix, mode 0 gives the largest row and mode 1 the largest column).
  std::vector<std::int64_t> max_degree;
  /// `mean_degree[m]`: `nnz / distinct[m]`, the mean over the coordinates that occur (0 if none).
  std::vector<double> mean_degree;

  /// Number of modes.
  std::size_t order() const { return shape.size(); }
  /// Product of the extents, as a double (it may exceed int64 for large sparse tensors).
  double dense_size() const {
    double s = 1;
    for (std::int64_t e : shape) s *= static_cast<double>(e);
    return s;
  }
  /// `nnz / dense_size()` (0 for an empty shape).
  double density() const {
    const double s = dense_size();
    return s > 0 ? static_cast<double>(nnz) / s : 0.0;
  }
  /// For a matrix: the largest number of stored entries in one row (mode 0).
  std::int64_t max_row_degree() const { return max_degree.empty() ? 0 : max_degree[0]; }
  /// For a matrix: the largest number of stored entries in one column (mode 1).
  std::int64_t max_column_degree() const { return max_degree.size() < 2 ? 0 : max_degree[1]; }

  friend bool operator==(const statistics&, const statistics&) = default;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_STATISTICS_HPP
