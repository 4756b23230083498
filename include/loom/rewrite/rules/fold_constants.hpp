// Defines loom::rules::fold_constants: operations on literals computed once, at rewrite time
// (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_FOLD_CONSTANTS_HPP
#define LOOM_REWRITE_RULES_FOLD_CONSTANTS_HPP

#include <loom/core/semiring.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <string_view>
#include <tuple>

namespace loom::rules {

// fold_constants:  a * b ==> (a×b),   a + b ==> (a+b),   f(a) ==> (f(a)),   f(a, b) ==> (f(a, b)),
//                  a * (b * x) ==> (a×b) * x            for literals a, b (in the semiring)
struct fold_constants {
  static constexpr std::string_view name = "fold_constants";
  template <class A, class B,
            class V = expr::value_type_t<expr::mul<expr::literal<A>, expr::literal<B>>>>
  static constexpr auto apply(const expr::mul<expr::literal<A>, expr::literal<B>>& e)
      -> expr::literal<V> {
    return {semiring_traits<V>::mul(static_cast<V>(e.lhs.value), static_cast<V>(e.rhs.value))};
  }
  template <class A, class B,
            class V = expr::value_type_t<expr::add<expr::literal<A>, expr::literal<B>>>>
  static constexpr auto apply(const expr::add<expr::literal<A>, expr::literal<B>>& e)
      -> expr::literal<V> {
    return {semiring_traits<V>::add(static_cast<V>(e.lhs.value), static_cast<V>(e.rhs.value))};
  }
  template <class A, class B, class X,
            class V = expr::value_type_t<expr::mul<expr::literal<A>, expr::literal<B>>>>
  static constexpr auto apply(const expr::mul<expr::literal<A>, expr::mul<expr::literal<B>, X>>& e)
      -> expr::mul<expr::literal<V>, X> {
    return {{semiring_traits<V>::mul(static_cast<V>(e.lhs.value), static_cast<V>(e.rhs.lhs.value))},
            e.rhs.rhs};
  }
  template <class F, class T>
    requires requires(const F& f, T v) {
      { f(v) } -> std::convertible_to<T>;
    }
  static constexpr auto apply(const expr::map<F, expr::literal<T>>& e) -> expr::literal<T> {
    return {static_cast<T>(e.f(std::get<0>(e.args).value))};
  }
  template <class F, class A, class B,
            class V = expr::value_type_t<expr::mul<expr::literal<A>, expr::literal<B>>>>
    requires requires(const F& f, V v) {
      { f(v, v) } -> std::convertible_to<V>;
    }
  static constexpr auto apply(const expr::map<F, expr::literal<A>, expr::literal<B>>& e)
      -> expr::literal<V> {
    return {static_cast<V>(
        e.f(static_cast<V>(std::get<0>(e.args).value), static_cast<V>(std::get<1>(e.args).value)))};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_FOLD_CONSTANTS_HPP
