// Defines loom::rules::split_sum: a sum distributes over + (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_SPLIT_SUM_HPP
#define LOOM_REWRITE_RULES_SPLIT_SUM_HPP

#include <loom/expr/nodes.hpp>

#include <string_view>

namespace loom::rules {

// split_sum:  sum(i, a + b)  ==>  sum(i, a) + sum(i, b)
struct split_sum {
  static constexpr std::string_view name = "split_sum";
  template <class I, class A, class B>
  static constexpr auto apply(const expr::sum<I, expr::add<A, B>>& e)
      -> expr::add<expr::sum<I, A>, expr::sum<I, B>> {
    return {{e.body.lhs}, {e.body.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_SPLIT_SUM_HPP
