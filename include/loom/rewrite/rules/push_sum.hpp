// Defines loom::rules::push_sum: a sum moves past the factors of a product that do not use its
// index (factorisation: fewer multiplications per reduced value) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_PUSH_SUM_HPP
#define LOOM_REWRITE_RULES_PUSH_SUM_HPP

#include <loom/expr/nodes.hpp>
#include <loom/rewrite/patterns.hpp>

#include <string_view>

namespace loom::rules {

// push_sum:  sum(i, a * b)          ==>  a * sum(i, b)          if i not in a, i in b
//            sum(i, a * b)          ==>  sum(i, a) * b          if i in a, i not in b
//            sum(i, (a * b) * c)    ==>  a * sum(i, b * c)      if i not in a, i in b
//            sum(i, (a * b) * c)    ==>  b * sum(i, a * c)      if i in a, i not in b
//            sum(i, sum(j, a * b))  ==>  sum(j, a * sum(i, b))  if i not in a, i in b
struct push_sum {
  static constexpr std::string_view name = "push_sum";
  template <class I, class A, class B>
    requires(!rewrite::uses_v<A, I> && rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<A, B>>& e)
      -> expr::mul<A, expr::sum<I, B>> {
    return {e.body.lhs, {e.body.rhs}};
  }
  template <class I, class A, class B>
    requires(rewrite::uses_v<A, I> && !rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<A, B>>& e)
      -> expr::mul<expr::sum<I, A>, B> {
    return {{e.body.lhs}, e.body.rhs};
  }
  template <class I, class A, class B, class C>  // a factor of a left-nested product
    requires(!rewrite::uses_v<A, I> && rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<expr::mul<A, B>, C>>& e)
      -> expr::mul<A, expr::sum<I, expr::mul<B, C>>> {
    return {e.body.lhs.lhs, {{e.body.lhs.rhs, e.body.rhs}}};
  }
  template <class I, class A, class B, class C>
    requires(rewrite::uses_v<A, I> && !rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::mul<expr::mul<A, B>, C>>& e)
      -> expr::mul<B, expr::sum<I, expr::mul<A, C>>> {
    return {e.body.lhs.rhs, {{e.body.lhs.lhs, e.body.rhs}}};
  }
  template <class I, class J, class A, class B>
    requires(!rewrite::uses_v<A, I> && rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::sum<J, expr::mul<A, B>>>& e)
      -> expr::sum<J, expr::mul<A, expr::sum<I, B>>> {
    return {{e.body.body.lhs, {e.body.body.rhs}}};
  }
  template <class I, class J, class A, class B>
    requires(rewrite::uses_v<A, I> && !rewrite::uses_v<B, I>)
  static constexpr auto apply(const expr::sum<I, expr::sum<J, expr::mul<A, B>>>& e)
      -> expr::sum<J, expr::mul<expr::sum<I, A>, B>> {
    return {{{e.body.body.lhs}, e.body.body.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_PUSH_SUM_HPP
