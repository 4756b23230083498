// Defines loom::rules::double_negation: -(-x) is x (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_DOUBLE_NEGATION_HPP
#define LOOM_REWRITE_RULES_DOUBLE_NEGATION_HPP

#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>

#include <string_view>
#include <tuple>

namespace loom::rules {

// double_negation:  -(-x)  ==>  x
struct double_negation {
  static constexpr std::string_view name = "double_negation";
  template <class X>
  static constexpr auto apply(const expr::map<fn::negate, expr::map<fn::negate, X>>& e) -> X {
    return std::get<0>(std::get<0>(e.args).args);
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_DOUBLE_NEGATION_HPP
