// Defines loom::la::eval_naive: every operation materialised into its own tensor, one loom kernel
// each, no rewriting across operations (the baseline the SPORES rewrites are measured against)
// (la/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_NAIVE_HPP
#define LOOM_LA_NAIVE_HPP

#include <loom/exec/evaluate.hpp>
#include <loom/expr/operators.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/la/nodes.hpp>
#include <loom/la/translate.hpp>

#include <memory>
#include <type_traits>

namespace loom::la {

namespace detail::naive {

inline constexpr loom::index<"i"> i{};
inline constexpr loom::index<"j"> j{};
inline constexpr loom::index<"k"> k{};

template <class V> using dmat = tensor<V, dense_matrix>;
template <class V> using dvec = tensor<V, dense_vector>;

// A materialised operand: a tensor (shared, or the caller's) or a scalar.
template <class T> std::shared_ptr<const T> borrow(const T* t) {
  return std::shared_ptr<const T>(t, [](const T*) {});
}

// where(c, a) run as an element-wise operation of the naive evaluator
struct select_op {};

// Static members of one struct, so that every overload sees the others.
struct ops {
  template <class T> static auto run(const matrix<T>& m) { return borrow(m.tensor); }
  template <class V> static V run(const scalar<V>& s) { return s.value; }
  template <class A, class B> static auto run(const product<A, B>& p) {
    using V = typename product<A, B>::value_type;
    auto a = run(p.a);
    auto b = run(p.b);
    if constexpr (B::rank == 2) {
      auto c = std::make_shared<dmat<V>>(typename dmat<V>::shape_type{a->extent(0), b->extent(1)});
      (*c)(i, j) = loom::sum(k, (*a)(i, k) * (*b)(k, j));
      return std::shared_ptr<const dmat<V>>(c);
    } else {
      auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
      (*c)(i) = loom::sum(k, (*a)(i, k) * (*b)(k));
      return std::shared_ptr<const dvec<V>>(c);
    }
  }
  template <class A> static auto run(const transposed<A>& t) {
    using V = typename A::value_type;
    auto a = run(t.a);
    auto c = std::make_shared<dmat<V>>(typename dmat<V>::shape_type{a->extent(1), a->extent(0)});
    (*c)(j, i) = (*a)(i, j);
    return std::shared_ptr<const dmat<V>>(c);
  }
  template <class Op, class X, class Y> static auto combine(const X& x, const Y& y) {
    if constexpr (std::is_same_v<Op, plus>)
      return x + y;
    else if constexpr (std::is_same_v<Op, minus>)
      return x - y;
    else if constexpr (std::is_same_v<Op, times>)
      return x * y;
    else if constexpr (std::is_same_v<Op, divides>)
      return loom::map(divides_fn{}, x, y);
    else if constexpr (std::is_same_v<Op, select_op>)
      return loom::where(x, y);
    else
      return loom::map(Op{}, x, y);
  }
  template <class Op, class A, class B> static auto run(const elementwise<Op, A, B>& e) {
    using V = typename elementwise<Op, A, B>::value_type;
    auto a = run(e.a);
    auto b = run(e.b);
    constexpr std::size_t r = elementwise<Op, A, B>::rank;
    if constexpr (r == 0) {
      if constexpr (std::is_same_v<Op, plus>)
        return static_cast<V>(a + b);
      else if constexpr (std::is_same_v<Op, minus>)
        return static_cast<V>(a - b);
      else if constexpr (std::is_same_v<Op, times>)
        return static_cast<V>(a * b);
      else if constexpr (std::is_same_v<Op, divides>)
        return static_cast<V>(a / b);
      else if constexpr (std::is_same_v<Op, select_op>)
        return a != 0 ? static_cast<V>(b) : V{};
      else
        return static_cast<V>(Op{}(static_cast<V>(a), static_cast<V>(b)));
    } else {
      auto at = [&](const auto& x, auto... is) {  // an operand under the result's indices
        using X = std::remove_cvref_t<decltype(x)>;
        if constexpr (std::is_arithmetic_v<X>)
          return x;
        else if constexpr (std::remove_cvref_t<decltype(*x)>::order == 1)
          return (*x)(std::get<0>(std::tuple{is...}));
        else
          return (*x)(is...);
      };
      if constexpr (r == 2) {
        const auto& big = [&]() -> const auto& {
          if constexpr (A::rank == 2)
            return a;
          else
            return b;
        }();
        auto c =
            std::make_shared<dmat<V>>(typename dmat<V>::shape_type{big->extent(0), big->extent(1)});
        (*c)(i, j) = combine<Op>(at(a, i, j), at(b, i, j));
        return std::shared_ptr<const dmat<V>>(c);
      } else {
        const auto& big = [&]() -> const auto& {
          if constexpr (A::rank == 1)
            return a;
          else
            return b;
        }();
        auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{big->extent(0)});
        (*c)(i) = combine<Op>(at(a, i), at(b, i));
        return std::shared_ptr<const dvec<V>>(c);
      }
    }
  }
  template <class C, class A> static auto run(const selected<C, A>& s) {
    return run(elementwise<select_op, C, A>{s.c, s.a});
  }
  template <class F, class A> static auto run(const apply<F, A>& e) {
    using V = typename A::value_type;
    auto a = run(e.a);
    if constexpr (A::rank == 0) {
      return static_cast<V>(e.f(static_cast<V>(a)));
    } else if constexpr (A::rank == 1) {
      auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
      (*c)(i) = loom::map(e.f, (*a)(i));
      return std::shared_ptr<const dvec<V>>(c);
    } else {
      auto c = std::make_shared<dmat<V>>(typename dmat<V>::shape_type{a->extent(0), a->extent(1)});
      (*c)(i, j) = loom::map(e.f, (*a)(i, j));
      return std::shared_ptr<const dmat<V>>(c);
    }
  }
  template <class A> static auto run(const total<A>& t) {
    auto a = run(t.a);
    if constexpr (A::rank == 0)
      return a;
    else if constexpr (A::rank == 1)
      return loom::eval(loom::sum(i, (*a)(i)));
    else
      return loom::eval(loom::sum(i, j, (*a)(i, j)));
  }
  template <class A> static auto run(const row_sums_of<A>& r) {
    using V = typename A::value_type;
    auto a = run(r.a);
    if constexpr (A::rank == 1) {
      return a;
    } else {
      auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
      (*c)(i) = loom::sum(j, (*a)(i, j));
      return std::shared_ptr<const dvec<V>>(c);
    }
  }
  template <class A> static auto run(const col_sums_of<A>& r) {
    using V = typename A::value_type;
    auto a = run(r.a);
    auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(1)});
    (*c)(j) = loom::sum(i, (*a)(i, j));
    return std::shared_ptr<const dvec<V>>(c);
  }
  template <class A> static auto run(const trace_of<A>& t) {
    using V = typename A::value_type;
    auto a = run(t.a);
    V s = semiring_traits<V>::zero();
    a->for_each_stored([&](const auto& c, const auto& v) {
      if (c[0] == c[1]) s = s + static_cast<V>(v);
    });
    return s;
  }
  template <class A> static auto run(const diag_of<A>& d) {
    using V = typename A::value_type;
    auto a = run(d.a);
    auto c = std::make_shared<dvec<V>>(typename dvec<V>::shape_type{a->extent(0)});
    a->for_each_stored([&](const auto& x, const auto& v) {
      if (x[0] == x[1]) c->values()[static_cast<std::size_t>(x[0])] = static_cast<V>(v);
    });
    return std::shared_ptr<const dvec<V>>(c);
  }

};  // struct ops

}  // namespace detail::naive

/// `e` evaluated one operation at a time, each result materialised (dense for every operation
/// but the stored operands): the plan without rewrites. Same result types as `eval`.
template <expression E> auto eval_naive(const E& e) {
  auto r = detail::naive::ops::run(e);
  if constexpr (E::rank == 0) {
    return r;
  } else {
    using V = typename E::value_type;
    using out_t =
        std::conditional_t<E::rank == 1, tensor<V, dense_vector>, tensor<V, dense_matrix>>;
    out_t out(r->shape());
    if constexpr (E::rank == 1)
      out(detail::naive::i) = (*r)(detail::naive::i);
    else
      out(detail::naive::i, detail::naive::j) = (*r)(detail::naive::i, detail::naive::j);
    return out;
  }
}

}  // namespace loom::la

#endif  // LOOM_LA_NAIVE_HPP
