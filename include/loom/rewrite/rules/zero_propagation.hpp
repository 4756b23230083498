// Defines loom::rules::zero_propagation: sums, broadcasts and zero-preserving maps of 0 are 0
// (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_ZERO_PROPAGATION_HPP
#define LOOM_REWRITE_RULES_ZERO_PROPAGATION_HPP

#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>

#include <string_view>

namespace loom::rules {

// zero_propagation:  sum(i, 0) ==> 0,   expand(i, 0) ==> 0,   f(0) ==> 0  if f(0) = 0 statically
struct zero_propagation {
  static constexpr std::string_view name = "zero_propagation";
  template <class I>
  static constexpr auto apply(const expr::sum<I, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
  template <class I>
  static constexpr auto apply(const expr::expand<I, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
  template <class F>
    requires fn::is_zero_preserving_v<F>
  static constexpr auto apply(const expr::map<F, rewrite::zero>&) -> rewrite::zero {
    return {};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_ZERO_PROPAGATION_HPP
