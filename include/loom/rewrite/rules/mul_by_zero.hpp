// Defines loom::rules::mul_by_zero: 0 annihilates * and where (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_MUL_BY_ZERO_HPP
#define LOOM_REWRITE_RULES_MUL_BY_ZERO_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>

#include <string_view>

namespace loom::rules {

// mul_by_zero:  0 * x  ==>  0,   x * 0  ==>  0,   where(0, x) ==> 0,   where(p, 0) ==> 0
// (0 annihilates × in every semiring loom supports)
struct mul_by_zero {
  static constexpr std::string_view name = "mul_by_zero";
  template <class X>
  static constexpr auto apply(const expr::mul<rewrite::zero, X>&) -> rewrite::zero {
    return {};
  }
  template <class X>
  static constexpr auto apply(const expr::mul<X, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
  template <class X>
  static constexpr auto apply(const expr::where<rewrite::zero, X>&) -> rewrite::zero {
    return {};
  }
  template <class X>
  static constexpr auto apply(const expr::where<X, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_MUL_BY_ZERO_HPP
