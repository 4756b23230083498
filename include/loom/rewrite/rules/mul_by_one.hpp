// Defines loom::rules::mul_by_one: 1 is neutral for * (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_MUL_BY_ONE_HPP
#define LOOM_REWRITE_RULES_MUL_BY_ONE_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>

#include <string_view>

namespace loom::rules {

// mul_by_one:  1 * x  ==>  x,   x * 1  ==>  x
struct mul_by_one {
  static constexpr std::string_view name = "mul_by_one";
  template <class X> static constexpr auto apply(const expr::mul<rewrite::one, X>& e) -> X {
    return e.rhs;
  }
  template <class X> static constexpr auto apply(const expr::mul<X, rewrite::one>& e) -> X {
    return e.lhs;
  }
  static constexpr auto apply(const expr::mul<rewrite::one, rewrite::one>&) -> rewrite::one {
    return {};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_MUL_BY_ONE_HPP
