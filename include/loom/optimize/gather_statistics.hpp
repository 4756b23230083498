// Defines loom::gather_statistics: one pass over a tensor into loom::statistics (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_GATHER_STATISTICS_HPP
#define LOOM_OPTIMIZE_GATHER_STATISTICS_HPP

#include <loom/format/tensor.hpp>
#include <loom/optimize/statistics.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom {

/// Gathers `loom::statistics` for `t` in one pass over its stored entries: O(nnz * order) time
/// and O(sum of extents) memory (one counter per coordinate of every mode).
/// Non-empty fibers are counted by comparing each entry's storage-order prefix with the previous
/// entry's, which is exact because every loom format stores entries grouped by prefix.
template <class T, storage_format Format, bool Owning>
statistics gather_statistics(const basic_tensor<T, Format, Owning>& t) {
  constexpr std::size_t n = Format::order;
  statistics s;
  s.shape.assign(t.shape().begin(), t.shape().end());
  s.nnz = t.nnz();
  s.nonempty_fibers.assign(n, 0);
  s.distinct.assign(n, 0);
  s.max_degree.assign(n, 0);
  s.mean_degree.assign(n, 0.0);
  if constexpr (n > 0) {
    std::array<std::vector<std::int64_t>, n> degree;
    for (std::size_t m = 0; m < n; ++m) degree[m].assign(static_cast<std::size_t>(s.shape[m]), 0);
    std::array<std::int64_t, n> previous{};
    bool first = true;
    t.for_each_stored([&](const std::array<std::int64_t, n>& c, const auto&) {
      // The first level whose coordinate differs from the previous entry starts a new fiber at
      // that level and at every level below it.
      std::size_t k = 0;
      if (!first)
        while (k < n && c[Format::modes[k]] == previous[k]) ++k;
      for (std::size_t l = k; l < n; ++l) ++s.nonempty_fibers[l];
      for (std::size_t l = 0; l < n; ++l) previous[l] = c[Format::modes[l]];
      first = false;
      for (std::size_t m = 0; m < n; ++m) ++degree[m][static_cast<std::size_t>(c[m])];
    });
    for (std::size_t m = 0; m < n; ++m) {
      for (std::int64_t d : degree[m]) {
        s.distinct[m] += d > 0 ? 1 : 0;
        s.max_degree[m] = std::max(s.max_degree[m], d);
      }
      if (s.distinct[m] > 0)
        s.mean_degree[m] = static_cast<double>(s.nnz) / static_cast<double>(s.distinct[m]);
    }
  }
  return s;
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_GATHER_STATISTICS_HPP
