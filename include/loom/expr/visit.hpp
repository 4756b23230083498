// Defines loom::expr::for_each_access and for_each_node: runtime walks over an expression (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_VISIT_HPP
#define LOOM_EXPR_VISIT_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace loom::expr {

template <class E, class F> constexpr void for_each_node(const E& e, F&& f);

namespace detail {
// A map's arguments, left to right: a fold over their positions, not a lambda handed to an
// apply for each map type (compile time: 1 235 such pairs in one test, docs/build-cost.md).
template <class Args, class F, std::size_t... K>
constexpr void for_each_node_of_args(const Args& args, F& f, std::index_sequence<K...>) {
  (for_each_node(std::get<K>(args), f), ...);
}
}  // namespace detail

/// Calls `f(node)` for every node of `e`, parents before children, left to right.
template <class E, class F> constexpr void for_each_node(const E& e, F&& f) {
  f(e);
  if constexpr (requires {
                  e.lhs;
                  e.rhs;
                }) {
    for_each_node(e.lhs, f);
    for_each_node(e.rhs, f);
  } else if constexpr (requires {
                         e.pred;
                         e.body;
                       }) {
    for_each_node(e.pred, f);
    for_each_node(e.body, f);
  } else if constexpr (requires { e.body; }) {
    for_each_node(e.body, f);
  } else if constexpr (requires { e.args; }) {
    detail::for_each_node_of_args(e.args, f,
                                  std::make_index_sequence<std::tuple_size_v<decltype(e.args)>>{});
  }
}

template <class X> struct is_access : std::false_type {};
template <class T, class... Is> struct is_access<access<T, Is...>> : std::true_type {};

namespace detail {
// Walks to the accesses only: one function per node type and `f`, none for a wrapper around `f`
// (every kernel calls for_each_access several times: compile time).
template <class E, class F>
constexpr void for_each_access_from(const E& e, F& f, std::size_t& ordinal);
template <class Args, class F, std::size_t... K>
constexpr void for_each_access_of_args(const Args& args, F& f, std::size_t& ordinal,
                                       std::index_sequence<K...>) {
  (for_each_access_from(std::get<K>(args), f, ordinal), ...);
}
template <class E, class F>
constexpr void for_each_access_from(const E& e, F& f, std::size_t& ordinal) {
  if constexpr (is_access<E>::value) {
    f(e, ordinal++);
  } else if constexpr (requires {
                         e.lhs;
                         e.rhs;
                       }) {
    for_each_access_from(e.lhs, f, ordinal);
    for_each_access_from(e.rhs, f, ordinal);
  } else if constexpr (requires {
                         e.pred;
                         e.body;
                       }) {
    for_each_access_from(e.pred, f, ordinal);
    for_each_access_from(e.body, f, ordinal);
  } else if constexpr (requires { e.body; }) {
    for_each_access_from(e.body, f, ordinal);
  } else if constexpr (requires { e.args; }) {
    for_each_access_of_args(e.args, f, ordinal,
                            std::make_index_sequence<std::tuple_size_v<decltype(e.args)>>{});
  } else {
    (void)e, (void)f, (void)ordinal;  // a literal or another leaf
  }
}
}  // namespace detail

/// Calls `f(access, ordinal)` for every access of `e`, in `accesses_t<E>` order (the order of
/// for_each_node: left to right).
template <class E, class F> constexpr void for_each_access(const E& e, F&& f) {
  std::size_t ordinal = 0;
  detail::for_each_access_from(e, f, ordinal);
}

/// The extent of index I where `e` first reads it (the mode of the first access that uses I), or
/// -1 when no access does.
template <class I, class E> std::int64_t extent_read(const E& e) {
  std::int64_t x = -1;
  for_each_access(e, [&]<class T, class... Is>(const access<T, Is...>& a, std::size_t) {
    std::size_t m = 0;
    (..., [&] {
      if (x < 0 && std::is_same_v<Is, I>) x = a.tensor->extent(m);
      ++m;
    }());
  });
  return x;
}

}  // namespace loom::expr

#endif  // LOOM_EXPR_VISIT_HPP
