// Defines the stream combinators: contract, expand, once, map, and the value combinators that
// place them by depth (Etch's shape inference): make_mul, make_union (stream/). The scalar
// operations and reductions are in reduce.hpp, the intersections in intersections.hpp, the union
// in unions.hpp; this header includes them all.
// SPDX-License-Identifier: BSL-1.0
//
//  case table for make_mul(a, b) / make_union(a, b), by the depths of a and b:
//  | a vs b            | mul                                   | add                          |
//  |-------------------|---------------------------------------|------------------------------|
//  | same, both free   | b full: lookup(a, b); a full: lookup  | union (lexicographic)        |
//  |                   | (b, a); else b, then a, locatable     |                              |
//  |                   | (O(1) probe, absent = zero): lookup;  |                              |
//  |                   | else intersection (skip::adaptive:    |                              |
//  |                   | merge, leapfrog on skewed fibers)     |                              |
//  | same, contracted  | reduce both to scalars, then multiply | union (+ of two sums that    |
//  |                   |                                       | reduce here: reduced apart)  |
//  | a shallower       | scaled: a's values times b            | a free: union(a, expand(b))  |
//  |                   | (a contracted, op not linear in a:    | a contracted: union(a,       |
//  |                   | reduce a first)                       | once(b))                     |
//  | both scalars      | op(a, b)                              | op(a, b)                     |
#ifndef LOOM_STREAM_COMBINATORS_HPP
#define LOOM_STREAM_COMBINATORS_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/intersections.hpp>
#include <loom/stream/reduce.hpp>
#include <loom/stream/skip.hpp>
#include <loom/stream/unions.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom::stream {

// contract_stream<S>: Σ over S's attribute: the same states, index *, values summed by the
// consumer. Lawful but not strict: never an operand of an intersection.
template <class S> struct contract_stream {
  static constexpr std::size_t depth = S::depth;
  static constexpr bool contracted = true, strict = false, full = false, locatable = false;
  /// Σ over every index of a range: every state is ready (the partial sums of lane_sum)
  static constexpr bool dense_range = S::full && !reads_policy_v<S>;
  S s{};
  const kernel_context* ctx = nullptr;
  LOOM_FORCE_INLINE std::int64_t remaining() const { return remaining_of(s); }
  static constexpr bool drives = drives_itself_v<S>;
  template <class F> LOOM_FORCE_INLINE void for_each_ready(F&& f) const { s.for_each_ready(f); }

  LOOM_FORCE_INLINE bool valid() const { return s.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return s.index(); }
  LOOM_FORCE_INLINE bool ready() const { return s.ready(); }
  LOOM_FORCE_INLINE auto value() const { return s.value(); }
  // a skip to (*, r) is a skip to the stream's own (index, r)
  LOOM_FORCE_INLINE void seek(std::int64_t) { s.seek(s.index()); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t) { s.seek_past(s.index()); }
  LOOM_FORCE_INLINE void next() { s.next(); }

  // a sum over an intersection that reads its policy: compiled in by the loop that reduces it
  static constexpr bool reads_policy = reads_policy_v<S>;
  LOOM_FORCE_INLINE skip::code runtime_code() const { return s.runtime_code(); }
  template <class P> LOOM_FORCE_INLINE auto compiled() const {
    using C = decltype(s.template compiled<P>());
    return contract_stream<C>{s.template compiled<P>(), ctx};
  }
};

// expand_stream<Depth, X>: X repeated at every index of [0, n); full and locatable.
template <std::size_t Depth, class X> struct expand_stream {
  static constexpr std::size_t depth = Depth;
  static constexpr bool contracted = false, strict = true, full = true, locatable = true;
  X x{};
  std::int64_t i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE X value() const { return x; }  // a fresh copy: inner streams restart
  LOOM_FORCE_INLINE X locate(std::int64_t) const { return x; }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = std::max(i, j + 1); }
  LOOM_FORCE_INLINE void next() {
    LOOM_COUNT_WORK(steps);  // a counted loop (no operand stores this index)
    ++i;
  }
};

// once_stream<Depth, X>: a contracted stream emitting X exactly once (X added to a sum).
template <std::size_t Depth, class X> struct once_stream {
  static constexpr std::size_t depth = Depth;
  static constexpr bool contracted = true, strict = true, full = false, locatable = false;
  X x{};
  bool done = true;

  LOOM_FORCE_INLINE bool valid() const { return !done; }
  LOOM_FORCE_INLINE std::int64_t index() const { return 0; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE X value() const { return x; }
  LOOM_FORCE_INLINE void seek(std::int64_t) {}
  LOOM_FORCE_INLINE void seek_past(std::int64_t) { done = true; }
  LOOM_FORCE_INLINE void next() { done = true; }
};

// deep_map_stream<S, G>: S with g applied to each value (g places Σ, expand or f deeper).
template <class S, class G> struct deep_map_stream {
  static constexpr std::size_t depth = S::depth;
  static constexpr bool contracted = S::contracted, strict = S::strict, full = S::full,
                        locatable = S::locatable, dense_range = dense_range_v<S>;
  S s{};
  G g{};
  static constexpr bool drives = drives_itself_v<S>;
  template <class F> LOOM_FORCE_INLINE void for_each_ready(F&& f) const {
    s.for_each_ready([&](std::int64_t pos, const auto& v) { f(pos, g(v)); });
  }

  LOOM_FORCE_INLINE bool valid() const { return s.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return s.index(); }
  LOOM_FORCE_INLINE bool ready() const { return s.ready(); }
  LOOM_FORCE_INLINE std::int64_t remaining() const { return remaining_of(s); }
  LOOM_FORCE_INLINE auto value() const { return g(s.value()); }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const
    requires(S::locatable)
  {
    return g(s.locate(i));
  }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { s.seek(i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) { s.seek_past(i); }
  LOOM_FORCE_INLINE void next() { s.next(); }
};

// apply_linear: a linear scalar function (negate, divide, scale) at every leaf, through sums.
template <class F> struct apply_linear {
  F f{};
  template <class X> LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (is_stream_v<X>)
      return deep_map_stream<X, apply_linear>{x, *this};
    else
      return static_cast<X>(f(x));
  }
};

// apply_nonlinear: f(v) at every leaf, after reducing any contracted level (f(Σ) ≠ Σ f).
template <class F> struct apply_nonlinear {
  F f{};
  template <class X> LOOM_FORCE_INLINE auto operator()(const X& x) const {
    if constexpr (!is_stream_v<X>)
      return static_cast<X>(f(x));
    else if constexpr (X::contracted)
      return (*this)(reduce_checked(x));
    else
      return deep_map_stream<X, apply_nonlinear>{x, *this};
  }
};

// Two free operands at the same depth, neither full: the loop's skip policy decides who iterates.
//  | policy          | B locatable (hashed, bitmap)  | A locatable only      | neither          |
//  |-----------------|-------------------------------|-----------------------|------------------|
//  | standard        | iterate A, locate B           | iterate B, locate A   | adaptive (merge, |
//  |                 |                               |                       | gallop if skewed)|
//  | lead<0>         | iterate A, locate B           | iterate A, B seeks    | A leads, B seeks |
//  | lead<1>         | iterate B; A located or seeks | iterate B, locate A   | B leads, A seeks |
//  | leapfrog, merge | both iterate (mul_stream)     | both iterate          | both iterate     |
template <class Skip, class Op, class A, class B>
LOOM_FORCE_INLINE auto make_intersection(const Op& op, const A& a, const B& b,
                                         const kernel_context* ctx) {
  if constexpr (std::is_same_v<Skip, skip::runtime> && !A::locatable && !B::locatable) {
    return mul_stream<A, B, Op, skip::runtime>{a, b, op, ctx};
  } else if constexpr (std::is_same_v<Skip, skip::standard> ||
                       std::is_same_v<Skip, skip::standard_short> ||
                       std::is_same_v<Skip, skip::runtime>) {
    if constexpr (B::locatable)
      return lookup_stream<A, B, Op, false>{a, b, op, ctx};
    else if constexpr (A::locatable)
      return lookup_stream<B, A, Op, true>{b, a, op, ctx};
    else
      return mul_stream<A, B, Op, skip::adaptive, std::is_same_v<Skip, skip::standard_short>>{
          a, b, op, ctx};
  } else if constexpr (std::is_same_v<Skip, skip::lead<0>> && B::locatable) {
    return lookup_stream<A, B, Op, false>{a, b, op, ctx};
  } else if constexpr (std::is_same_v<Skip, skip::lead<1>> && A::locatable) {
    return lookup_stream<B, A, Op, true>{b, a, op, ctx};
  } else {
    return mul_stream<A, B, Op, Skip>{a, b, op, ctx};
  }
}

template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_mul(const Op& op, const A& a, const B& b, const kernel_context* ctx) {
  constexpr std::size_t da = depth_of<A>(), db = depth_of<B>();
  if constexpr (!is_stream_v<A> && !is_stream_v<B>) {
    return op(a, b);
  } else if constexpr (da == db) {
    if constexpr (A::contracted || B::contracted) {
      // two sums over the same index: materialise each (notes §4.10 option c)
      return make_mul(op, reduce_checked(a), reduce_checked(b), ctx);
    } else if constexpr (B::full && B::locatable) {  // a full operand is always located
      return lookup_stream<A, B, Op, false>{a, b, op, ctx};
    } else if constexpr (A::full && A::locatable) {
      return lookup_stream<B, A, Op, true>{b, a, op, ctx};
    } else {
      return make_intersection<skip::of_op_at<Op, da>>(op, a, b, ctx);
    }
  } else if constexpr (da < db) {
    if constexpr (A::contracted && !Op::linear_left)
      return make_mul(op, reduce_checked(a), b, ctx);
    else
      return scaled_stream<A, B, Op, false>{a, b, op, ctx};
  } else {
    if constexpr (B::contracted && !Op::linear_right)
      return make_mul(op, a, reduce_checked(b), ctx);
    else
      return scaled_stream<B, A, Op, true>{b, a, op, ctx};
  }
}

template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_union(const Op& op, const A& a, const B& b, const kernel_context* ctx) {
  constexpr std::size_t da = depth_of<A>(), db = depth_of<B>();
  if constexpr (!Op::linear && (is_contracted<A>() || is_contracted<B>())) {
    if constexpr (is_contracted<A>())
      return make_union(op, reduce_checked(a), b, ctx);
    else
      return make_union(op, a, reduce_checked(b), ctx);
  } else if constexpr (!is_stream_v<A> && !is_stream_v<B>) {
    return op(a, b);
  } else if constexpr (da == db) {
    return union_stream<A, B, Op>{a, b, op, ctx};
  } else if constexpr (da < db) {
    if constexpr (A::contracted) {
      return union_stream<A, once_stream<da, B>, Op>{a, {b, false}, op, ctx};
    } else {
      return union_stream<A, expand_stream<da, B>, Op>{a, {b, 0, ctx->extents[da]}, op, ctx};
    }
  } else {
    if constexpr (B::contracted) {
      return union_stream<once_stream<db, A>, B, Op>{{a, false}, b, op, ctx};
    } else {
      return union_stream<expand_stream<db, A>, B, Op>{{a, 0, ctx->extents[db]}, b, op, ctx};
    }
  }
}

}  // namespace loom::stream

#endif  // LOOM_STREAM_COMBINATORS_HPP
