// Defines loom::rules::lift_sum: a sum factor of a product is lifted over the whole product
// (the direction of the sum-product normal form, Σ outermost) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_LIFT_SUM_HPP
#define LOOM_REWRITE_RULES_LIFT_SUM_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/patterns.hpp>

#include <string_view>

namespace loom::rules {

// lift_sum:  sum(i, a) * b  ==>  sum(i, a * b)     if i does not occur in b
//            a * sum(i, b)  ==>  sum(i, a * b)     if i does not occur in a
// (the side condition keeps bound names apart: rename first when both sides bind i)
struct lift_sum {
  static constexpr std::string_view name = "lift_sum";
  template <class I, class A, class B>
    requires(!rewrite::mentions_v<B, I>)
  static constexpr auto apply(const expr::mul<expr::sum<I, A>, B>& e)
      -> expr::sum<I, expr::mul<A, B>> {
    return {{e.lhs.body, e.rhs}};
  }
  template <class I, class A, class B>
    requires(!rewrite::mentions_v<A, I>)
  static constexpr auto apply(const expr::mul<A, expr::sum<I, B>>& e)
      -> expr::sum<I, expr::mul<A, B>> {
    return {{e.lhs, e.rhs.body}};
  }
  template <class I, class A, class J, class B>  // both sides are sums: lift the left one first
    requires(!rewrite::mentions_v<expr::sum<J, B>, I>)
  static constexpr auto apply(const expr::mul<expr::sum<I, A>, expr::sum<J, B>>& e)
      -> expr::sum<I, expr::mul<A, expr::sum<J, B>>> {
    return {{e.lhs.body, e.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_LIFT_SUM_HPP
