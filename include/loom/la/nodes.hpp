// Defines the linear-algebra expression nodes of loom::la and the functions that build them
// (la/). Nodes hold operands by value and tensors by pointer; rank 0 is a scalar, 1 a column
// vector, 2 a matrix.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_NODES_HPP
#define LOOM_LA_NODES_HPP

#include <loom/core/semiring.hpp>
#include <loom/expr/functions.hpp>

#include <cstddef>
#include <type_traits>

namespace loom::la {

// matrix<T>: a loom tensor of order 1 or 2 (any format), by pointer.
template <class Tensor> struct matrix {
  static constexpr std::size_t rank = Tensor::order;
  using value_type = typename Tensor::value_type;
  const Tensor* tensor;
};
// scalar<V>: a constant.
template <class V> struct scalar {
  static constexpr std::size_t rank = 0;
  using value_type = V;
  V value;
};
// product<A, B>: the matrix product A B (matrix × matrix or matrix × vector).
template <class A, class B> struct product {
  static constexpr std::size_t rank = A::rank + B::rank - 2;
  using value_type = typename A::value_type;
  A a;
  B b;
};
// transposed<A>: Aᵀ.
template <class A> struct transposed {
  static constexpr std::size_t rank = 2;
  using value_type = typename A::value_type;
  A a;
};
// Element-wise operations; a rank-0 operand is broadcast, a vector is broadcast along columns.
// `Op` is one of these tags or a binary function object of loom::fn (maximum, less, ...).
struct plus {};
struct minus {};
struct times {};
struct divides {};
template <class Op, class A, class B> struct elementwise {
  static constexpr std::size_t rank = A::rank > B::rank ? A::rank : B::rank;
  using value_type = typename std::conditional_t<(A::rank >= B::rank), A, B>::value_type;
  A a;
  B b;
};
// apply<F, A>: the function object F (loom::fn::exp, log, sigmoid, abs) on every entry of A.
template <class F, class A> struct apply {
  static constexpr std::size_t rank = A::rank;
  using value_type = typename A::value_type;
  F f;
  A a;
};
// selected<C, A>: A where C is non-zero, zero elsewhere (broadcast as an element-wise operation).
template <class C, class A> struct selected {
  static constexpr std::size_t rank = C::rank > A::rank ? C::rank : A::rank;
  using value_type = typename std::conditional_t<(A::rank >= C::rank), A, C>::value_type;
  C c;
  A a;
};
// Reductions: sum of all entries, per row, per column; trace; the diagonal as a vector.
template <class A> struct total {
  static constexpr std::size_t rank = 0;
  using value_type = typename A::value_type;
  A a;
};
template <class A> struct row_sums_of {
  static constexpr std::size_t rank = 1;
  using value_type = typename A::value_type;
  A a;
};
template <class A> struct col_sums_of {
  static constexpr std::size_t rank = 1;
  using value_type = typename A::value_type;
  A a;
};
template <class A> struct trace_of {
  static constexpr std::size_t rank = 0;
  using value_type = typename A::value_type;
  A a;
};
template <class A> struct diag_of {
  static constexpr std::size_t rank = 1;
  using value_type = typename A::value_type;
  A a;
};

namespace detail {
template <class T> struct is_node : std::false_type {};
template <class T> struct is_node<matrix<T>> : std::true_type {};
template <class V> struct is_node<scalar<V>> : std::true_type {};
template <class A, class B> struct is_node<product<A, B>> : std::true_type {};
template <class A> struct is_node<transposed<A>> : std::true_type {};
template <class Op, class A, class B> struct is_node<elementwise<Op, A, B>> : std::true_type {};
template <class F, class A> struct is_node<apply<F, A>> : std::true_type {};
template <class C, class A> struct is_node<selected<C, A>> : std::true_type {};
template <class A> struct is_node<total<A>> : std::true_type {};
template <class A> struct is_node<row_sums_of<A>> : std::true_type {};
template <class A> struct is_node<col_sums_of<A>> : std::true_type {};
template <class A> struct is_node<trace_of<A>> : std::true_type {};
template <class A> struct is_node<diag_of<A>> : std::true_type {};
}  // namespace detail

/// Satisfied by loom::la expression types.
template <class E>
concept expression = detail::is_node<std::remove_cvref_t<E>>::value;

/// A number usable as an la operand (wrapped into `scalar`).
template <class T>
concept number = std::is_arithmetic_v<std::remove_cvref_t<T>>;

/// Wraps a loom tensor of order 1 or 2 as an la operand: `auto X = la::mat(x_tensor);`.
template <class Tensor>
  requires(Tensor::order == 1 || Tensor::order == 2)
constexpr matrix<Tensor> mat(const Tensor& t) {
  return {&t};
}

namespace detail {
template <class T> constexpr auto wrap(const T& x) {
  if constexpr (expression<T>)
    return x;
  else
    return scalar<double>{static_cast<double>(x)};
}
template <class T> using wrap_t = decltype(wrap(std::declval<const T&>()));
template <class A, class B>
concept operands =
    (expression<A> || number<A>)&&(expression<B> || number<B>)&&(expression<A> || expression<B>);
}  // namespace detail

/// A * B: the matrix product when both are matrices/vectors, scaling when one is a number or a
/// rank-0 expression.
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator*(const A& a, const B& b) {
  using L = detail::wrap_t<A>;
  using R = detail::wrap_t<B>;
  if constexpr (L::rank == 0 || R::rank == 0) {
    return elementwise<times, L, R>{detail::wrap(a), detail::wrap(b)};
  } else {
    static_assert(L::rank == 2, "loom::la: A * B needs a matrix on the left (vectors are columns)");
    return product<L, R>{detail::wrap(a), detail::wrap(b)};
  }
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator+(const A& a, const B& b) {
  return elementwise<plus, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a), detail::wrap(b)};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator-(const A& a, const B& b) {
  return elementwise<minus, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a), detail::wrap(b)};
}
template <expression A> constexpr auto operator-(const A& a) {
  return elementwise<times, scalar<double>, A>{{-1.0}, a};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator/(const A& a, const B& b) {
  return elementwise<divides, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                    detail::wrap(b)};
}

/// The element-wise (Hadamard) product A ∘ B.
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto hadamard(const A& a, const B& b) {
  return elementwise<times, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a), detail::wrap(b)};
}
/// e^A, ln A, 1 / (1 + e^-A) and |A|, entry by entry. exp, log and sigmoid make a dense result
/// (f(0) is not 0); abs keeps A's sparsity.
template <expression A> constexpr auto exp(const A& a) { return apply<fn::exp, A>{{}, a}; }
template <expression A> constexpr auto log(const A& a) { return apply<fn::log, A>{{}, a}; }
template <expression A> constexpr auto sigmoid(const A& a) { return apply<fn::sigmoid, A>{{}, a}; }
template <expression A> constexpr auto abs(const A& a) { return apply<fn::abs, A>{{}, a}; }

/// The larger and the smaller of A and B, entry by entry (a number is broadcast): stored where
/// either operand is, or everywhere when a constant c makes max(0, c) non-zero (decided at run
/// time).
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto max(const A& a, const B& b) {
  return elementwise<fn::maximum, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                        detail::wrap(b)};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto min(const A& a, const B& b) {
  return elementwise<fn::minimum, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                        detail::wrap(b)};
}

/// Comparisons, entry by entry: 1 where true, 0 elsewhere (dense: 0 < 0 is false but 0 <= 0 is
/// true, so the evaluator decides from f(0, 0)).
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator<(const A& a, const B& b) {
  return elementwise<fn::less, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                     detail::wrap(b)};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator>(const A& a, const B& b) {
  return elementwise<fn::greater, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                        detail::wrap(b)};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator<=(const A& a, const B& b) {
  return elementwise<fn::less_equal, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                           detail::wrap(b)};
}
template <class A, class B>
  requires detail::operands<A, B>
constexpr auto operator>=(const A& a, const B& b) {
  return elementwise<fn::greater_equal, detail::wrap_t<A>, detail::wrap_t<B>>{detail::wrap(a),
                                                                              detail::wrap(b)};
}

/// A where C is non-zero, zero elsewhere: `where(X * w > 0, X * w)`. Stored only where C is.
template <class C, class A>
  requires detail::operands<C, A>
constexpr auto where(const C& c, const A& a) {
  return selected<detail::wrap_t<C>, detail::wrap_t<A>>{detail::wrap(c), detail::wrap(a)};
}

/// A ∘ A.
template <expression A> constexpr auto pow2(const A& a) { return elementwise<times, A, A>{a, a}; }
/// Aᵀ (a matrix).
template <expression A> constexpr auto transpose(const A& a) {
  static_assert(A::rank == 2, "loom::la::transpose: the operand must be a matrix");
  return transposed<A>{a};
}
/// The sum of all entries.
template <expression A> constexpr auto sum(const A& a) { return total<A>{a}; }
/// The vector of row sums (a vector is its own row sums).
template <expression A> constexpr auto row_sums(const A& a) { return row_sums_of<A>{a}; }
/// The vector of column sums of a matrix.
template <expression A> constexpr auto col_sums(const A& a) {
  static_assert(A::rank == 2, "loom::la::col_sums: the operand must be a matrix");
  return col_sums_of<A>{a};
}
/// The sum of the diagonal of a square matrix expression.
template <expression A> constexpr auto trace(const A& a) {
  static_assert(A::rank == 2, "loom::la::trace: the operand must be a matrix");
  return trace_of<A>{a};
}
/// The diagonal of a square matrix expression, as a vector.
template <expression A> constexpr auto diag(const A& a) {
  static_assert(A::rank == 2,
                "loom::la::diag: the operand must be a matrix (diag of a vector is not supported "
                "yet; multiply element-wise by an identity matrix instead)");
  return diag_of<A>{a};
}

}  // namespace loom::la

#endif  // LOOM_LA_NODES_HPP
