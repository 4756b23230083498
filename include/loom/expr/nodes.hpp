// Defines the expression nodes of index notation: access, literal, add, mul, sum, map, where,
// expand, aggregate (expr/). Nodes only hold operands; their meaning lives in stream/ and plan/.
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

#endif  // LOOM_EXPR_NODES_HPP
