// Defines loom::expr::sum_product: an expression read as sums over a product, sum(s1, sum(s2,
// ... F1 * F2 * ...)), its summed indices, its body and its factors. The one flattener of
// decompose (exec/decompose/), la's normal form (la/) and their explain (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_SUM_PRODUCT_HPP
#define LOOM_EXPR_SUM_PRODUCT_HPP

#include <loom/expr/nodes.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <tuple>
#include <type_traits>

namespace loom::expr {

namespace detail {
template <class E> struct factor_types {
  using type = boost::mp11::mp_list<E>;
};
template <class L, class R> struct factor_types<mul<L, R>> {
  using type =
      boost::mp11::mp_append<typename factor_types<L>::type, typename factor_types<R>::type>;
};
template <class E> struct is_nonempty_access : std::false_type {};
template <class T, class... Is>
struct is_nonempty_access<access<T, Is...>> : std::bool_constant<(sizeof...(Is) > 0)> {};
}  // namespace detail

/// `E` read as its leading sums over a body: `summed` lists their indices outermost first,
/// `body` is what they sum, `factors` the leaves of the body's product tree, left to right (a
/// sum, an addition or a map inside the product is one factor). Any expression has this form:
/// one without sums has no summed index, one without `*` is its only factor.
template <class E> struct sum_product {
  using summed = boost::mp11::mp_list<>;
  using body = E;
  using factors = typename detail::factor_types<E>::type;
  static constexpr const body& body_of(const E& e) { return e; }
  /// Whether the summed indices are distinct and every factor is an access with an index: what
  /// variable elimination takes (decompose).
  static constexpr bool of_accesses =
      boost::mp11::mp_all_of<factors, detail::is_nonempty_access>::value;
};
template <class I, class E> struct sum_product<sum<I, E>> {
  using inner = sum_product<E>;
  using summed = boost::mp11::mp_push_front<typename inner::summed, I>;
  using body = typename inner::body;
  using factors = typename inner::factors;
  static constexpr const body& body_of(const sum<I, E>& e) { return inner::body_of(e.body); }
  static constexpr bool of_accesses =
      inner::of_accesses && !boost::mp11::mp_contains<typename inner::summed, I>::value;
};

/// The factors of a product, left to right, as a tuple of values (copies of the nodes, which
/// hold pointers to their tensors).
template <class E> constexpr auto factors_of(const E& e) {
  if constexpr (requires { []<class L, class R>(const mul<L, R>&) {}(e); })
    return std::tuple_cat(factors_of(e.lhs), factors_of(e.rhs));
  else
    return std::tuple<E>{e};
}

}  // namespace loom::expr

#endif  // LOOM_EXPR_SUM_PRODUCT_HPP
