// Defines the stream combinators: mul (intersection), lookup (iterate one, locate the other),
// add (lexicographic union), contract, expand, once, map, zero, and the value combinators that
// place them by depth (Etch's shape inference) (stream/).
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
//  | same, contracted  | reduce both to scalars, then multiply | union                        |
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
#include <loom/stream/skip.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace loom::stream {

inline constexpr std::int64_t top_index = std::numeric_limits<std::int64_t>::max();

// Scalar operations with their linearity (may a reduction be pushed through them?). A product
// also carries the skip policy of every loop (skip.hpp), so that nested products built from its
// values (value(), lookup, scaled) co-iterate as the plan says at their own depth.
template <class T, class Skips = skip::per_loop<>> struct mul_op {
  using skips = Skips;
  static constexpr bool linear_left = true, linear_right = true;
  LOOM_FORCE_INLINE T operator()(const T& a, const T& b) const {
    return semiring_traits<T>::mul(a, b);
  }
};
template <class T> struct add_op {
  static constexpr bool linear = true;
  LOOM_FORCE_INLINE T operator()(const T& a, const T& b) const {
    return semiring_traits<T>::add(a, b);
  }
};
template <class Op> struct is_add_op : std::false_type {};
template <class T> struct is_add_op<add_op<T>> : std::true_type {};
template <class T> struct where_op {  // where(p, e): linear in e only
  static constexpr bool linear_left = false, linear_right = true;
  LOOM_FORCE_INLINE T operator()(const T& p, const T& e) const {
    return p == semiring_traits<T>::zero() ? semiring_traits<T>::zero() : e;
  }
};
template <class T, class F> struct binary_fn_op {  // a user function or comparison: not linear
  static constexpr bool linear = false;
  F f;
  LOOM_FORCE_INLINE T operator()(const T& a, const T& b) const { return static_cast<T>(f(a, b)); }
};

/// Whether S is an intersection that reads its skip policy at run time (skip::runtime).
template <class S> inline constexpr bool reads_policy_v = requires { requires S::reads_policy; };

/// Whether S drives its own loop: `s.for_each_ready(f)` calls f(index, value) at each ready
/// state, in order, in one loop whose cursors are locals (the hand-written merge), which the
/// run loops prefer to stepping S from outside through valid, ready and next.
template <class S> inline constexpr bool drives_itself_v = requires { requires S::drives; };

/// f(s) with the policy of the intersection s compiled in. The loops that iterate such a stream
/// (reduce, run_located, run_sparse) call this first, so the policy is branched on once per
/// fiber, in front of one copy of the loop per policy, not at every step.
template <class S, class F>
LOOM_FORCE_INLINE decltype(auto) with_compiled_policy(const S& s, F&& f) {
  switch (s.runtime_code()) {
    case skip::code::merge:
      return f(s.template compiled<skip::merge>());
    case skip::code::lead_first:
      return f(s.template compiled<skip::lead<0>>());
    case skip::code::lead_last:
      return f(s.template compiled<skip::lead<1>>());
    default:
      return f(s.template compiled<skip::leapfrog>());
  }
}

/// Whether reduce(x) may keep partial sums: a sum over a dense (full) range of floating-point
/// scalars, whose in-order chain of adds is latency-bound (SDDMM's dense k reduction).
template <class X> inline constexpr bool dense_range_v = requires { requires X::dense_range; };

/// The states left in a full stream (every index to its end), or -1 when it does not say.
template <class S> LOOM_FORCE_INLINE std::int64_t remaining_of(const S& s) {
  if constexpr (requires { s.remaining(); })
    return s.remaining();
  else if constexpr (requires { s.n - s.i; })
    return static_cast<std::int64_t>(s.n - s.i);
  else
    return -1;
}

template <class X>
inline constexpr bool lane_reducible = [] {
  if constexpr (dense_range_v<X>) {
    using V = std::remove_cvref_t<decltype(std::declval<const X&>().value())>;
    if constexpr (!is_stream_v<V>)
      return std::is_floating_point_v<V>;
    else
      return false;
  } else {
    return false;
  }
}();

/// Whether the kernel asked for sequential sums (the context of the Σ under x's wrappers).
template <class X> LOOM_FORCE_INLINE bool sequential_sums(const X& x) {
  if constexpr (requires { x.ctx; })
    return x.ctx != nullptr && x.ctx->sequential_sums;
  else if constexpr (requires { x.s; })
    return sequential_sums(x.s);
  else
    return true;
}

/// The sum of a dense range in four interleaved partial sums ((s0 + s1) + (s2 + s3)): four
/// independent chains of adds instead of one, as a hand-written dot product keeps. The result
/// may differ from the sequential sum by rounding; loom::set_deterministic(true) (read once per
/// kernel into its context) keeps the sequential order.
template <class X> LOOM_FORCE_INLINE auto lane_sum(const X& x) {
  using leaf = std::remove_cvref_t<decltype(x.value())>;
  const leaf zero = semiring_traits<leaf>::zero();
  leaf s0 = zero, s1 = zero, s2 = zero, s3 = zero;
  X s = x;
  if (std::int64_t r = remaining_of(s); r >= 0) {  // a counted loop: no test per state
    for (; r >= 4; r -= 4) {
      s0 += s.value();
      s.next();
      s1 += s.value();
      s.next();
      s2 += s.value();
      s.next();
      s3 += s.value();
      s.next();
    }
    for (; r > 0; --r) {
      s0 += s.value();
      s.next();
    }
    return (s0 + s1) + (s2 + s3);
  }
  while (s.valid()) {
    s0 += s.value();
    s.next();
    if (!s.valid()) break;
    s1 += s.value();
    s.next();
    if (!s.valid()) break;
    s2 += s.value();
    s.next();
    if (!s.valid()) break;
    s3 += s.value();
    s.next();
  }
  return (s0 + s1) + (s2 + s3);
}

/// Whether x is a scaled sum reduced as x·Σ (scaled_stream::scale_factors).
template <class X> inline constexpr bool factors_scale_v = requires { requires X::scale_factors; };

/// Whether x is Σa + Σb with both sums reducible here: reduced as two sums, added once.
template <class X> constexpr bool separable_sum() {
  if constexpr (requires { requires X::sum_of_sums; })
    return reducible<decltype(X::a)>() && reducible<decltype(X::b)>();
  else
    return false;
}

// reduce(x): the sum of every value of a fully contracted stream (a materialised Σ).
template <class X> LOOM_FORCE_INLINE auto reduce(const X& x) {
  if constexpr (factors_scale_v<X>) {
    return static_cast<leaf_t<X>>(x.combine(reduce(x.a)));
  } else if constexpr (separable_sum<X>()) {
    using leaf = leaf_t<X>;
    return semiring_traits<leaf>::add(static_cast<leaf>(reduce(x.a)),
                                      static_cast<leaf>(reduce(x.b)));
  } else if constexpr (!is_stream_v<X>) {
    return x;
  } else if constexpr (lane_reducible<X>) {
    if (!sequential_sums(x)) return lane_sum(x);
    auto acc = semiring_traits<leaf_t<X>>::zero();
    for (X s = x; s.valid(); s.next()) acc += s.value();
    return acc;
  } else if constexpr (reads_policy_v<X>) {
    return with_compiled_policy(x, [](const auto& y) { return reduce(y); });
  } else if constexpr (drives_itself_v<X>) {
    static_assert(X::contracted, "loom internal error: reduce of a free stream; please report");
    using leaf = leaf_t<X>;
    leaf acc = semiring_traits<leaf>::zero();
    x.for_each_ready(
        [&](std::int64_t, const auto& v) { acc = semiring_traits<leaf>::add(acc, reduce(v)); });
    return acc;
  } else {
    static_assert(X::contracted, "loom internal error: reduce of a free stream; please report");
    using leaf = leaf_t<X>;
    leaf acc = semiring_traits<leaf>::zero();
    X s = x;
    while (s.valid()) {
      if (s.ready()) acc = semiring_traits<leaf>::add(acc, reduce(s.value()));
      s.next();
    }
    return acc;
  }
}

/// Named condition behind the "cannot be lifted" diagnostic (notes §4.10).
template <class X> inline constexpr bool contracted_operand_reduces_to_a_scalar = reducible<X>();

// A contracted operand that must be reduced to a scalar here (a product of two sums over the
// same index, or a non-linear function of a sum) but whose remainder still depends on a later
// index.
template <std::size_t Depth>
struct sum_cannot_be_reduced_here_it_depends_on_a_later_index;  // do not define: names the depth

template <class X> LOOM_FORCE_INLINE auto reduce_checked(const X& x) {
  if constexpr (!contracted_operand_reduces_to_a_scalar<X>) {
    static_assert(contracted_operand_reduces_to_a_scalar<X>,
                  "loom: a sum must be reduced to a scalar here (it is multiplied by another sum "
                  "over the same index, or passed to a non-linear function such as map, integer "
                  "/ or a where predicate), but the loop order iterates a free index inside it; "
                  "rename the summation index, store the operand so that the summed index is "
                  "innermost, or materialise the sum first");
    sum_cannot_be_reduced_here_it_depends_on_a_later_index<std::remove_cvref_t<X>::depth>{};
    return leaf_t<X>{};
  } else {
    return reduce(x);
  }
}

template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_mul(const Op& op, const A& a, const B& b, const kernel_context* ctx);
template <class Op, class A, class B>
LOOM_FORCE_INLINE auto make_union(const Op& op, const A& a, const B& b, const kernel_context* ctx);

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

template <class A, class B, class Op, class Skip = skip::adaptive> struct mul_stream {
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

  /// The matches, in one loop: the operand behind steps (or gallops) to the other's index.
  template <class F> LOOM_FORCE_INLINE void for_each_ready(F&& f) const {
    static_assert(stepwise);
    A x = a;
    B y = b;
    const bool g = gallop;
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
    const bool g = !merge_fibers(a, b);
    to_match(g);
    return g;
  }
  LOOM_FORCE_INLINE void to_match(bool g) {
    while (a.valid() && b.valid()) {
      const std::int64_t ia = a.index(), ib = b.index();
      if (ia == ib) return;
      if (ia < ib) {
        if (g)
          a.seek(ib);
        else
          a.next();
      } else {
        if (g)
          b.seek(ia);
        else
          b.next();
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
    a.for_each_ready([&](std::int64_t i, const auto& v) { f(i, combine(v)); });
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

// union_stream<A, B, Op>: Lean's Stream.add; ready and value decided by comparing
// (index, ready) lexicographically, never by index alone (notes §4.2, T4). Each child's
// (index, ready) is read once per move and cached, so chains of unions stay linear.
template <class A, class B, class Op> struct union_stream {
  static_assert(A::depth == B::depth && A::contracted == B::contracted);
  static constexpr std::size_t depth = A::depth;
  static constexpr bool contracted = A::contracted, strict = A::strict && B::strict,
                        full = A::full || B::full, locatable = A::locatable && B::locatable;
  // a sum of two sums over the same index (Σa + Σb): reduced one after the other, each in its
  // own loop, rather than co-iterated; the code stays linear in the number of terms (reduce)
  static constexpr bool sum_of_sums = is_add_op<Op>::value && A::contracted && B::contracted;
  A a{};
  B b{};
  Op op{};
  const kernel_context* ctx = nullptr;
  std::int64_t ka = top_index, kb = top_index;  // index, or top when exhausted
  bool ra = false, rb = false;                  // valid and ready

  union_stream() = default;
  LOOM_FORCE_INLINE union_stream(const A& a_, const B& b_, const Op& op_, const kernel_context* c)
      : a(a_), b(b_), op(op_), ctx(c) {
    if constexpr (!zipped) refresh();
  }

  // both children are levels whose every state is ready: a state is ready exactly when valid,
  // so the comparison is by index alone and no flag is kept (valid() is a precondition below)
  static constexpr bool always_ready = has_fiber_length<A> && has_fiber_length<B>;
  // both children hold every index of the same extent (the rows of two csr matrices, two dense
  // vectors): they advance together and the union is their zip, with no comparison at all
  static constexpr bool zipped = A::full && B::full && !contracted;
  static constexpr bool drives = (always_ready || zipped) && !contracted;

  /// The union in one loop, as the hand-written merge: both while both remain, then the rest.
  /// An entry of one side alone is that side's value (0 is the identity of +: no add).
  template <class F> LOOM_FORCE_INLINE void for_each_ready(F&& f) const {
    static_assert(drives);
    A x = a;
    B y = b;
    if constexpr (zipped) {
      for (; x.valid(); x.next(), y.next()) f(x.index(), make_union(op, x.value(), y.value(), ctx));
      return;
    } else {
      while (x.valid() && y.valid()) {
        const std::int64_t ix = x.index(), iy = y.index();
        if (ix == iy) {
          f(ix, make_union(op, x.value(), y.value(), ctx));
          x.next();
          y.next();
        } else if (ix < iy) {
          f(ix, left_alone(x.value()));
          x.next();
        } else {
          f(iy, right_alone(y.value()));
          y.next();
        }
      }
      for (; x.valid(); x.next()) f(x.index(), left_alone(x.value()));
      for (; y.valid(); y.next()) f(y.index(), right_alone(y.value()));
    }
  }

  LOOM_FORCE_INLINE bool valid() const {
    if constexpr (zipped)
      return a.valid();
    else
      return ka != top_index || kb != top_index;
  }
  LOOM_FORCE_INLINE std::int64_t index() const {
    if constexpr (zipped)
      return a.index();
    else
      return std::min(ka, kb);
  }
  LOOM_FORCE_INLINE bool take_a() const {
    if constexpr (zipped)
      return true;
    else if constexpr (always_ready)
      return ka <= kb;
    else
      return ra && lex_le(ka, ra, kb, rb);
  }
  LOOM_FORCE_INLINE bool take_b() const {
    if constexpr (zipped)
      return true;
    else if constexpr (always_ready)
      return kb <= ka;
    else
      return rb && lex_le(kb, rb, ka, ra);
  }
  LOOM_FORCE_INLINE bool ready() const {
    if constexpr (zipped || always_ready)
      return true;
    else
      return take_a() || take_b();
  }
  LOOM_FORCE_INLINE auto value() const {
    if constexpr (zipped) {
      return make_union(op, a.value(), b.value(), ctx);
    } else {
      using va = std::remove_cvref_t<decltype(a.value())>;
      using vb = std::remove_cvref_t<decltype(b.value())>;
      return make_union(op, take_a() ? a.value() : zero_of<va>(),
                        take_b() ? b.value() : zero_of<vb>(), ctx);
    }
  }
  LOOM_FORCE_INLINE auto locate(std::int64_t i) const
    requires(A::locatable && B::locatable)
  {
    return make_union(op, a.locate(i), b.locate(i), ctx);
  }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    if constexpr (zipped) {
      a.seek(i);
      b.seek(i);
      return;
    }
    if (ka != top_index) a.seek(i);
    if (kb != top_index) b.seek(i);
    refresh();
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    if constexpr (zipped) {
      a.seek_past(i);
      b.seek_past(i);
      return;
    }
    if (ka != top_index) a.seek_past(i);
    if (kb != top_index) b.seek_past(i);
    refresh();
  }
  LOOM_FORCE_INLINE void next() {
    if constexpr (zipped) {
      a.next();
      b.next();
      return;
    }
    const bool sa = take_a(), sb = take_b();
    if constexpr (always_ready) {  // re-read only the children that moved
      if (sa) {
        a.next();
        read(a, ka, ra);
      }
      if (sb) {
        b.next();
        read(b, kb, rb);
      }
      return;
    } else if (sa || sb) {  // step exactly the children that were emitted
      if (sa) a.next();
      if (sb) b.next();
    } else {  // not ready: the smaller child must progress towards the common index
      const std::int64_t i = index();
      if (ka == i) a.seek(i);
      if (kb == i) b.seek(i);
    }
    refresh();
  }

 private:
  // The union's value where only one side has an entry: that value itself when the op is the
  // semiring's + over scalars (a + 0 = a; spares an add per entry), else op(value, 0).
  template <class V> LOOM_FORCE_INLINE auto left_alone(const V& v) const {
    using vb = std::remove_cvref_t<decltype(b.value())>;
    if constexpr (adds_scalars<V, vb>)
      return v;
    else
      return make_union(op, v, zero_of<vb>(), ctx);
  }
  template <class V> LOOM_FORCE_INLINE auto right_alone(const V& v) const {
    using va = std::remove_cvref_t<decltype(a.value())>;
    if constexpr (adds_scalars<va, V>)
      return v;
    else
      return make_union(op, zero_of<va>(), v, ctx);
  }
  template <class X, class Y> static constexpr bool adds_scalars_of() {
    if constexpr (is_add_op<Op>::value && !is_stream_v<X> && !is_stream_v<Y> &&
                  std::is_same_v<X, Y>)
      return std::is_same_v<decltype(std::declval<const Op&>()(std::declval<const X&>(),
                                                               std::declval<const Y&>())),
                            X>;
    else
      return false;
  }
  template <class X, class Y> static constexpr bool adds_scalars = adds_scalars_of<X, Y>();
  LOOM_FORCE_INLINE void refresh() {
    read(a, ka, ra);
    read(b, kb, rb);
  }
  template <class S> static LOOM_FORCE_INLINE void read(const S& s, std::int64_t& k, bool& r) {
    if (!s.valid()) {
      k = top_index;
      r = false;
      return;
    }
    if constexpr (contracted)
      k = 0;  // every state of a contracted stream has index *
    else
      k = s.index();
    r = s.ready();
  }
  static LOOM_FORCE_INLINE bool lex_le(std::int64_t i, bool r, std::int64_t j, bool q) {
    return i < j || (i == j && (!r || q));
  }
};

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
    s.for_each_ready([&](std::int64_t i, const auto& v) { f(i, g(v)); });
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
                       std::is_same_v<Skip, skip::runtime>) {
    if constexpr (B::locatable)
      return lookup_stream<A, B, Op, false>{a, b, op, ctx};
    else if constexpr (A::locatable)
      return lookup_stream<B, A, Op, true>{b, a, op, ctx};
    else
      return mul_stream<A, B, Op>{a, b, op, ctx};
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
