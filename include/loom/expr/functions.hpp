// Defines the pointwise function objects behind -, / and comparisons (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_FUNCTIONS_HPP
#define LOOM_EXPR_FUNCTIONS_HPP

#include <loom/core/semiring.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

namespace loom::fn {

// Each function object says whether f(0) == 0 is known statically (`zero_preserving`) and
// whether it commutes with sums (`linear`): linear ones may be pushed through a reduction.

/// -x
struct negate {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = true;
  static constexpr std::string_view symbol = "-";
  template <class T> constexpr T operator()(T x) const { return -x; }
};

/// x / divisor (linear only for floating point: integer division truncates, so
/// Σ(a / d) differs from (Σ a) / d)
template <class D> struct divide_by {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = std::is_floating_point_v<D>;
  static constexpr std::string_view symbol = "/";
  D divisor;
  template <class T> constexpr T operator()(T x) const { return x / divisor; }
};

/// x scaled by an integer count in the semiring (x + x + ... n times).
struct scale_by {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = true;
  static constexpr std::string_view symbol = "scale";
  std::int64_t count;
  template <class T> constexpr T operator()(T x) const { return semiring_scale(x, count); }
};

#define LOOM_DEFINE_COMPARISON(Name, Op)                                        \
  struct Name {                                                                 \
    static constexpr bool zero_preserving = false;                              \
    static constexpr bool linear = false;                                       \
    static constexpr std::string_view symbol = #Op;                             \
    template <class T> constexpr T operator()(T a, T b) const {                 \
      return (a Op b) ? semiring_traits<T>::one() : semiring_traits<T>::zero(); \
    }                                                                           \
  };
LOOM_DEFINE_COMPARISON(less, <)
LOOM_DEFINE_COMPARISON(greater, >)
LOOM_DEFINE_COMPARISON(less_equal, <=)
LOOM_DEFINE_COMPARISON(greater_equal, >=)
LOOM_DEFINE_COMPARISON(equal_to, ==)
LOOM_DEFINE_COMPARISON(not_equal_to, !=)
#undef LOOM_DEFINE_COMPARISON

/// Static knowledge about a user callable: none, unless it declares the members above.
template <class F>
inline constexpr bool is_zero_preserving_v = [] {
  if constexpr (requires { F::zero_preserving; })
    return F::zero_preserving;
  else
    return false;
}();
template <class F>
inline constexpr bool is_linear_v = [] {
  if constexpr (requires { F::linear; })
    return F::linear;
  else
    return false;
}();

}  // namespace loom::fn

#endif  // LOOM_EXPR_FUNCTIONS_HPP
