// Defines the zero-copy view factories: csr_view, csc_view, dense_vector_view, dense_matrix_view
// (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_VIEW_HPP
#define LOOM_FORMAT_VIEW_HPP

#include <loom/core/error.hpp>
#include <loom/format/tensor.hpp>
#include <loom/format/validate.hpp>

#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace loom {

namespace detail {
/// The checks of csr_view and csc_view (`outer` x `inner` are the extents in storage order): in
/// O(1) the extents (not negative), the lengths of the arrays against them, pos[0] and
/// pos[last]; then in O(nnz) what `loom::validate` checks (monotone pos, sorted coordinates in
/// range), so that a view made here is always safe to read.
template <class Pos, class Crd, class T>
void check_compressed_view(std::int64_t rows, std::int64_t cols, std::int64_t outer,
                           std::int64_t inner, std::span<const Pos> pos, std::span<const Crd> crd,
                           std::span<T> vals, const char* who) {
  auto fail = [&](const std::string& what) {
    throw shape_error(std::string("loom::") + who + " (" + std::to_string(rows) + " x " +
                      std::to_string(cols) + "): " + what);
  };
  if (rows < 0 || cols < 0) fail("the extents must not be negative");
  if (outer == std::numeric_limits<std::int64_t>::max() ||
      static_cast<std::int64_t>(pos.size()) != outer + 1)
    fail("pos has " + std::to_string(pos.size()) + " entries, expected " + std::to_string(outer) +
         " + 1");
  if (crd.size() != vals.size())
    fail("crd has " + std::to_string(crd.size()) + " entries but values has " +
         std::to_string(vals.size()));
  if (pos[0] != 0) fail("pos[0] must be 0, not " + std::to_string(pos[0]));
  if (static_cast<std::int64_t>(pos[outer]) != static_cast<std::int64_t>(crd.size()))
    fail("crd (" + std::to_string(crd.size()) + ") and values (" + std::to_string(vals.size()) +
         ") must both have pos[last] = " + std::to_string(pos[outer]) + " entries");
  for (std::int64_t p = 0; p < outer; ++p)
    if (pos[p + 1] < pos[p]) fail("pos is not non-decreasing at " + std::to_string(p));
  for (std::int64_t p = 0; p < outer; ++p)
    for (std::int64_t q = pos[p]; q < pos[p + 1]; ++q) {
      if (crd[q] < 0 || crd[q] >= inner)
        fail("coordinate " + std::to_string(crd[q]) + " at position " + std::to_string(q) +
             " is outside the extent " + std::to_string(inner));
      if (q > pos[p] && crd[q] <= crd[q - 1])
        fail("coordinates of segment " + std::to_string(p) + " are not strictly ascending");
    }
}
}  // namespace detail

/// A CSR view over caller arrays (validated once, never copied; see check_compressed_view).
template <class T, class Pos = std::int64_t, class Crd = std::int32_t>
auto csr_view(std::int64_t rows, std::int64_t cols, std::type_identity_t<std::span<const Pos>> pos,
              std::type_identity_t<std::span<const Crd>> crd,
              std::type_identity_t<std::span<T>> vals) {
  using fmt = format<dense, compressed_level<uniqueness::unique, Pos, Crd>>;
  detail::check_compressed_view(rows, cols, rows, cols, pos, crd, vals, "csr_view");
  typename view<T, fmt>::level_storages levels{};
  std::get<0>(levels).extent = rows;
  std::get<1>(levels).pos = pos;
  std::get<1>(levels).crd = crd;
  return view<T, fmt>({rows, cols}, levels, vals);
}

/// A CSC view over caller arrays.
template <class T, class Pos = std::int64_t, class Crd = std::int32_t>
auto csc_view(std::int64_t rows, std::int64_t cols, std::type_identity_t<std::span<const Pos>> pos,
              std::type_identity_t<std::span<const Crd>> crd,
              std::type_identity_t<std::span<T>> vals) {
  using fmt =
      typename format<dense, compressed_level<uniqueness::unique, Pos, Crd>>::template ordered<1,
                                                                                               0>;
  detail::check_compressed_view(rows, cols, cols, rows, pos, crd, vals, "csc_view");
  typename view<T, fmt>::level_storages levels{};
  std::get<0>(levels).extent = cols;
  std::get<1>(levels).pos = pos;
  std::get<1>(levels).crd = crd;
  return view<T, fmt>({rows, cols}, levels, vals);
}

/// A dense vector view (writable when T is not const).
template <class T> auto dense_vector_view(std::type_identity_t<std::span<T>> vals) {
  typename view<T, dense_vector>::level_storages levels{};
  std::get<0>(levels).extent = static_cast<std::int64_t>(vals.size());
  return view<T, dense_vector>({static_cast<std::int64_t>(vals.size())}, levels, vals);
}

/// A row-major dense matrix view: `rows` x `cols` (neither negative, the product within 64
/// bits) over exactly rows * cols values.
template <class T>
auto dense_matrix_view(std::int64_t rows, std::int64_t cols,
                       std::type_identity_t<std::span<T>> vals) {
  auto fail = [&](const std::string& what) {
    throw shape_error("loom::dense_matrix_view (" + std::to_string(rows) + " x " +
                      std::to_string(cols) + ", " + std::to_string(vals.size()) +
                      " values): " + what);
  };
  if (rows < 0 || cols < 0) fail("the extents must not be negative");
  if (cols != 0 && rows > std::numeric_limits<std::int64_t>::max() / cols)
    fail("rows x cols overflows 64 bits");
  if (rows * cols != static_cast<std::int64_t>(vals.size()))
    fail("expected rows x cols = " + std::to_string(rows * cols) + " values");
  typename view<T, dense_matrix>::level_storages levels{};
  std::get<0>(levels).extent = rows;
  std::get<1>(levels).extent = cols;
  return view<T, dense_matrix>({rows, cols}, levels, vals);
}

}  // namespace loom

#endif  // LOOM_FORMAT_VIEW_HPP
