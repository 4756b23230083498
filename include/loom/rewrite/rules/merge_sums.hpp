// Defines loom::rules::merge_sums: nested sums form one block with its indices in canonical
// (name) order, so equal blocks written in different orders meet (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_MERGE_SUMS_HPP
#define LOOM_REWRITE_RULES_MERGE_SUMS_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/patterns.hpp>

#include <string_view>

namespace loom::rules {

// merge_sums:  sum(i, sum(j, x))  ==>  sum(j, sum(i, x))   if j sorts before i
// (Σ_i Σ_j = Σ_{i,j} = Σ_j Σ_i: the block is one multi-index sum, kept sorted)
struct merge_sums {
  static constexpr std::string_view name = "merge_sums";
  template <class I, class J, class X>
    requires rewrite::index_before_v<J, I>
  static constexpr auto apply(const expr::sum<I, expr::sum<J, X>>& e)
      -> expr::sum<J, expr::sum<I, X>> {
    return {{e.body.body}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_MERGE_SUMS_HPP
