// Defines loom::tra::strip<T, W>: W values of T as one semiring element (the product semiring
// T^W, componentwise), the value type of the vectorised tile kernels (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_STRIP_HPP
#define LOOM_TRA_STRIP_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra {

/// W consecutive values of a row, operated on as one value. A scalar converts to a strip by
/// broadcast, so `Bs(k, j) * A(i, k)` multiplies a strip of B's row k by one value of A: loom's
/// dense loop then keeps W/2 (for double) SIMD accumulators in registers.
template <class T, std::size_t W>
  requires std::is_floating_point_v<T> && (W % (16 / sizeof(T)) == 0)
struct strip {
  static constexpr std::size_t lanes = 16 / sizeof(T);  // one SSE2 register
  typedef T lane_type __attribute__((vector_size(16)));
  static constexpr std::size_t parts = W / lanes;
  lane_type part[parts];

  strip() = default;
  LOOM_FORCE_INLINE strip(T x) {  // NOLINT: implicit broadcast is the point
    lane_type v{};
    for (std::size_t l = 0; l < lanes; ++l) v[l] = x;
    for (std::size_t p = 0; p < parts; ++p) part[p] = v;
  }
  LOOM_FORCE_INLINE T lane(std::size_t w) const { return part[w / lanes][w % lanes]; }

  template <class F> LOOM_FORCE_INLINE static strip zip(const strip& a, const strip& b, F f) {
    strip r;
    [&]<std::size_t... P>(std::index_sequence<P...>) {
      ((r.part[P] = f(a.part[P], b.part[P])), ...);
    }(std::make_index_sequence<parts>{});
    return r;
  }
  friend bool operator==(const strip& a, const strip& b) {
    for (std::size_t w = 0; w < W; ++w)
      if (a.lane(w) != b.lane(w)) return false;
    return true;
  }
};

}  // namespace loom::tra

namespace loom {
/// T^W with componentwise + and x: a semiring whenever T is one.
template <class T, std::size_t W> struct semiring_traits<tra::strip<T, W>> {
  using S = tra::strip<T, W>;
  static constexpr std::string_view name = "strip";
  static constexpr bool idempotent = false;
  static S zero() { return S(T(0)); }
  static S one() { return S(T(1)); }
  LOOM_FORCE_INLINE static S add(const S& a, const S& b) {
    return S::zip(a, b, [](auto x, auto y) { return x + y; });
  }
  LOOM_FORCE_INLINE static S mul(const S& a, const S& b) {
    return S::zip(a, b, [](auto x, auto y) { return x * y; });
  }
  static S scale(const S& a, std::int64_t n) { return mul(a, S(static_cast<T>(n))); }
};
}  // namespace loom

#endif  // LOOM_TRA_STRIP_HPP
