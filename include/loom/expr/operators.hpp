// Defines the index-notation operators and functions that build expressions: + - * / unary -,
// comparisons, loom::sum, loom::map, loom::where, loom::expand (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_OPERATORS_HPP
#define LOOM_EXPR_OPERATORS_HPP

#include <loom/core/index.hpp>
#include <loom/core/semiring.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace loom::expr {

/// A scalar usable as an operand: any semiring value that is not an expression.
template <class T>
concept scalar_operand = !expression<T> && semiring<std::remove_cvref_t<T>>;
template <class T>
concept operand = expression<T> || scalar_operand<T>;

/// Wraps scalars into `literal`; leaves expressions alone.
template <operand T> constexpr auto as_expr(const T& x) {
  if constexpr (expression<T>)
    return x;
  else
    return literal<std::remove_cvref_t<T>>{x};
}
template <class T> using as_expr_t = decltype(as_expr(std::declval<const T&>()));

template <operand L, operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator+(const L& l, const R& r) {
  return add<as_expr_t<L>, as_expr_t<R>>{as_expr(l), as_expr(r)};
}
template <operand L, operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator*(const L& l, const R& r) {
  return mul<as_expr_t<L>, as_expr_t<R>>{as_expr(l), as_expr(r)};
}
template <expression E> constexpr auto operator-(const E& e) {
  static_assert(is_arithmetic_semiring_v<value_type_t<E>>,
                "loom: unary - needs an arithmetic value type (a semiring has no negation)");
  return map<fn::negate, E>{fn::negate{}, std::tuple<E>{e}};
}
template <operand L, operand R>
  requires(expression<L> || expression<R>)
constexpr auto operator-(const L& l, const R& r) {
  return as_expr(l) + (-as_expr(r));
}
template <expression E, scalar_operand S> constexpr auto operator/(const E& e, const S& s) {
  static_assert(is_arithmetic_semiring_v<value_type_t<E>>,
                "loom: / needs an arithmetic value type; only division by a scalar is supported");
  using V = value_type_t<E>;
  return map<fn::divide_by<V>, E>{fn::divide_by<V>{static_cast<V>(s)}, std::tuple<E>{e}};
}

#define LOOM_DEFINE_COMPARISON_OPERATOR(Op, Fn)                                         \
  template <operand L, operand R>                                                       \
    requires(expression<L> || expression<R>)                                            \
  constexpr auto operator Op(const L& l, const R& r) {                                  \
    return map<fn::Fn, as_expr_t<L>, as_expr_t<R>>{fn::Fn{}, {as_expr(l), as_expr(r)}}; \
  }
LOOM_DEFINE_COMPARISON_OPERATOR(<, less)
LOOM_DEFINE_COMPARISON_OPERATOR(>, greater)
LOOM_DEFINE_COMPARISON_OPERATOR(<=, less_equal)
LOOM_DEFINE_COMPARISON_OPERATOR(>=, greater_equal)
LOOM_DEFINE_COMPARISON_OPERATOR(==, equal_to)
LOOM_DEFINE_COMPARISON_OPERATOR(!=, not_equal_to)
#undef LOOM_DEFINE_COMPARISON_OPERATOR

}  // namespace loom::expr

namespace loom {

namespace detail {
template <std::size_t K, class Tuple> constexpr auto nest_sums(const Tuple& args) {
  constexpr std::size_t n = std::tuple_size_v<Tuple>;
  if constexpr (K + 1 == n) {
    return expr::as_expr(std::get<K>(args));
  } else {
    using index_t = std::remove_cvref_t<std::tuple_element_t<K, Tuple>>;
    static_assert(index_variable<index_t>,
                  "loom::sum: every argument but the last must be an index variable, as in "
                  "sum(i, j, e)");
    auto inner = nest_sums<K + 1>(args);
    return expr::sum<index_t, decltype(inner)>{inner};
  }
}
}  // namespace detail

/// `sum(j, e)` reduces e over j; `sum(i, j, e)` over several indices.
template <class... Args>
  requires(sizeof...(Args) >= 2)
constexpr auto sum(const Args&... args) {
  using last_t =
      std::remove_cvref_t<std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>>;
  static_assert(expr::operand<last_t>, "loom::sum: the last argument must be an expression");
  return detail::nest_sums<0>(std::tuple<const Args&...>(args...));
}

namespace detail {
template <class Op, class I, class E> constexpr auto make_aggregate(const E& e) {
  using body_t = std::remove_cvref_t<decltype(expr::as_expr(e))>;
  static_assert(boost::mp11::mp_contains<expr::free_indices_t<body_t>, I>::value,
                "loom::max(i, e) / loom::min(i, e): the index is not free in e");
  return expr::aggregate<Op, I, body_t>{expr::as_expr(e)};
}
}  // namespace detail

/// `max(j, e)`: the maximum of e over j, an absent entry counting as zero (e.g. the largest
/// entry of each row of a product, `max(j, sum(k, A(i, k) * B(k, j)))`). Computed before the
/// kernel that reads it, into a dense tensor over e's other indices (exec/aggregate.hpp).
template <index_variable I, expr::operand E> constexpr auto max(I, const E& e) {
  return detail::make_aggregate<expr::agg::max, std::remove_cvref_t<I>>(e);
}
/// `min(j, e)`: the minimum of e over j, an absent entry counting as zero.
template <index_variable I, expr::operand E> constexpr auto min(I, const E& e) {
  return detail::make_aggregate<expr::agg::min, std::remove_cvref_t<I>>(e);
}

/// `map(f, e...)`: f applied pointwise to one or two expressions. When f(0, ...) != 0 the
/// result is computed over the whole domain (checked at run time unless f declares
/// `static constexpr bool zero_preserving`).
template <class F, class... Es>
  requires(sizeof...(Es) >= 1) && (expr::operand<Es> && ...)
constexpr auto map(F f, const Es&... es) {
  static_assert(sizeof...(Es) <= 2, "loom::map: more than two operands is not supported yet");
  return expr::map<F, expr::as_expr_t<Es>...>{f, {expr::as_expr(es)...}};
}

/// `where(p, e)`: e where p is non-zero, zero elsewhere.
template <expr::operand P, expr::operand E> constexpr auto where(const P& p, const E& e) {
  return expr::where<expr::as_expr_t<P>, expr::as_expr_t<E>>{expr::as_expr(p), expr::as_expr(e)};
}

/// `expand(i, e)`: e broadcast along index i.
template <index_variable I, expr::operand E> constexpr auto expand(I, const E& e) {
  return expr::expand<I, expr::as_expr_t<E>>{expr::as_expr(e)};
}

}  // namespace loom

#endif  // LOOM_EXPR_OPERATORS_HPP
