// Defines union_stream, the lexicographic union of two streams (Etch's add) (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_UNIONS_HPP
#define LOOM_STREAM_UNIONS_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/intersections.hpp>
#include <loom/stream/reduce.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom::stream {

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

}  // namespace loom::stream

#endif  // LOOM_STREAM_UNIONS_HPP
