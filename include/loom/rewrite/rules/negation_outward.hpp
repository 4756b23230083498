// Defines loom::rules::negation_outward: a negation moves out of products and sums and into
// additions, so every term of a sum of products carries its sign at its root (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_NEGATION_OUTWARD_HPP
#define LOOM_REWRITE_RULES_NEGATION_OUTWARD_HPP

#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>

#include <string_view>
#include <tuple>

namespace loom::rules {

namespace detail {
template <class X> using neg = expr::map<fn::negate, X>;
template <class X> constexpr neg<X> negate(const X& x) { return {fn::negate{}, std::tuple<X>{x}}; }
template <class X> constexpr const X& operand(const neg<X>& n) { return std::get<0>(n.args); }
}  // namespace detail

// negation_outward:  (-a) * b ==> -(a * b),   a * (-b) ==> -(a * b),   (-a) * (-b) ==> a * b,
//                    sum(i, -a) ==> -sum(i, a),   -(a + b) ==> (-a) + (-b)
struct negation_outward {
  static constexpr std::string_view name = "negation_outward";
  template <class A, class B>
  static constexpr auto apply(const expr::mul<detail::neg<A>, B>& e)
      -> detail::neg<expr::mul<A, B>> {
    return detail::negate(expr::mul<A, B>{detail::operand(e.lhs), e.rhs});
  }
  template <class A, class B>
  static constexpr auto apply(const expr::mul<A, detail::neg<B>>& e)
      -> detail::neg<expr::mul<A, B>> {
    return detail::negate(expr::mul<A, B>{e.lhs, detail::operand(e.rhs)});
  }
  template <class A, class B>
  static constexpr auto apply(const expr::mul<detail::neg<A>, detail::neg<B>>& e)
      -> expr::mul<A, B> {
    return {detail::operand(e.lhs), detail::operand(e.rhs)};
  }
  template <class I, class A>
  static constexpr auto apply(const expr::sum<I, detail::neg<A>>& e)
      -> detail::neg<expr::sum<I, A>> {
    return detail::negate(expr::sum<I, A>{detail::operand(e.body)});
  }
  template <class A, class B>
  static constexpr auto apply(const detail::neg<expr::add<A, B>>& e)
      -> expr::add<detail::neg<A>, detail::neg<B>> {
    return {detail::negate(detail::operand(e).lhs), detail::negate(detail::operand(e).rhs)};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_NEGATION_OUTWARD_HPP
