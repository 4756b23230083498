// Defines loom::matrix_market_options, how write_matrix_market lays out a file (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_MATRIX_MARKET_OPTIONS_HPP
#define LOOM_IO_MATRIX_MARKET_OPTIONS_HPP

#include <cstdint>
#include <string>

namespace loom {

/// The field of the banner `%%MatrixMarket matrix <layout> <field> general`.
enum class matrix_market_field {
  automatic,  ///< real for floating types, integer for integral ones; a boolean tensor is
              ///< pattern when every stored value is true, else integer (0/1)
  real,       ///< values as decimal numbers (any value type)
  integer,    ///< values as integers (integral value types and loom::boolean)
  pattern     ///< coordinates only; reading gives the semiring's one() for every entry
};

/// The layout of the banner: coordinate lists entries, array lists every value.
enum class matrix_market_layout {
  coordinate,  ///< `row column value` per stored entry (1-based)
  array        ///< every value of the matrix, column by column (zeros included)
};

/// How `write_matrix_market` writes: `loom::write_matrix_market("A.mtx", A, {.comment = "..."})`.
struct matrix_market_options {
  matrix_market_field field = matrix_market_field::automatic;
  matrix_market_layout layout = matrix_market_layout::coordinate;
  /// Written after the banner, each line prefixed with `%`.
  std::string comment = {};
  /// The most values (rows * columns) the array layout may write: it buffers them all, so a
  /// larger matrix is refused with a `loom::error` rather than exhausting memory. The default is
  /// `read_options`'s, 2^28; raise it for genuinely larger dense files.
  std::int64_t max_dense_elements = std::int64_t{1} << 28;
};

}  // namespace loom

#endif  // LOOM_IO_MATRIX_MARKET_OPTIONS_HPP
