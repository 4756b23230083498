// Defines the rewrite engine: loom::rewrite::rewrite<Rules>(e) applies a rule set bottom-up,
// pass after pass, to a fixpoint (bounded), and records the rules that fired (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_ENGINE_HPP
#define LOOM_REWRITE_ENGINE_HPP

#include <loom/core/config.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>
#include <loom/rewrite/rule.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

namespace loom::diag {
// Instantiated when a rule set does not reach a fixpoint: shows the expression it cycles on.
// Do not define.
template <class Expression> struct rewrite_rules_did_not_reach_a_fixpoint;
}  // namespace loom::diag

namespace loom::rewrite {

using boost::mp11::mp_list;

/// The most bottom-up passes the engine makes before it reports a cycle.
inline constexpr std::size_t max_passes = limits::rewrite_passes;

/// An expression and the rules that fired to produce it (an MP11 list, in firing order).
template <class E, class Fired> struct traced {
  E expr;
  using expression_type = E;
  using fired = Fired;
};

namespace detail {

template <class... Ts> using cat = boost::mp11::mp_append<mp_list<>, typename Ts::fired...>;

template <class Rules, class E> constexpr auto pass(const E& e);

// children(e): e with every operand rewritten by one pass
template <class Rules, class E>
constexpr auto children(const E& e) {  // leaves: access, literal, constants
  return traced<E, mp_list<>>{e};
}
template <class Rules, class L, class R> constexpr auto children(const expr::add<L, R>& e) {
  auto l = pass<Rules>(e.lhs);
  auto r = pass<Rules>(e.rhs);
  using N = expr::add<decltype(l.expr), decltype(r.expr)>;
  return traced<N, cat<decltype(l), decltype(r)>>{N{l.expr, r.expr}};
}
template <class Rules, class L, class R> constexpr auto children(const expr::mul<L, R>& e) {
  auto l = pass<Rules>(e.lhs);
  auto r = pass<Rules>(e.rhs);
  using N = expr::mul<decltype(l.expr), decltype(r.expr)>;
  return traced<N, cat<decltype(l), decltype(r)>>{N{l.expr, r.expr}};
}
template <class Rules, class P, class B> constexpr auto children(const expr::where<P, B>& e) {
  auto p = pass<Rules>(e.pred);
  auto b = pass<Rules>(e.body);
  using N = expr::where<decltype(p.expr), decltype(b.expr)>;
  return traced<N, cat<decltype(p), decltype(b)>>{N{p.expr, b.expr}};
}
template <class Rules, class I, class B> constexpr auto children(const expr::sum<I, B>& e) {
  auto b = pass<Rules>(e.body);
  using N = expr::sum<I, decltype(b.expr)>;
  return traced<N, cat<decltype(b)>>{N{b.expr}};
}
template <class Rules, class I, class B> constexpr auto children(const expr::expand<I, B>& e) {
  auto b = pass<Rules>(e.body);
  using N = expr::expand<I, decltype(b.expr)>;
  return traced<N, cat<decltype(b)>>{N{b.expr}};
}
template <class Rules, class F, class A> constexpr auto children(const expr::map<F, A>& e) {
  auto a = pass<Rules>(std::get<0>(e.args));
  using N = expr::map<F, decltype(a.expr)>;
  return traced<N, cat<decltype(a)>>{N{e.f, {a.expr}}};
}
template <class Rules, class F, class A, class B>
constexpr auto children(const expr::map<F, A, B>& e) {
  auto a = pass<Rules>(std::get<0>(e.args));
  auto b = pass<Rules>(std::get<1>(e.args));
  using N = expr::map<F, decltype(a.expr), decltype(b.expr)>;
  return traced<N, cat<decltype(a), decltype(b)>>{N{e.f, {a.expr, b.expr}}};
}

template <class E> struct applies {
  template <class R> using fn = boost::mp11::mp_bool<rule_applies_to<R, E>>;
};

// One pass at a node: its operands rewritten, then the first rule of the list (list order is
// priority) that matches the node, applied once. One function per node, not a second one for
// the node's own step (compile time).
template <class Rules, class E> constexpr auto pass(const E& e) {
  auto t = children<Rules>(e);
  using T = decltype(t);
  using N = typename T::expression_type;
  using k = boost::mp11::mp_find_if_q<Rules, applies<N>>;
  if constexpr (k::value == boost::mp11::mp_size<Rules>::value) {
    return t;
  } else {
    using R = boost::mp11::mp_at<Rules, k>;
    auto out = R::apply(t.expr);
    return traced<decltype(out), boost::mp11::mp_push_back<typename T::fired, R>>{out};
  }
}

template <class Rules, std::size_t Left, class E, class Fired>
constexpr auto fixpoint(const E& e, Fired) {
  // the pass's type says whether a rule fires: the last pass, which finds nothing, never runs,
  // so its functions (one per node) are never emitted (compile time: docs/build-cost.md)
  using step_fired = typename decltype(pass<Rules>(e))::fired;
  if constexpr (boost::mp11::mp_empty<step_fired>::value) {
    return traced<E, Fired>{e};
  } else if constexpr (Left == 0) {
    static_assert(Left != 0,
                  "loom::rewrite: the rule set did not reach a fixpoint within "
                  "loom::limits::rewrite_passes passes; two of its rules undo each other");
    diag::rewrite_rules_did_not_reach_a_fixpoint<E>{};
    return traced<E, Fired>{e};
  } else {
    const auto next = pass<Rules>(e);
    return fixpoint<Rules, Left - 1>(next.expr, boost::mp11::mp_append<Fired, step_fired>{});
  }
}

}  // namespace detail

/// `e` rewritten by `Rules` (an MP11 list of rules, first = highest priority) to a fixpoint:
/// each pass visits the tree bottom-up and applies the first matching rule at every node.
/// Returns a `traced` value: `.expr` is the result, `::fired` the rules in firing order.
template <class Rules, std::size_t MaxPasses = max_passes, class E>
constexpr auto rewrite(const E& e) {
  return detail::fixpoint<Rules, MaxPasses>(e, mp_list<>{});
}

/// The type `rewrite<Rules>` makes of an E.
template <class E, class Rules>
using rewrite_t = typename decltype(rewrite<Rules>(std::declval<const E&>()))::expression_type;

/// The rules that fired rewriting an E, in order (a rule fires once per match).
template <class E, class Rules>
using fired_t = typename decltype(rewrite<Rules>(std::declval<const E&>()))::fired;

/// The names of the rules in `Fired`, comma separated ("" when none fired).
template <class Fired> std::string fired_names() {
  std::string s;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, Fired>>(
      [&](auto r) { s += (s.empty() ? "" : ", ") + std::string(decltype(r)::type::name); });
  return s;
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_ENGINE_HPP
