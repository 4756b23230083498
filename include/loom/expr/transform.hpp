// Defines loom::expr::replace_matching: an expression rebuilt with every node of a chosen kind
// replaced (the driver's temporaries for shared sums and aggregates) (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_TRANSFORM_HPP
#define LOOM_EXPR_TRANSFORM_HPP

#include <loom/core/unpack.hpp>
#include <loom/expr/nodes.hpp>

#include <tuple>
#include <type_traits>

namespace loom::expr {

/// `e` with every outermost node N for which `Match<N>::value` holds replaced by `f(node)`; the
/// other nodes are rebuilt around their replaced children. `f` returns an expression node.
template <template <class> class Match, class E, class F> auto replace_matching(const E& e, F&& f);

namespace detail {
template <template <class> class Match, class F> struct rebuilder {
  F* f;
  template <class E> auto go(const E& e) const { return replace_matching<Match>(e, *f); }
  template <class T, class... Is> auto operator()(const access<T, Is...>& a) const { return a; }
  template <class T> auto operator()(const literal<T>& l) const { return l; }
  template <class L, class R> auto operator()(const add<L, R>& e) const {
    auto l = go(e.lhs);
    auto r = go(e.rhs);
    return add<decltype(l), decltype(r)>{l, r};
  }
  template <class L, class R> auto operator()(const mul<L, R>& e) const {
    auto l = go(e.lhs);
    auto r = go(e.rhs);
    return mul<decltype(l), decltype(r)>{l, r};
  }
  template <class P, class E> auto operator()(const where<P, E>& e) const {
    auto p = go(e.pred);
    auto b = go(e.body);
    return where<decltype(p), decltype(b)>{p, b};
  }
  template <class I, class E> auto operator()(const expand<I, E>& e) const {
    auto b = go(e.body);
    return expand<I, decltype(b)>{b};
  }
  template <class I, class E> auto operator()(const sum<I, E>& e) const {
    auto b = go(e.body);
    return sum<I, decltype(b)>{b};
  }
  template <class Op, class I, class E> auto operator()(const aggregate<Op, I, E>& e) const {
    auto b = go(e.body);
    return aggregate<Op, I, decltype(b)>{b};
  }
  template <class Fn, class... Es> auto operator()(const map<Fn, Es...>& e) const {
    return loom::detail::unpack(
        [&](const auto&... a) {
          auto args = std::make_tuple(go(a)...);
          return loom::detail::unpack(
              [&](const auto&... b) {
                return map<Fn, std::remove_cvref_t<decltype(b)>...>{e.f, std::tuple(b...)};
              },
              args);
        },
        e.args);
  }
};
}  // namespace detail

template <template <class> class Match, class E, class F> auto replace_matching(const E& e, F&& f) {
  if constexpr (Match<E>::value)
    return f(e);
  else
    return detail::rebuilder<Match, std::remove_reference_t<F>>{&f}(e);
}

}  // namespace loom::expr

#endif  // LOOM_EXPR_TRANSFORM_HPP
