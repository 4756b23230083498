// Defines the pointwise function objects behind -, / and comparisons, and the element-wise
// functions of loom::la (exp, log, sigmoid, abs, max, min) (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_FUNCTIONS_HPP
#define LOOM_EXPR_FUNCTIONS_HPP

#include <loom/core/semiring.hpp>

#include <cmath>
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

/// e^x (f(0) = 1: the result is dense)
struct exp {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "exp";
  template <class T> T operator()(T x) const { return static_cast<T>(std::exp(x)); }
};
/// ln x (f(0) = -inf: the result is dense, -inf where x is 0)
struct log {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "log";
  template <class T> T operator()(T x) const { return static_cast<T>(std::log(x)); }
};
/// 1 / (1 + e^-x) (f(0) = 1/2: the result is dense)
struct sigmoid {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "sigmoid";
  template <class T> T operator()(T x) const {
    return static_cast<T>(T(1) / (T(1) + std::exp(-x)));
  }
};
/// |x| (f(0) = 0: keeps the operand's sparsity)
struct abs {
  static constexpr bool zero_preserving = true;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "abs";
  template <class T> constexpr T operator()(T x) const { return x < T(0) ? -x : x; }
};
/// max(x, y). Not zero-preserving as a type: with a constant c, max(0, c) may not be 0, so the
/// evaluator decides at run time from f(0, c) (two tensors: f(0, 0) = 0, stored where either is).
struct maximum {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "max";
  template <class T> constexpr T operator()(T x, T y) const { return x < y ? y : x; }
};
/// min(x, y), as `maximum`
struct minimum {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "min";
  template <class T> constexpr T operator()(T x, T y) const { return y < x ? y : x; }
};

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
