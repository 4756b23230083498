// Defines the scalar operations of streams (mul, add, where, user functions) and the reduction
// of a contracted stream to a scalar: reduce (lane_sum's four partial sums over a dense range, a
// sum of sums as two sums) and reduce_checked (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_REDUCE_HPP
#define LOOM_STREAM_REDUCE_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/lanes.hpp>
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
  } else if constexpr (lanes::reduces_in_lanes<X>) {  // unit-stride rows: vector lanes
    return lanes::dot(x, sequential_sums(x));
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

}  // namespace loom::stream

#endif  // LOOM_STREAM_REDUCE_HPP
