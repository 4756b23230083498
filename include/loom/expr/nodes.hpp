// Defines the expression nodes of index notation: access, literal, add, mul, sum, map, where,
// expand (expr/). Nodes only hold operands; their meaning lives in stream/ and plan/.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_NODES_HPP
#define LOOM_EXPR_NODES_HPP

#include <loom/core/index.hpp>
#include <loom/expr/access.hpp>

#include <tuple>

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

}  // namespace loom::expr

#endif  // LOOM_EXPR_NODES_HPP
