// Defines lowering: an expression and a loop order become a tree of indexed streams (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_LOWER_HPP
#define LOOM_STREAM_LOWER_HPP

#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/plan/checks.hpp>
#include <loom/stream/combinators.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/level_streams.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <tuple>
#include <type_traits>

namespace loom::stream {

// apply_sum<D>: Σ over the attribute at depth D, placed where that attribute is iterated.
template <std::size_t D> struct apply_sum {
  const kernel_context* ctx = nullptr;
  template <class X> LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (depth_of<X>() == D) {
      static_assert(!is_contracted<X>(), "loom internal error: index summed twice; please report");
      return contract_stream<X>{x, ctx};
    } else if constexpr (depth_of<X>() < D) {
      return deep_map_stream<X, apply_sum>{x, *this};
    } else {  // the index does not occur: Σ_k e = extent(k) · e
      return apply_linear<fn::scale_by>{fn::scale_by{ctx->extents[D]}}(x);
    }
  }
};

// place_expand<D>: broadcast along the attribute at depth D.
template <std::size_t D> struct place_expand {
  const kernel_context* ctx = nullptr;
  template <class X> LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (depth_of<X>() < D) {
      return deep_map_stream<X, place_expand>{x, *this};
    } else {
      static_assert(depth_of<X>() != D, "loom::expand: the expression already uses the index");
      return expand_stream<D, X>{x, 0, ctx->extents[D]};
    }
  }
};

// A scalar function with one operand fixed: f(x, c) or f(c, x).
template <class F, class C, bool ConstantFirst> struct bind_constant {
  static constexpr bool zero_preserving = false;
  F f;
  C c;
  template <class X> LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (ConstantFirst)
      return f(static_cast<X>(c), x);
    else
      return f(x, static_cast<X>(c));
  }
};

/// Lowers expressions under the loop order `Order`; `Bindings` is a tuple of the tensor
/// pointer of every access (in `accesses_t` order; a transposed copy where the plan says so).
/// With `DenseMaps`, maps whose f(0) may be non-zero are computed over their whole domain.
/// `Skips` (skip.hpp) is the skip policy of every loop's intersections.
/// The type a pointer points to, without const (the terms of a + chain).
template <class P> using pointee = std::remove_cv_t<std::remove_pointer_t<P>>;

template <class Order, class V, bool DenseMaps, class Bindings, class Skips = skip::per_loop<>>
struct lowerer {
  const kernel_context* ctx;
  const Bindings* bindings;

  template <class E>
  static constexpr std::size_t access_count = boost::mp11::mp_size<expr::accesses_t<E>>::value;
  template <class I> static constexpr std::size_t depth = boost::mp11::mp_find<Order, I>::value;

  // access
  template <std::size_t K, class T, class... Is>
  LOOM_FORCE_INLINE auto lower(const expr::access<T, Is...>&) const {
    const auto* t = std::get<K>(*bindings);
    using bound = std::remove_cvref_t<decltype(*t)>;
    using layout = access_layout<bound, Order, Is...>;
    if constexpr (bound::format_type::all_dense) {
      return make_strided<layout, 0>(t, 0);
    } else {
      static_assert(std::is_sorted(layout::depth_of_level.begin(), layout::depth_of_level.end()),
                    "loom internal error: an access is not concordant with the loop order; "
                    "please report");
      return make_level<layout, 0>(t, 0, 1);
    }
  }
  template <std::size_t K, class T> LOOM_FORCE_INLINE auto lower(const expr::literal<T>& e) const {
    return static_cast<V>(e.value);
  }
  // a + b + c + ...: the terms, left to right, as a balanced tree of unions. A union's step
  // inlines each child's step twice (next, and seek when not ready), so a chain d unions deep
  // compiles O(d²) code, a balanced tree O(d log d). Up to three terms the tree is the left fold;
  // beyond, a semiring's + is associative, and floating-point sums may round differently from
  // the left fold (as the partial sums of a reduction do).
  template <std::size_t K, class L, class R>
  LOOM_FORCE_INLINE auto lower(const expr::add<L, R>& e) const {
    const auto terms = add_terms(e);
    using term_types = boost::mp11::mp_transform<
        pointee,
        boost::mp11::mp_rename<std::remove_const_t<decltype(terms)>, boost::mp11::mp_list>>;
    return lower_terms<K, term_types, 0, std::tuple_size_v<decltype(terms)>>(terms);
  }
  template <class E> static LOOM_FORCE_INLINE auto add_terms(const E& e) {
    if constexpr (boost::mp11::mp_similar<E, expr::add<void, void>>::value)
      return std::tuple_cat(add_terms(e.lhs), add_terms(e.rhs));
    else
      return std::tuple<const E*>{&e};
  }
  // the first access ordinal of term `Term` of `Terms`, counted from the chain's own `K`
  template <class Terms, std::size_t Term> static constexpr std::size_t term_offset() {
    std::size_t n = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<Term>>(
        [&](auto t) { n += access_count<boost::mp11::mp_at_c<Terms, decltype(t)::value>>; });
    return n;
  }
  template <std::size_t K, class Terms, std::size_t Lo, std::size_t Hi, class Ptrs>
  LOOM_FORCE_INLINE auto lower_terms(const Ptrs& terms) const {
    if constexpr (Hi - Lo == 1) {
      return lower<K + term_offset<Terms, Lo>()>(*std::get<Lo>(terms));
    } else {
      constexpr std::size_t mid = Lo + (Hi - Lo + 1) / 2;  // 3 terms: (a + b) + c
      return make_union(add_op<V>{}, lower_terms<K, Terms, Lo, mid>(terms),
                        lower_terms<K, Terms, mid, Hi>(terms), ctx);
    }
  }
  template <std::size_t K, class L, class R>
  LOOM_FORCE_INLINE auto lower(const expr::mul<L, R>& e) const {
    return checked_mul(mul_op<V, Skips>{}, lower<K>(e.lhs), lower<K + access_count<L>>(e.rhs));
  }
  template <std::size_t K, class P, class E>
  LOOM_FORCE_INLINE auto lower(const expr::where<P, E>& e) const {
    return checked_mul(where_op<V>{}, lower<K>(e.pred), lower<K + access_count<P>>(e.body));
  }
  template <std::size_t K, class I, class E>
  LOOM_FORCE_INLINE auto lower(const expr::sum<I, E>& e) const {
    return apply_sum<depth<I>>{ctx}(lower<K>(e.body));
  }
  template <std::size_t K, class I, class E>
  LOOM_FORCE_INLINE auto lower(const expr::expand<I, E>& e) const {
    return place_expand<depth<I>>{ctx}(lower<K>(e.body));
  }
  template <std::size_t K, class F, class E>
  LOOM_FORCE_INLINE auto lower(const expr::map<F, E>& e) const {
    auto x = lower<K>(std::get<0>(e.args));
    if constexpr (fn::is_linear_v<F>) {
      return apply_linear<F>{e.f}(x);
    } else {
      return apply_nonlinear<F>{e.f}(densify<F, E>(x));
    }
  }
  template <std::size_t K, class F, class A, class B>
  LOOM_FORCE_INLINE auto lower(const expr::map<F, A, B>& e) const {
    constexpr bool a_constant = boost::mp11::mp_empty<expr::free_indices_t<A>>::value;
    constexpr bool b_constant = boost::mp11::mp_empty<expr::free_indices_t<B>>::value;
    auto a = lower<K>(std::get<0>(e.args));
    auto b = lower<K + access_count<A>>(std::get<1>(e.args));
    if constexpr (b_constant) {
      using g = bind_constant<F, V, false>;
      return apply_nonlinear<g>{g{e.f, static_cast<V>(reduce_checked(b))}}(densify<g, A>(a));
    } else if constexpr (a_constant) {
      using g = bind_constant<F, V, true>;
      return apply_nonlinear<g>{g{e.f, static_cast<V>(reduce_checked(a))}}(densify<g, B>(b));
    } else {
      using op = binary_fn_op<V, F>;
      using whole = expr::map<F, A, B>;
      return make_union(op{e.f}, densify<F, whole>(a), b, ctx);
    }
  }

  template <std::size_t K, class E> LOOM_FORCE_INLINE auto lower_root(const E& e) const {
    return lower<K>(e);
  }

 private:
  // Two sums over the same index multiplied: materialised when both reduce to scalars, an
  // error naming the index otherwise (notes §4.10).
  template <class Op, class A, class B>
  LOOM_FORCE_INLINE auto checked_mul(const Op& op, const A& a, const B& b) const {
    constexpr bool same_sum =
        is_contracted<A>() && is_contracted<B>() && depth_of<A>() == depth_of<B>();
    constexpr bool liftable = !same_sum || (reducible<A>() && reducible<B>());
    if constexpr (!liftable) {
      static_assert(liftable,
                    "loom: a product of two sums over the same index cannot be lifted, because "
                    "their results still depend on a later index; rename the summation index in "
                    "one factor (e.g. sum(k2, ...)) or materialise one factor first");
      diag::product_of_sums_over_the_same_index_cannot_be_lifted<
          diag::name_of<boost::mp11::mp_at_c<Order, depth_of<A>()>>>{};
      return semiring_traits<V>::zero();
    } else {
      return make_mul(op, a, b, ctx);
    }
  }

  // x unioned with a zero over every free index of E, when f(0) may be non-zero
  template <class F, class E, class X> LOOM_FORCE_INLINE auto densify(const X& x) const {
    if constexpr (DenseMaps && !fn::is_zero_preserving_v<F>) {
      return make_union(add_op<V>{}, x, dense_zero<expr::free_indices_t<E>>(), ctx);
    } else {
      return x;
    }
  }
  template <class Indices> LOOM_FORCE_INLINE auto dense_zero() const {
    constexpr auto depths = [] {
      std::array<std::size_t, boost::mp11::mp_size<Indices>::value> d{};
      std::size_t q = 0;
      boost::mp11::mp_for_each<Indices>([&](auto idx) { d[q++] = depth<decltype(idx)>; });
      std::sort(d.begin(), d.end());
      return d;
    }();
    return expand_levels<depths, 0>();
  }
  template <auto Depths, std::size_t R> LOOM_FORCE_INLINE auto expand_levels() const {
    if constexpr (R == Depths.size()) {
      return semiring_traits<V>::zero();
    } else {
      auto inner = expand_levels<Depths, R + 1>();
      return expand_stream<Depths[R], decltype(inner)>{inner, 0, ctx->extents[Depths[R]]};
    }
  }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_LOWER_HPP
