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
// Stores the address of each access of `e` from `at` on, returns the next slot. One function
// per node type whatever the caller does with the accesses: every kernel walks its expression
// a dozen times (extents, bindings, statistics, messages), and a walk per node and per callback
// multiplied its functions (compile time, docs/build-cost.md, "Walks per callback").
template <class E> const void** collect_accesses(const E& e, const void** at) {
  if constexpr (is_access<E>::value) {
    *at = &e;
    return at + 1;
  } else if constexpr (requires {
                         e.lhs;
                         e.rhs;
                       }) {
    return collect_accesses(e.rhs, collect_accesses(e.lhs, at));
  } else if constexpr (requires {
                         e.pred;
                         e.body;
                       }) {
    return collect_accesses(e.body, collect_accesses(e.pred, at));
  } else if constexpr (requires { e.body; }) {
    return collect_accesses(e.body, at);
  } else if constexpr (requires { e.args; }) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((at = collect_accesses(std::get<K>(e.args), at)), ...);
      return at;
    }(std::make_index_sequence<std::tuple_size_v<decltype(e.args)>>{});
  } else {
    (void)e;  // a literal or another leaf
    return at;
  }
}

template <class List, class F, std::size_t... K>
void call_with_accesses(const void* const* at, F& f, std::index_sequence<K...>) {
  (f(*static_cast<const boost::mp11::mp_at_c<List, K>*>(at[K]), K), ...);
}
}  // namespace detail

/// Calls `f(access, ordinal)` for every access of `e`, in `accesses_t<E>` order (the order of
/// for_each_node: left to right).
template <expression E, class F> void for_each_access(const E& e, F&& f) {
  using list = accesses_t<E>;
  constexpr std::size_t n = boost::mp11::mp_size<list>::value;
  if constexpr (n == 0) {
    (void)e, (void)f;
  } else {
    const void* at[n];
    detail::collect_accesses(e, at);
    detail::call_with_accesses<list>(at, f, std::make_index_sequence<n>{});
  }
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
