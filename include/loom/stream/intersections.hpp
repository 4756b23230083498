// Defines the intersections of streams: mul_stream (both iterate: merge, galloping, leapfrog or
// one leading), lookup_stream (iterate one, locate the other), scaled_stream (a stream times a
// deeper one), and the empty zero_stream (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_INTERSECTIONS_HPP
#define LOOM_STREAM_INTERSECTIONS_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/reduce.hpp>
#include <loom/stream/skip.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom::stream {

// zero_stream<Depth, V>: never valid; the 0 of nested stream types.
template <std::size_t Depth, class V> struct zero_stream {
  static constexpr std::size_t depth = Depth;
  static constexpr bool contracted = false, strict = true, full = false, locatable = false;
  bool valid() const { return false; }
  std::int64_t index() const { return top_index; }
  bool ready() const { return false; }
  V value() const { return zero_of<V>(); }
  void seek(std::int64_t) {}
  void seek_past(std::int64_t) {}
  void next() {}
};

// mul_stream<A, B, Op, Skip>: intersection of strict A and B. How the operand behind catches up:
//  | Skip      | a behind (index < b's)       | b behind           | on a match        |
//  |-----------|------------------------------|--------------------|-------------------|
//  | leapfrog  | a.seek(b.index) (galloping)  | b.seek(a.index)    | both step         |
//  | merge     | a.next()  (one entry)        | b.next()           | both step         |
//  | lead<0>   | a.next()  (a iterates all)   | b.seek(a.index)    | a steps, b probes |
//  | lead<1>   | a.seek(b.index)              | b.next()           | b steps, a probes |
// Every variant only moves an operand to a state it would reach by next(), or seeks it to an
// index the other holds, so no common index is skipped and index() = max never decreases.
// skip::runtime reads its code from the context once, when the stream is built; the static
// policies are constants, so their branches below fold away.
template <class Skip> struct intersection_policy {
  static constexpr skip::code code = std::is_same_v<Skip, skip::merge>     ? skip::code::merge
                                     : std::is_same_v<Skip, skip::lead<0>> ? skip::code::lead_first
                                     : std::is_same_v<Skip, skip::lead<1>> ? skip::code::lead_last
                                                                           : skip::code::leapfrog;
  static constexpr intersection_policy at(const kernel_context*, std::size_t) { return {}; }
};
template <> struct intersection_policy<skip::runtime> {
  skip::code code = skip::code::leapfrog;
  static intersection_policy at(const kernel_context* ctx, std::size_t depth) {
    return {ctx != nullptr ? ctx->skip[depth] : skip::code::leapfrog};
  }
};

/// Whether a stream knows the entries left in its fiber: a level's cursor whose states are all
/// ready (not a composite stream).
template <class S>
inline constexpr bool has_fiber_length = [] {
  if constexpr (requires(const S& s) {
                  s.end - s.p;
                  typename S::cursor;
                })                                                 // nested: clang 14
    return !requires(const typename S::cursor& c) { c.ready(); };  // would not see S::cursor fail
  else
    return false;
}();

/// The entries left in a stream's fiber, or -1 when it does not say.
template <class S> LOOM_FORCE_INLINE std::int64_t fiber_length(const S& s) {
  if constexpr (has_fiber_length<S>)
    return static_cast<std::int64_t>(s.end - s.p);
  else
    return -1;
}

/// skip::adaptive's choice for a pair of fibers: step (merge) unless their lengths are unknown or
/// differ by `skip::gallop_ratio` or more. Made once per pair of fibers: no run-time test of a
/// length known to exist, and the two comparisons combined without a branch (a short-fiber
/// shortcut's branch mispredicted where rows straddle the ratio; docs/optimizer.md).
template <class A, class B> LOOM_FORCE_INLINE bool merge_fibers(const A& a, const B& b) {
  if constexpr (!has_fiber_length<A> || !has_fiber_length<B>) {
    return false;
  } else {
    const std::int64_t la = fiber_length(a), lb = fiber_length(b);
    const unsigned a_not_longer = la < skip::gallop_ratio * (lb + 1);
    const unsigned b_not_longer = lb < skip::gallop_ratio * (la + 1);
    return (a_not_longer & b_not_longer) != 0;
  }
}

template <class A, class B, class Op, class Skip = skip::adaptive, bool ShortHint = false>
struct mul_stream {
  static_assert(A::depth == B::depth);
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = false, strict = true, full = A::full && B::full,
                        locatable = false;
  A a{};
  B b{};
  Op op{};
  const kernel_context* ctx = nullptr;
  [[no_unique_address]] intersection_policy<Skip> policy =
      intersection_policy<Skip>::at(ctx, depth);
  static constexpr bool adaptive = std::is_same_v<Skip, skip::adaptive>;
  // adaptive over two fibers of known length (every state ready): the stream always rests on a
  // match (or is exhausted), settled here and kept by next, seek and seek_past; the operand
  // behind steps (a merge) or, where one fiber is gallop_ratio times the other's length,
  // gallops. Static, so that ready() and index() test nothing at run time.
  static constexpr bool stepwise = adaptive && has_fiber_length<A> && has_fiber_length<B>;
  static constexpr bool drives = stepwise;
  bool gallop = stepwise && settle();
  static constexpr bool reads_policy = std::is_same_v<Skip, skip::runtime>;
  LOOM_FORCE_INLINE skip::code runtime_code() const { return policy.code; }

  /// This intersection, and those it is made of at the same loop, with policy P compiled in.
  template <class P> LOOM_FORCE_INLINE auto compiled() const {
    auto operand = [](const auto& x) {
      if constexpr (reads_policy_v<std::remove_cvref_t<decltype(x)>>)
        return x.template compiled<P>();
      else
        return x;
    };
    using CA = decltype(operand(a));
    using CB = decltype(operand(b));
    return mul_stream<CA, CB, Op, P>{operand(a), operand(b), op, ctx};
  }

  /// The matches, in one loop: the operand behind steps (or gallops) to the other's index. A
  /// scalar product gets one copy of the loop per choice, so that a step tests no flag (short
  /// fibers: the triangle query, inner products); a nested one keeps one copy of its body.
  template <class F> LOOM_FORCE_INLINE void for_each_ready(F&& f) const {
    static_assert(stepwise);
    using value_t = decltype(make_mul(op, a.value(), b.value(), ctx));
    if constexpr (!is_stream_v<std::remove_cvref_t<value_t>>) {
      if (gallop)
        drive<true, true>(f);
      else
        drive<true, false>(f);
    } else {
      drive<false, false>(f);
    }
  }

  LOOM_FORCE_INLINE bool valid() const { return a.valid() && b.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const {
    if constexpr (stepwise)
      return a.index();  // a match
    else
      return std::max<std::int64_t>(a.index(), b.index());
  }
  LOOM_FORCE_INLINE bool ready() const {
    if constexpr (stepwise)
      return true;  // a match (when valid)
    else
      return a.ready() && b.ready() && a.index() == b.index();
  }
  LOOM_FORCE_INLINE auto value() const { return make_mul(op, a.value(), b.value(), ctx); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    a.seek(i);
    b.seek(i);
    if constexpr (stepwise) to_match(gallop);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    a.seek_past(i);
    b.seek_past(i);
    if constexpr (stepwise) to_match(gallop);
  }
  // δ: on a match the operands step as the policy says; otherwise the one behind catches up
  LOOM_FORCE_INLINE void next() {
    if constexpr (stepwise) {  // past this match, then to the next one
      a.next();
      b.next();
      return to_match(gallop);
    }
    const skip::code c = policy.code;
    const std::int64_t ia = a.index(), ib = b.index();
    if (ia == ib) {
      if (a.ready() && b.ready()) {
        if (c == skip::code::lead_first) {
          a.next();  // b is probed at a's next index below
          if (a.valid() && b.index() < a.index()) b.seek(a.index());
        } else if (c == skip::code::lead_last) {
          b.next();
          if (b.valid() && a.index() < b.index()) a.seek(b.index());
        } else {
          a.next();
          b.next();
        }
      } else {
        a.seek(ia);
        b.seek(ib);
      }
    } else if (ia < ib) {
      if (c == skip::code::merge || c == skip::code::lead_first) {
        a.next();
        if (c == skip::code::lead_first)
          if (a.valid() && b.index() < a.index()) b.seek(a.index());
      } else {
        a.seek(ib);
      }
    } else {
      if (c == skip::code::merge || c == skip::code::lead_last) {
        b.next();
        if (c == skip::code::lead_last)
          if (b.valid() && a.index() < b.index()) a.seek(b.index());
      } else {
        b.seek(ia);
      }
    }
  }

 private:
  // stepwise: the one behind steps (or gallops) until the indices meet, in one tight loop, as
  // the hand-written merge does; the run loop sees matches only
  LOOM_FORCE_INLINE bool settle() {
    // where no pair of fibers can gallop (kernel_context::short_fibers), nothing to compare
    const bool g =
        !((ShortHint && ctx != nullptr && ctx->short_fibers[depth]) || merge_fibers(a, b));
    to_match(g);
    return g;
  }
  LOOM_FORCE_INLINE void to_match(bool g) {
    if (g)
      to_match_by<true>();
    else
      to_match_by<false>();
  }
  // Each step moves one operand and tests that operand's bound only, both indices held in
  // registers: a fiber pair that rarely matches (the triangle query) spends its time here.
  template <bool Gallop> LOOM_FORCE_INLINE void to_match_by() {
    if (!(a.valid() && b.valid())) return;
    std::int64_t ia = a.index(), ib = b.index();
    while (ia != ib) {
      if (ia < ib) {
        if constexpr (Gallop)
          a.seek(ib);
        else
          a.next();
        if (!a.valid()) return;
        ia = a.index();
      } else {
        if constexpr (Gallop)
          b.seek(ia);
        else
          b.next();
        if (!b.valid()) return;
        ib = b.index();
      }
    }
  }
  // for_each_ready's loop: with Fixed, galloping is Gallop; else read from `gallop` per step
  template <bool Fixed, bool Gallop, class F> LOOM_FORCE_INLINE void drive(F& f) const {
    A x = a;
    B y = b;
    const bool g = Fixed ? Gallop : gallop;
    while (x.valid() && y.valid()) {
      const std::int64_t ix = x.index(), iy = y.index();
      if (ix == iy) {
        f(ix, make_mul(op, x.value(), y.value(), ctx));
        x.next();
        y.next();
      } else if (ix < iy) {
        if (g)
          x.seek(iy);
        else
          x.next();
      } else {
        if (g)
          y.seek(ix);
        else
          y.next();
      }
    }
  }
};

/// Whether a locatable stream holds index i: always for a full one; else its `contains`, when
/// it has one (a stream without it locates absent indices to zero, harmless in a product).
template <class S> LOOM_FORCE_INLINE bool contains(const S& s, std::int64_t i) {
  if constexpr (S::full)
    return true;
  else if constexpr (requires { s.contains(i); })
    return s.contains(i);
  else
    return true;
}

// lookup_stream<A, B, Op, Flip>: iterate A, locate B at A's index (B locatable). Where B is not
// full (hashed, bitmap, banded), A's states whose index B lacks are stepped over as soon as A
// reaches them, so the product emits no zeros and stays strict, and every skip progresses.
template <class A, class B, class Op, bool Flip> struct lookup_stream {
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = false, strict = A::strict, full = A::full && B::full,
                        locatable = A::locatable;
  A a{};
  B b{};
  Op op{};
  const kernel_context* ctx = nullptr;

  lookup_stream() = default;
  LOOM_FORCE_INLINE lookup_stream(const A& a_, const B& b_, const Op& op_, const kernel_context* c)
      : a(a_), b(b_), op(op_), ctx(c) {
    settle();
  }

  LOOM_FORCE_INLINE bool contains(std::int64_t i) const
    requires(A::locatable)
  {
    return stream::contains(a, i) && stream::contains(b, i);
  }
  LOOM_FORCE_INLINE bool valid() const { return a.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return a.index(); }
  LOOM_FORCE_INLINE bool ready() const { return a.ready(); }
  LOOM_FORCE_INLINE std::int64_t remaining() const { return full ? remaining_of(a) : -1; }
  LOOM_FORCE_INLINE auto value() const { return combine(a.value(), b.locate(a.index())); }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const { return combine(a.locate(i), b.locate(i)); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    a.seek(i);
    settle();
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    a.seek_past(i);
    settle();
  }
  LOOM_FORCE_INLINE void next() {
    a.next();
    settle();
  }

 private:
  // step A over ready states at indices B lacks (no-op when B is full)
  LOOM_FORCE_INLINE void settle() {
    if constexpr (!B::full)
      while (a.valid() && a.ready() && !stream::contains(b, a.index())) a.next();
  }
  template <class X, class Y> LOOM_FORCE_INLINE auto combine(const X& x, const Y& y) const {
    if constexpr (Flip)
      return make_mul(op, y, x, ctx);
    else
      return make_mul(op, x, y, ctx);
  }
};

// scaled_stream<A, X, Op, Flip>: A's levels, each value combined with X (X deeper than A).
template <class A, class X, class Op, bool Flip> struct scaled_stream {
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = A::contracted, strict = A::strict, full = A::full,
                        locatable = A::locatable, dense_range = dense_range_v<A>;
  A a{};
  X x{};
  Op op{};
  const kernel_context* ctx = nullptr;

  static constexpr bool drives = drives_itself_v<A>;
  template <class F> LOOM_FORCE_INLINE void for_each_ready(F&& f) const {
    a.for_each_ready([&](std::int64_t pos, const auto& v) { f(pos, combine(v)); });
  }
  /// A sum times a scalar, linear in the sum: reduced as x·Σa, one product after the sum
  /// rather than one per term (SDDMM's A(i,j)·Σk U·V), in every mode: the order of the
  /// expression once push_sum has moved the sum, the same for every thread count.
  static constexpr bool scale_factors =
      A::contracted && !is_stream_v<X> && (Flip ? Op::linear_right : Op::linear_left);

  LOOM_FORCE_INLINE bool valid() const { return a.valid(); }
  LOOM_FORCE_INLINE std::int64_t index() const { return a.index(); }
  LOOM_FORCE_INLINE bool ready() const { return a.ready(); }
  LOOM_FORCE_INLINE std::int64_t remaining() const { return remaining_of(a); }
  LOOM_FORCE_INLINE auto value() const { return combine(a.value()); }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const { return combine(a.locate(i)); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { a.seek(i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) { a.seek_past(i); }
  LOOM_FORCE_INLINE void next() { a.next(); }

  template <class V> LOOM_FORCE_INLINE auto combine(const V& v) const {
    if constexpr (Flip)
      return make_mul(op, x, v, ctx);
    else
      return make_mul(op, v, x, ctx);
  }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_INTERSECTIONS_HPP
