// Defines loom::rules::distribute: * distributes over + (towards the sum-of-products form; not
// always profitable, so only the normal-form rule set uses it) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_DISTRIBUTE_HPP
#define LOOM_REWRITE_RULES_DISTRIBUTE_HPP

#include <loom/expr/nodes.hpp>

#include <string_view>

namespace loom::rules {

// distribute:  (a + b) * c  ==>  a * c + b * c,    c * (a + b)  ==>  c * a + c * b
struct distribute {
  static constexpr std::string_view name = "distribute";
  template <class A, class B, class C>
  static constexpr auto apply(const expr::mul<expr::add<A, B>, C>& e)
      -> expr::add<expr::mul<A, C>, expr::mul<B, C>> {
    return {{e.lhs.lhs, e.rhs}, {e.lhs.rhs, e.rhs}};
  }
  template <class A, class B, class C>
  static constexpr auto apply(const expr::mul<C, expr::add<A, B>>& e)
      -> expr::add<expr::mul<C, A>, expr::mul<C, B>> {
    return {{e.lhs, e.rhs.lhs}, {e.lhs, e.rhs.rhs}};
  }
  template <class A, class B, class C, class D>  // both sides are sums: split the left first
  static constexpr auto apply(const expr::mul<expr::add<A, B>, expr::add<C, D>>& e)
      -> expr::add<expr::mul<A, expr::add<C, D>>, expr::mul<B, expr::add<C, D>>> {
    return {{e.lhs.lhs, e.rhs}, {e.lhs.rhs, e.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_DISTRIBUTE_HPP
