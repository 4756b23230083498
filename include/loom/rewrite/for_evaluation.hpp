// Defines loom::rewrite::for_evaluation(e): the always-profitable rules to a fixpoint, then the
// static constants turned into literals; what the evaluator runs (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_FOR_EVALUATION_HPP
#define LOOM_REWRITE_FOR_EVALUATION_HPP

#include <loom/expr/traits.hpp>
#include <loom/rewrite/engine.hpp>
#include <loom/rewrite/rule_sets.hpp>
#include <loom/rewrite/rules/constants_to_literals.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/set.hpp>

#include <type_traits>

namespace loom::rewrite {

/// `e` under `always_profitable`, ready for the evaluator; `::fired` lists the rules applied.
template <class E> constexpr auto for_evaluation(const E& e) {
  auto r = rewrite<always_profitable>(e);
  auto f =
      rewrite<boost::mp11::mp_list<rules::constants_to_literals<expr::value_type_t<E>>>>(r.expr);
  return traced<decltype(f.expr), typename decltype(r)::fired>{f.expr};
}

/// The expression type the evaluator runs for an E.
template <class E>
using for_evaluation_t =
    typename decltype(for_evaluation(std::declval<const E&>()))::expression_type;

namespace detail {
template <class A, class B>
inline constexpr bool same_index_set_v =
    boost::mp11::mp_size<A>::value == boost::mp11::mp_size<B>::value &&
    boost::mp11::mp_empty<boost::mp11::mp_set_difference<A, B>>::value;
template <class E, class R>
inline constexpr bool kernel_preserved_v =
    same_index_set_v<expr::free_indices_t<E>, expr::free_indices_t<R>> &&
    boost::mp11::mp_empty<
        boost::mp11::mp_set_difference<expr::all_indices_t<R>, expr::all_indices_t<E>>>::value;
}  // namespace detail

/// The kernel the evaluator runs for a (valid) right-hand side e: e under the always-profitable
/// rules, or e itself when the rewrite would change its free indices (a product by a static
/// zero) or introduce an index; `::fired` lists the rules applied.
template <class E> constexpr auto for_kernel(const E& e) {
  if constexpr (detail::kernel_preserved_v<E, for_evaluation_t<E>>)
    return for_evaluation(e);
  else
    return traced<E, mp_list<>>{e};
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_FOR_EVALUATION_HPP
