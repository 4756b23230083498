// Defines loom::rules::sum_absent: a sum over an index its body does not use is the body times
// the index's extent, kept as the count factor sum(i, 1) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_SUM_ABSENT_HPP
#define LOOM_REWRITE_RULES_SUM_ABSENT_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>
#include <loom/rewrite/patterns.hpp>

#include <string_view>
#include <type_traits>

namespace loom::rules {

// sum_absent:  sum(i, x)  ==>  sum(i, 1) * x     if i is not free in x
// (the count sum(i, 1) = extent(i) is a scalar factor the later rules move freely; the evaluator
// computes it from the extent of i)
struct sum_absent {
  static constexpr std::string_view name = "sum_absent";
  template <class I, class X>
    requires(!rewrite::uses_v<X, I> && !rewrite::is_constant_v<X>)
  static constexpr auto apply(const expr::sum<I, X>& e)
      -> expr::mul<expr::sum<I, rewrite::one>, X> {
    return {{}, e.body};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_SUM_ABSENT_HPP
