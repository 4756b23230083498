// Defines loom::expr::for_each_access and for_each_node: runtime walks over an expression (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_VISIT_HPP
#define LOOM_EXPR_VISIT_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <tuple>
#include <utility>

namespace loom::expr {

/// Calls `f(node)` for every node of `e`, parents before children, left to right.
template <class E, class F>
constexpr void for_each_node(const E& e, F&& f) {
  f(e);
  if constexpr (requires { e.lhs; e.rhs; }) {
    for_each_node(e.lhs, f);
    for_each_node(e.rhs, f);
  } else if constexpr (requires { e.pred; e.body; }) {
    for_each_node(e.pred, f);
    for_each_node(e.body, f);
  } else if constexpr (requires { e.body; }) {
    for_each_node(e.body, f);
  } else if constexpr (requires { e.args; }) {
    std::apply([&](const auto&... a) { (for_each_node(a, f), ...); }, e.args);
  }
}

template <class X>
struct is_access : std::false_type {};
template <class T, class... Is>
struct is_access<access<T, Is...>> : std::true_type {};

/// Calls `f(access, std::integral_constant<size_t, ordinal>)` for every access of `e`, in
/// `accesses_t<E>` order.
template <class E, class F>
constexpr void for_each_access(const E& e, F&& f) {
  std::size_t ordinal = 0;
  for_each_node(e, [&](const auto& node) {
    if constexpr (is_access<std::remove_cvref_t<decltype(node)>>::value) f(node, ordinal++);
  });
}

}  // namespace loom::expr

#endif  // LOOM_EXPR_VISIT_HPP
