// Defines the tile kernels: matmul, add, transpose, diagonal, each written with loom's own dense
// loops over views of tile buffers, and the counters the cost tests read (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_KERNELS_HPP
#define LOOM_TRA_KERNELS_HPP

#include <loom/core.hpp>
#include <loom/exec.hpp>
#include <loom/expr.hpp>
#include <loom/format.hpp>
#include <loom/stream.hpp>
#include <loom/tra/counters.hpp>
#include <loom/tra/strip.hpp>
#include <loom/tra/tile.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom::tra {

namespace detail {
inline constexpr loom::index<"i"> ki;
inline constexpr loom::index<"j"> kj;
inline constexpr loom::index<"k"> kk;

// Strip width: 128 bytes of T (8 SSE2 registers of accumulators in the inner loop).
template <class T> inline constexpr std::size_t strip_width = 128 / sizeof(T);

template <class T>
inline constexpr bool has_strip_kernel = std::is_same_v<T, double> || std::is_same_v<T, float>;

// C (m x n) = A (m x k) B (k x n), all row-major. B and C are copied to rows of W-wide strips
// (a memcpy when n is a multiple of W: same bytes; else zero-padded); A is read in place. loom's
// loop order i, j, k keeps the W-wide sum in registers, and A(i,k) is broadcast to a strip by the
// conversion in the product. (Viewing the tiles as strips in place would break strict aliasing,
// and `may_alias` strips halve the speed: GCC then keeps the sums in memory.)
template <class T>
void matmul_strips(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, T* c,
                   bool accumulate) {
  constexpr std::size_t W = strip_width<T>;
  using S = strip<T, W>;
  static_assert(sizeof(S) == W * sizeof(T),
                "loom internal error: strips must be unpadded; please report");
  constexpr auto w = static_cast<std::int64_t>(W);
  const std::int64_t nb = (n + w - 1) / w;
  const bool whole = n % w == 0;
  thread_local std::vector<S> bs, cs;  // reused: copying is O(n^2), the product O(n^3)
  bs.resize(static_cast<std::size_t>(k * nb));
  cs.resize(static_cast<std::size_t>(m * nb));
  auto to_strips = [&](const T* src, std::int64_t rows, std::vector<S>& dst) {
    if (whole) {
      std::memcpy(static_cast<void*>(dst.data()), src,
                  static_cast<std::size_t>(rows * n) * sizeof(T));
      return;
    }
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t s = 0; s < nb; ++s) {
        S& d = dst[static_cast<std::size_t>(r * nb + s)];
        const std::int64_t c0 = s * w, len = std::min<std::int64_t>(w, n - c0);
        d = S(T(0));
        for (std::int64_t l = 0; l < len; ++l)
          d.part[l / S::lanes][l % S::lanes] = src[r * n + c0 + l];
      }
  };
  to_strips(b, k, bs);
  if (accumulate) to_strips(c, m, cs);
  auto A = loom::dense_matrix_view<const T>(m, k,
                                            std::span<const T>(a, static_cast<std::size_t>(m * k)));
  auto B = loom::dense_matrix_view<const S>(k, nb, std::span<const S>(bs));
  auto C = loom::dense_matrix_view<S>(m, nb, std::span<S>(cs));
  auto product = loom::sum(kk, B(kk, kj) * A(ki, kk));
  static_assert(
      std::is_same_v<std::remove_const_t<loom::expr::value_type_t<decltype(product)>>, S>,
      "loom internal error: the strip product must have the strip value type; please report");
  if (accumulate)
    C(ki, kj) += product;
  else
    C(ki, kj) = product;
  if (whole) {
    std::memcpy(c, static_cast<const void*>(cs.data()),
                static_cast<std::size_t>(m * n) * sizeof(T));
    return;
  }
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t s = 0; s < nb; ++s) {
      const S& src = cs[static_cast<std::size_t>(r * nb + s)];
      const std::int64_t c0 = s * w, len = std::min<std::int64_t>(w, n - c0);
      for (std::int64_t l = 0; l < len; ++l)
        c[r * n + c0 + l] = src.lane(static_cast<std::size_t>(l));
    }
}
}  // namespace detail

/// C = A B for matrix tiles (any semiring; float and double take the vectorised strip kernel).
template <class T>
void matmul_into(const tile<T, 2>& a, const tile<T, 2>& b, tile<T, 2>& c, bool accumulate = false) {
  const std::int64_t m = a.extent(0), k = a.extent(1), n = b.extent(1);
  if (b.extent(0) != k)
    throw shape_error("loom::tra::matmul: inner extents differ: " + to_string(a.shape()) + " x " +
                      to_string(b.shape()));
  if (c.shape() != shape_t<2>{m, n}) c = tile<T, 2>({m, n});
  counters().muls += m * n * k;
  counters().adds += m * n * k;
  if constexpr (detail::has_strip_kernel<T>) {
    detail::matmul_strips(m, n, k, a.data().data(), b.data().data(), c.data().data(), accumulate);
  } else {
    auto A = a.view();
    auto B = b.view();
    auto C = c.view();
    if (accumulate)
      C(detail::ki, detail::kj) +=
          loom::sum(detail::kk, A(detail::ki, detail::kk) * B(detail::kk, detail::kj));
    else
      C(detail::ki, detail::kj) =
          loom::sum(detail::kk, A(detail::ki, detail::kk) * B(detail::kk, detail::kj));
  }
}

template <class T> tile<T, 2> matmul(const tile<T, 2>& a, const tile<T, 2>& b) {
  tile<T, 2> c({a.extent(0), b.extent(1)});
  matmul_into(a, b, c);
  return c;
}

/// C = A B for tiles whose shapes are types: the inner extents must agree at compile time.
template <class T, std::size_t M, std::size_t K, std::size_t N>
static_tile<T, M, N> matmul(const static_tile<T, M, K>& a, const static_tile<T, K, N>& b) {
  static_tile<T, M, N> c;
  matmul_into(a.dynamic(), b.dynamic(), c.dynamic());
  return c;
}

/// Element-wise a + b (tiles of equal shape), a loom loop over the flattened buffers.
template <class T, std::size_t R> tile<T, R> add(const tile<T, R>& a, const tile<T, R>& b) {
  if (a.shape() != b.shape())
    throw shape_error("loom::tra::add: tile shapes differ: " + to_string(a.shape()) + " and " +
                      to_string(b.shape()));
  tile<T, R> c(a.shape());
  auto x = loom::dense_vector_view<const T>(a.data());
  auto y = loom::dense_vector_view<const T>(b.data());
  auto z = loom::dense_vector_view<T>(c.data());
  z(detail::ki) = x(detail::ki) + y(detail::ki);
  counters().adds += a.size();
  return c;
}

/// a += b in place (the aggregation kernel; no allocation).
template <class T, std::size_t R> void add_into(tile<T, R>& a, const tile<T, R>& b) {
  if (a.shape() != b.shape())
    throw shape_error("loom::tra::add: tile shapes differ: " + to_string(a.shape()) + " and " +
                      to_string(b.shape()));
  auto y = loom::dense_vector_view<const T>(b.data());
  auto z = loom::dense_vector_view<T>(a.data());
  z(detail::ki) += y(detail::ki);
  counters().adds += a.size();
}

/// The transpose of a matrix tile.
template <class T> tile<T, 2> transpose(const tile<T, 2>& a) {
  tile<T, 2> c({a.extent(1), a.extent(0)});
  auto A = a.view();
  auto C = c.view();
  C(detail::ki, detail::kj) = A(detail::kj, detail::ki);
  return c;
}

/// The diagonal of a square matrix tile, as a vector (the paper's `diag`, extraction form).
template <class T> tile<T, 1> diagonal(const tile<T, 2>& a) {
  const std::int64_t n = std::min(a.extent(0), a.extent(1));
  tile<T, 1> d({n});
  for (std::int64_t p = 0; p < n; ++p) d(p) = a(p, p);  // loom has no diagonal access A(i,i) yet
  return d;
}

/// The diagonal kept as a matrix with zeros elsewhere (the other reading of `diag`).
template <class T> tile<T, 2> diagonal_matrix(const tile<T, 2>& a) {
  tile<T, 2> d(a.shape());
  const std::int64_t n = std::min(a.extent(0), a.extent(1));
  for (std::int64_t p = 0; p < n; ++p) d(p, p) = a(p, p);
  return d;
}

/// Element-wise a + b on the diagonal only: diag(a + b) = diag(a) + diag(b), fused (R1-7).
template <class T> tile<T, 1> add_diagonals(const tile<T, 2>& a, const tile<T, 2>& b) {
  const std::int64_t n = std::min(a.extent(0), a.extent(1));
  tile<T, 1> d({n});
  for (std::int64_t p = 0; p < n; ++p) d(p) = semiring_traits<T>::add(a(p, p), b(p, p));
  counters().adds += n;
  return d;
}

/// Function objects for the kernels, with the traits the rewrite rules read (notes §8.2 item 7).
struct mat_add {
  static constexpr std::string_view name = "add";
  static constexpr bool associative = true, commutative = true;
  template <class T, std::size_t R>
  tile<T, R> operator()(const tile<T, R>& a, const tile<T, R>& b) const {
    return add(a, b);
  }
  /// a = a + b in place (aggregation folds with it: no tile allocated per step)
  template <class T, std::size_t R> void accumulate(tile<T, R>& a, const tile<T, R>& b) const {
    add_into(a, b);
  }
};
struct mat_mul {
  static constexpr std::string_view name = "matmul";
  template <class T> tile<T, 2> operator()(const tile<T, 2>& a, const tile<T, 2>& b) const {
    return matmul(a, b);
  }
  /// out += a b: lets join_aggregate fuse Σ(mat_add) into the join (notes §8.2 item 16)
  using accumulates_with = mat_add;
  template <class T>
  void accumulate_product(const tile<T, 2>& a, const tile<T, 2>& b, tile<T, 2>& out) const {
    matmul_into(a, b, out, true);
  }
};
struct diag_extract {
  static constexpr std::string_view name = "diag";
  template <class T> tile<T, 1> operator()(const tile<T, 2>& a) const { return diagonal(a); }
};
struct transpose_tile {
  static constexpr std::string_view name = "transpose";
  template <class T> tile<T, 2> operator()(const tile<T, 2>& a) const { return transpose(a); }
};
/// diag distributes over mat_add: diag(a + b) = diag(a) + diag(b) (the R1-7 special case).
template <class Map, class Op> inline constexpr bool distributes_over = false;
template <> inline constexpr bool distributes_over<diag_extract, mat_add> = true;

}  // namespace loom::tra

#endif  // LOOM_TRA_KERNELS_HPP
