// Defines loom::rules::add_zero: 0 is neutral for + (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_ADD_ZERO_HPP
#define LOOM_REWRITE_RULES_ADD_ZERO_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>

#include <string_view>

namespace loom::rules {

// add_zero:  0 + x  ==>  x,   x + 0  ==>  x
struct add_zero {
  static constexpr std::string_view name = "add_zero";
  template <class X> static constexpr auto apply(const expr::add<rewrite::zero, X>& e) -> X {
    return e.rhs;
  }
  template <class X> static constexpr auto apply(const expr::add<X, rewrite::zero>& e) -> X {
    return e.lhs;
  }
  static constexpr auto apply(const expr::add<rewrite::zero, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_ADD_ZERO_HPP
