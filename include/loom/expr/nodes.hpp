// Defines the expression nodes of index notation: access, literal, add, mul, sum, map, where,
// expand, aggregate (expr/). Nodes only hold operands; their meaning lives in stream/ and plan/.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_NODES_HPP
#define LOOM_EXPR_NODES_HPP

#include <loom/core/index.hpp>
#include <loom/expr/access.hpp>

#include <cstddef>
#include <tuple>
#include <utility>

namespace loom::expr {

// literal<T>: a scalar constant, broadcast over every index.
template <class T> struct literal {
  T value;
};

// add<L, R>: pointwise sum (the semiring's +); union of supports.
template <class L, class R> struct add {
  L lhs;
  R rhs;
};

// mul<L, R>: pointwise product (the semiring's ×); intersection of supports.
template <class L, class R> struct mul {
  L lhs;
  R rhs;
};

// sum<I, E>: reduction of E over index I with the semiring's +.
template <class I, class E> struct sum {
  E body;
};

// map<F, Es...>: f applied pointwise; where f(0, ...) may differ from 0 the result is dense.
template <class F, class... Es> struct map {
  F f;
  std::tuple<Es...> args;
};

// where<P, E>: E where P is non-zero, zero elsewhere.
template <class P, class E> struct where {
  P pred;
  E body;
};

// expand<I, E>: E broadcast along index I (E does not use I).
template <class I, class E> struct expand {
  E body;
};

/// The operators of `aggregate`: the maximum and the minimum.
namespace agg {
struct max {
  static constexpr const char* name = "max";
  template <class T> static constexpr T pick(T a, T b) { return a < b ? b : a; }
};
struct min {
  static constexpr const char* name = "min";
  template <class T> static constexpr T pick(T a, T b) { return b < a ? b : a; }
};
}  // namespace agg

// aggregate<Op, I, E>: E reduced over index I by Op (max, min) rather than the semiring's +; an
// absent entry of E counts as zero. Computed before the kernel that reads it (exec/aggregate.hpp).
template <class Op, class I, class E> struct aggregate {
  E body;
};

}  // namespace loom::expr

namespace loom::diag {
/// Its name carries both numbers into the compiler's message when an access gives a tensor of
/// order `Order` another number of indices (a static_assert message cannot hold them in C++20).
template <int Order, int IndexCount> struct tensor_order_and_index_count {
  static constexpr bool agree = Order == IndexCount;
};
}  // namespace loom::diag

namespace loom::expr {

namespace detail {
template <class... Is> struct index_list {};
template <template <class, class> class Node, class E> constexpr E nest(index_list<>, E e) {
  return e;
}
// Node<I0, Node<I1, ... e>>
template <template <class, class> class Node, class I, class... Rest, class E>
constexpr auto nest(index_list<I, Rest...>, E e) {
  auto inner = nest<Node>(index_list<Rest...>{}, e);
  return Node<I, decltype(inner)>{inner};
}
// "~00", "~01", ...: index names no user writes, for the modes an access leaves out
template <std::size_t K> constexpr fixed_string<4> stand_in_name() {
  const char text[4] = {'~', static_cast<char>('0' + K / 10 % 10), static_cast<char>('0' + K % 10),
                        '\0'};
  return fixed_string<4>(text);
}
}  // namespace detail

/// `tensor(Is...)` for a tensor of order `Order`: the access when Is... gives one index per mode.
/// Otherwise a static_assert names both counts, and a stand-in with the free indices written (the
/// missing modes summed, the extra indices broadcast) takes the access's place, so that the
/// expression around it adds no second error.
template <std::size_t Order, class Tensor, class... Is> constexpr auto make_access(Tensor* t) {
  constexpr std::size_t given = sizeof...(Is);
  static_assert(
      diag::tensor_order_and_index_count<static_cast<int>(Order), static_cast<int>(given)>::agree,
      "loom: a tensor of order N takes N indices, one per mode (A(i, j) for a matrix); "
      "diag::tensor_order_and_index_count<N, given> names the tensor's order and this "
      "access's index count");
  if constexpr (given == Order) {
    return access<Tensor, Is...>{t};
  } else if constexpr (given < Order) {
    return [t]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return detail::nest<sum>(detail::index_list<index<detail::stand_in_name<Ks>()>...>{},
                               access<Tensor, Is..., index<detail::stand_in_name<Ks>()>...>{t});
    }(std::make_index_sequence<Order - given>{});
  } else {
    return [t]<std::size_t... Ks, std::size_t... Xs>(std::index_sequence<Ks...>,
                                                     std::index_sequence<Xs...>) {
      using all = std::tuple<Is...>;
      return detail::nest<expand>(detail::index_list<std::tuple_element_t<Order + Xs, all>...>{},
                                  access<Tensor, std::tuple_element_t<Ks, all>...>{t});
    }(std::make_index_sequence<Order>{}, std::make_index_sequence<given - Order>{});
  }
}

}  // namespace loom::expr

#endif  // LOOM_EXPR_NODES_HPP
