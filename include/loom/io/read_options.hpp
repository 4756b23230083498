// Defines loom::read_options, how the file readers build a tensor (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_READ_OPTIONS_HPP
#define LOOM_IO_READ_OPTIONS_HPP

#include <loom/format/assembly/assemble.hpp>

#include <cstdint>

namespace loom {

/// How `read_matrix_market` and `read_tns` build a tensor:
/// `loom::read_matrix_market<double>("A.mtx", {.policy = loom::duplicates::error})`.
struct read_options {
  /// What to do with repeated coordinates (Matrix Market files should not have any; the
  /// common practice, and the default, is to add them up).
  duplicates policy = duplicates::sum;
  /// The most positions and values the file's shape alone may make the format allocate (dense
  /// levels and `pos` arrays, e.g. rows + 1 for csr, rows * columns for dense_matrix). A file
  /// declaring more is rejected with a `parse_error` instead of exhausting memory; raise the
  /// limit for genuinely larger tensors. Storage proportional to the entries is not limited.
  std::int64_t max_dense_elements = std::int64_t{1} << 28;
};

}  // namespace loom

#endif  // LOOM_IO_READ_OPTIONS_HPP
