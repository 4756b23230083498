// Defines loom::rules::distribute_contracted: a contracted product by one tensor distributes over
// + (sum(j, (A + B) * x) as two loops rather than one over the union) (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_DISTRIBUTE_CONTRACTED_HPP
#define LOOM_REWRITE_RULES_DISTRIBUTE_CONTRACTED_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/rewrite/patterns.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <string_view>

namespace loom::rules {

namespace detail {
// c is one tensor read by the sum's index whose indices are all the sum's operands' own: each
// entry of a and of b then costs one read of c either way, and the two loops need no merge
template <class I, class Sum, class C>
inline constexpr bool distributes_contracted_v =
    expr::is_access<C>::value && rewrite::uses_v<C, I> &&
    boost::mp11::mp_empty<
        boost::mp11::mp_set_difference<expr::free_indices_t<C>, expr::free_indices_t<Sum>>>::value;
}  // namespace detail

// distribute_contracted:  sum(i, (a + b) * c)  ==>  sum(i, a * c) + sum(i, b * c)
//                         sum(i, c * (a + b))  ==>  sum(i, c * a) + sum(i, c * b)
//   if c is one tensor that uses i and no index outside a + b
struct distribute_contracted {
  static constexpr std::string_view name = "distribute_contracted";
  template <class I, class A, class B, class C>
    requires detail::distributes_contracted_v<I, expr::add<A, B>, C>
  static constexpr auto apply(const expr::sum<I, expr::mul<expr::add<A, B>, C>>& e)
      -> expr::add<expr::sum<I, expr::mul<A, C>>, expr::sum<I, expr::mul<B, C>>> {
    return {{{e.body.lhs.lhs, e.body.rhs}}, {{e.body.lhs.rhs, e.body.rhs}}};
  }
  template <class I, class A, class B, class C>
    requires detail::distributes_contracted_v<I, expr::add<A, B>, C>
  static constexpr auto apply(const expr::sum<I, expr::mul<C, expr::add<A, B>>>& e)
      -> expr::add<expr::sum<I, expr::mul<C, A>>, expr::sum<I, expr::mul<C, B>>> {
    return {{{e.body.lhs, e.body.rhs.lhs}}, {{e.body.lhs, e.body.rhs.rhs}}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_DISTRIBUTE_CONTRACTED_HPP
