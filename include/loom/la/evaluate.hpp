// Defines loom::la::eval (translate, rewrite to the sum-product normal form, evaluate term by
// term), loom::la::eval_naive (one materialised result per operation, the plan without
// rewrites) and loom::la::explain (la/). The normal form's terms are in terms.hpp, the dense
// variable elimination in eliminate.hpp.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_EVALUATE_HPP
#define LOOM_LA_EVALUATE_HPP

#include <loom/core/unpack.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/explain.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/sum_product.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/format/view.hpp>
#include <loom/la/eliminate.hpp>
#include <loom/la/nodes.hpp>
#include <loom/la/terms.hpp>
#include <loom/la/translate.hpp>
#include <loom/rewrite/engine.hpp>
#include <loom/rewrite/rule_sets.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <ios>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace loom::la {

/// The result of evaluating an la expression of rank R with value type V.
template <class V, std::size_t R>
using result_t = std::conditional_t<
    R == 0, V, std::conditional_t<R == 1, tensor<V, dense_vector>, tensor<V, dense_matrix>>>;

namespace detail {

using boost::mp11::mp_list;

// ---------------------------------------------------------------------------------------------
// Part 4: one term into the result (row-major over the result's free indices)
template <class V, class Free> struct accumulator {
  std::vector<V> values;  // row-major over Free
  std::vector<std::int64_t> shape;
  std::vector<std::string>* log = nullptr;

  // adds `sign` times the term's values, given over `term_free` (a subset of Free, in Free's
  // order), broadcast along the missing indices
  void add(const std::vector<V>& data, const std::vector<std::size_t>& present, V sign) {
    const std::size_t n = shape.size();
    std::int64_t points = 1;
    for (auto e : shape) points *= e;
    bool same_layout = present.size() == n;  // the term has every free index: no broadcast
    for (std::size_t k = 0; k < present.size() && same_layout; ++k) same_layout = present[k] == k;
    if (same_layout) {  // a straight loop (the odometer below costs ~10x per point)
      for (std::size_t p = 0; p < values.size(); ++p) values[p] = values[p] + sign * data[p];
      return;
    }
    std::vector<std::int64_t> c(n, 0);
    for (std::int64_t p = 0; p < points; ++p) {
      std::int64_t off = 0;
      for (std::size_t k : present) off = off * shape[k] + c[k];
      values[static_cast<std::size_t>(p)] =
          values[static_cast<std::size_t>(p)] + sign * data[static_cast<std::size_t>(off)];
      for (std::size_t d = n; d-- > 0;) {
        if (++c[d] < shape[d]) break;
        c[d] = 0;
      }
    }
  }
};

template <class Free, class TermFree> std::vector<std::size_t> positions() {
  std::vector<std::size_t> p;
  boost::mp11::mp_for_each<Free>([&](auto idx) {
    if constexpr (boost::mp11::mp_contains<TermFree, decltype(idx)>::value)
      p.push_back(boost::mp11::mp_find<Free, decltype(idx)>::value);
  });
  return p;
}

// A term with a sparse factor as one loom kernel into a dense tensor over its free indices.
template <class V, class Term, class... Is>
std::vector<V> fused_values(const Term& term, const extent_table& ext, mp_list<Is...>) {
  using fmt = std::conditional_t<sizeof...(Is) == 1, dense_vector, dense_matrix>;
  tensor<V, fmt> tmp(typename tensor<V, fmt>::shape_type{ext.of(Is::name)...});
  tmp(Is{}...) = term;
  return std::vector<V>(tmp.values().begin(), tmp.values().end());
}

// acc += sign * term, the term written through a dense view of the accumulated values
template <class V, class Free, class Term, class... Is>
void add_in_place(const Term& term, V sign, accumulator<V, Free>& acc, mp_list<Is...>) {
  auto run = [&](auto target) {
    if (sign == semiring_traits<V>::one())
      target += term;
    else
      target += expr::literal<V>{sign} * term;
  };
  const std::span<V> values(acc.values);
  if constexpr (sizeof...(Is) == 1) {
    auto v = dense_vector_view<V>(values);
    run(v(Is{}...));
  } else {
    auto v = dense_matrix_view<V>(acc.shape[0], acc.shape[1], values);
    run(v(Is{}...));
  }
}

template <class V, class Free, class Term>
void evaluate_term(const Term& term, V sign, const extent_table& ext, accumulator<V, Free>& acc) {
  using block = expr::sum_product<Term>;
  const auto& product = block::body_of(term);
  auto factors = expr::factors_of(product);
  using factors_t = decltype(factors);
  // the term's free indices, in the result's order
  using term_free = boost::mp11::mp_copy_if_q<
      Free, boost::mp11::mp_bind_front<boost::mp11::mp_contains, expr::free_indices_t<Term>>>;
  if constexpr (all_dense_factors<factors_t>::value) {
    // dense factors only: variable elimination, cheapest step first for these extents
    using universe =
        boost::mp11::mp_unique<boost::mp11::mp_append<Free, expr::all_indices_t<Term>>>;
    eliminator<V> el;
    boost::mp11::mp_for_each<universe>(
        [&](auto idx) { el.extent.push_back(ext.of(decltype(idx)::name)); });
    std::vector<dense_factor<V>> dense;
    V coefficient = sign;
    loom::detail::unpack(
        [&](const auto&... f) {
          (..., [&](const auto& x) {
            if constexpr (factor_kind<std::remove_cvref_t<decltype(x)>>::value == 1)
              coefficient = coefficient * static_cast<V>(x.value);
            else
              dense.push_back(load<V, universe>(x, el.extent));
          }(f));
        },
        factors);
    std::vector<std::size_t> summed, keep;
    boost::mp11::mp_for_each<typename block::summed>(
        [&](auto idx) { summed.push_back(boost::mp11::mp_find<universe, decltype(idx)>::value); });
    boost::mp11::mp_for_each<term_free>(
        [&](auto idx) { keep.push_back(boost::mp11::mp_find<universe, decltype(idx)>::value); });
    const dense_factor<V> r =
        el.run(std::move(dense), std::move(summed), keep, coefficient, acc.log);
    if (acc.log) acc.log->push_back("term " + loom::to_string(term) + ": variable elimination");
    acc.add(r.data, positions<Free, term_free>(), coefficient);
  } else {
    // a sparse factor: one fused loom kernel (the evaluator pushes sums in first)
    if (acc.log) acc.log->push_back("term " + loom::to_string(term) + ": fused kernel");
    constexpr std::size_t n = boost::mp11::mp_size<term_free>::value;
    if constexpr (n == 0) {
      acc.add({static_cast<V>(loom::eval(term))}, {}, sign);
    } else if constexpr (std::is_same_v<term_free, Free>) {
      // every free index: accumulated in place through a view of the result (no temporary, no
      // copy: each dense buffer of a large result costs its page faults)
      add_in_place(term, sign, acc, Free{});
    } else {
      acc.add(fused_values<V>(term, ext, term_free{}), positions<Free, term_free>(), sign);
    }
  }
}

template <std::size_t Rank>
using free_list =
    std::conditional_t<Rank == 0, mp_list<>,
                       std::conditional_t<Rank == 1, mp_list<row>, mp_list<row, col>>>;

template <class E> auto normal_form(const E& e) {
  return rewrite::rewrite<rewrite::sum_product_normal_form>(to_index_notation(e));
}

// ---------------------------------------------------------------------------------------------
// Part 5: non-linear nodes over sums, computed once. A function of a product or a reduction
// (exp(X W), A / row_sums(A)) is opaque to the rewrites, so in one fused kernel its inner sum
// would be recomputed for every entry of the factors around it; such a node is evaluated first
// into a dense tensor, once per distinct node (two copies of `scores` in
// X^T (scores / row_sums(scores) - Y) share one), and read as a stored operand.

template <class E> auto evaluate(const E& e, std::vector<std::string>* log);

template <class E> struct is_nonlinear : std::false_type {};
template <class F, class A> struct is_nonlinear<apply<F, A>> : std::true_type {};
template <class C, class A> struct is_nonlinear<selected<C, A>> : std::true_type {};
template <class Op, class A, class B>
struct is_nonlinear<elementwise<Op, A, B>>
    : std::bool_constant<!std::is_same_v<Op, plus> && !std::is_same_v<Op, minus> &&
                         !std::is_same_v<Op, times>> {};

// a product or a reduction: a node that sums in index notation (when has_sum says so)
template <class E> struct is_sum_node : std::false_type {};
template <class A, class B> struct is_sum_node<product<A, B>> : std::true_type {};
template <class A> struct is_sum_node<total<A>> : std::true_type {};
template <class A> struct is_sum_node<row_sums_of<A>> : std::true_type {};
template <class A> struct is_sum_node<col_sums_of<A>> : std::true_type {};
template <class A> struct is_sum_node<trace_of<A>> : std::true_type {};
template <class A> struct is_sum_node<diag_of<A>> : std::true_type {};

// whether E holds a product or a reduction (a sum in index notation)
template <class E> struct has_sum : std::false_type {};
template <class A, class B> struct has_sum<product<A, B>> : std::true_type {};
template <class A> struct has_sum<total<A>> : std::true_type {};
template <class A> struct has_sum<row_sums_of<A>> : std::bool_constant<(A::rank == 2)> {};
template <class A> struct has_sum<col_sums_of<A>> : std::true_type {};
template <class A> struct has_sum<trace_of<A>> : std::true_type {};
template <class A> struct has_sum<diag_of<A>> : has_sum<A> {};
template <class A> struct has_sum<transposed<A>> : has_sum<A> {};
template <class F, class A> struct has_sum<apply<F, A>> : has_sum<A> {};
template <class C, class A>
struct has_sum<selected<C, A>> : std::bool_constant<has_sum<C>::value || has_sum<A>::value> {};
template <class Op, class A, class B>
struct has_sum<elementwise<Op, A, B>> : std::bool_constant<has_sum<A>::value || has_sum<B>::value> {
};

// The run-time identity of a node: its type and its leaves (tensor addresses, constants).
struct node_key {
  static void leaves(std::string&) {}
  template <class T> static void leaves(std::string& k, const matrix<T>& m) {
    k += std::to_string(reinterpret_cast<std::uintptr_t>(m.tensor)) + ",";
  }
  template <class V> static void leaves(std::string& k, const scalar<V>& s) {
    std::ostringstream o;
    o.precision(17);
    o << s.value << ",";
    k += o.str();
  }
  template <class N> static void leaves(std::string& k, const N& n) {
    if constexpr (requires { n.c; }) leaves(k, n.c);
    if constexpr (requires { n.a; }) leaves(k, n.a);
    if constexpr (requires { n.b; }) leaves(k, n.b);
  }
  template <class N> static std::string of(const N& n) {
    std::string k = typeid(N).name();
    k += ":";
    leaves(k, n);
    return k;
  }
};

template <class V> struct materialised {
  std::deque<tensor<V, dense_matrix>> matrices;
  std::deque<tensor<V, dense_vector>> vectors;
  std::vector<std::pair<std::string, const void*>> seen;  // node key -> its tensor (or scalar)
  std::deque<V> scalars;
  std::vector<std::string>* log = nullptr;
};

// n with f applied to each child (a leaf has none): the one rebuild both passes below use
template <class T, class F> auto with_children(const matrix<T>& m, F&&) { return m; }
template <class S, class F> auto with_children(const scalar<S>& s, F&&) { return s; }
template <class A, class B, class F> auto with_children(const product<A, B>& p, F&& f) {
  auto a = f(p.a);
  auto b = f(p.b);
  return product<decltype(a), decltype(b)>{a, b};
}
template <template <class> class N, class A, class F>
auto with_children(const N<A>& n, F&& f) {  // transposed and the reductions
  auto a = f(n.a);
  return N<decltype(a)>{a};
}
template <class Op, class A, class B, class F>
auto with_children(const elementwise<Op, A, B>& e, F&& f) {
  auto a = f(e.a);
  auto b = f(e.b);
  return elementwise<Op, decltype(a), decltype(b)>{a, b};
}
template <class Fn, class A, class F> auto with_children(const apply<Fn, A>& e, F&& f) {
  auto a = f(e.a);
  return apply<Fn, decltype(a)>{e.f, a};
}
template <class C, class A, class F> auto with_children(const selected<C, A>& e, F&& f) {
  auto c = f(e.c);
  auto a = f(e.a);
  return selected<decltype(c), decltype(a)>{c, a};
}

template <class V> struct materialiser {
  materialised<V>& store;

  // bottom up: a non-linear node over a sum has its sums computed first (the fused kernel of a
  // function of a sum keeps the inner loop's cursors in memory, docs/la.md), then is
  // computed itself, once; other nodes are kept
  template <class N> auto run(const N& n) {
    auto m = with_children(n, [&](const auto& c) { return run(c); });
    using M = decltype(m);
    if constexpr (!is_nonlinear<M>::value || !has_sum<M>::value)
      return m;
    else
      return stored(sums_first(m));
  }

  // n with every product or reduction below it evaluated into a stored leaf
  template <class N> auto sums_first(const N& n) {
    if constexpr (is_sum_node<N>::value && has_sum<N>::value)
      return stored(n);
    else
      return with_children(n, [&](const auto& c) { return sums_first(c); });
  }

  // n evaluated into a dense tensor (or a scalar) kept in the store, once per distinct node
  template <class N> auto stored(const N& n) {
    using W = typename N::value_type;
    const std::string key = node_key::of(n);
    const void* found = nullptr;
    for (const auto& [k, t] : store.seen)
      if (k == key) found = t;
    if (store.log)
      store.log->push_back(std::string(found ? "reused: " : "computed once: ") +
                           loom::to_string(to_index_notation(n)));
    if constexpr (N::rank == 0) {
      if (!found) {
        store.scalars.push_back(static_cast<V>(evaluate(n, nullptr)));
        found = &store.scalars.back();
        store.seen.emplace_back(key, found);
      }
      return scalar<W>{static_cast<W>(*static_cast<const V*>(found))};
    } else {
      using T = std::conditional_t<N::rank == 1, tensor<V, dense_vector>, tensor<V, dense_matrix>>;
      if (!found) {
        auto& q = [&]() -> auto& {
          if constexpr (N::rank == 1)
            return store.vectors;
          else
            return store.matrices;
        }();
        q.push_back(evaluate(n, nullptr));
        found = &q.back();
        store.seen.emplace_back(key, found);
      }
      return matrix<T>{static_cast<const T*>(found)};
    }
  }
};

template <class E> auto evaluate(const E& e, std::vector<std::string>* log) {
  using V = typename E::value_type;
  using Free = free_list<E::rank>;
  const auto nf = normal_form(e);
  const extent_table ext = extents_of(to_index_notation(e));
  accumulator<V, Free> acc;
  acc.log = log;
  boost::mp11::mp_for_each<Free>(
      [&](auto idx) { acc.shape.push_back(ext.of(decltype(idx)::name)); });
  std::int64_t size = 1;
  for (auto s : acc.shape) size *= s;
  acc.values.assign(static_cast<std::size_t>(size), semiring_traits<V>::zero());
  if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(nf.expr)>, rewrite::zero>) {
    // terms equal up to bound names and factor order are computed once, with their count
    std::vector<std::string> sigs;
    std::vector<int> signs;
    for_each_term(nf.expr, [&](const auto& term, auto negative) {
      sigs.push_back(signature(term, sigs.size()));
      signs.push_back(decltype(negative)::value ? -1 : 1);
    });
    std::size_t t = 0;
    for_each_term(nf.expr, [&](const auto& term, auto) {
      const std::size_t me = t++;
      for (std::size_t q = 0; q < me; ++q)
        if (sigs[q] == sigs[me]) return;  // merged into term q
      int count = 0;
      for (std::size_t q = me; q < sigs.size(); ++q)
        if (sigs[q] == sigs[me]) count += signs[q];
      if (count == 0) return;  // the terms cancel
      if (log && count != 1) log->push_back("merged: coefficient " + std::to_string(count));
      evaluate_term<V, Free>(term, static_cast<V>(count), ext, acc);
    });
  }
  if constexpr (E::rank == 0) {
    return acc.values[0];
  } else {
    result_t<V, E::rank> out([&] {
      typename result_t<V, E::rank>::shape_type s{};
      for (std::size_t k = 0; k < s.size(); ++k) s[k] = acc.shape[k];
      return s;
    }());
    std::copy(acc.values.begin(), acc.values.end(), out.values().begin());
    return out;
  }
}

}  // namespace detail

/// The sum-product normal form of `e` (index notation) and the rules that produced it.
template <expression E> auto normal_form(const E& e) { return detail::normal_form(e); }

/// Evaluates `e`: translated to index notation, rewritten to the sum-product normal form, and
/// computed term by term (dense terms by variable elimination in the cheapest order for the
/// run-time extents, terms with a sparse factor by one fused kernel). A scalar for rank 0, else
/// a dense loom tensor. A non-linear function of a sum (exp(X W), A / row_sums(A)) is computed
/// once into a dense tensor first, each distinct one once.
template <expression E> auto eval(const E& e) {
  using V = typename E::value_type;
  detail::materialised<V> store;
  const auto m = detail::materialiser<V>{store}.run(e);
  return detail::evaluate(m, nullptr);
}

/// What `eval(e)` does, in words: the normal form, the rules applied, and each term's plan.
template <expression E> std::string explain(const E& e) {
  using V = typename E::value_type;
  std::vector<std::string> log;
  detail::materialised<V> store;
  store.log = &log;
  const auto m = detail::materialiser<V>{store}.run(e);
  const auto nf = detail::normal_form(m);
  (void)detail::evaluate(m, &log);
  std::ostringstream s;
  s << "index notation: " << loom::to_string(to_index_notation(e)) << "\n";
  s << "normal form: " << loom::to_string(nf.expr) << "\n";
  s << "rules fired: " << rewrite::fired_names<typename decltype(nf)::fired>() << "\n";
  for (const auto& l : log) s << "  " << l << "\n";
  return s.str();
}

}  // namespace loom::la

#endif  // LOOM_LA_EVALUATE_HPP
