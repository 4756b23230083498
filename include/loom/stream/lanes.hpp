// Defines the vector path of dense innermost loops: when the innermost loop is a dense counted
// range and every operand it reads is a unit-stride dense row, the loop runs over explicit
// vector lanes (GCC/Clang vector extensions, the lane width from the target) instead of stepping
// a stream, in three shapes: a reduction (dot), an update (axpy, out[q] += v[q]) and a store
// (out[q] = v[q]), the value v being a product or sum of rows and loop-invariant scalars
// (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_LANES_HPP
#define LOOM_STREAM_LANES_HPP

#include <loom/core/config.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/stream/concepts.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom::stream {

// The streams the vector path reads, defined in level_streams.hpp, intersections.hpp,
// unions.hpp and combinators.hpp (declared here, so that reduce.hpp can dispatch to it).
template <class Layout, std::size_t R> struct strided_stream;
template <class A, class B, class Op, bool Flip> struct lookup_stream;
template <class A, class X, class Op, bool Flip> struct scaled_stream;
template <class A, class B, class Op> struct union_stream;
template <std::size_t Depth, class X> struct expand_stream;
template <class S> struct contract_stream;
template <class T, class Skips> struct mul_op;
template <class T> struct add_op;

namespace lanes {

constexpr bool defined_avx() {
#if defined(__AVX__)
  return true;
#else
  return false;
#endif
}
constexpr bool defined_avx512() {
#if defined(__AVX512F__)
  return true;
#else
  return false;
#endif
}

/// Bytes of one vector register of the target: 64 with AVX-512 (as g++ -march=native and Eigen
/// use there), 32 with AVX, else 16 (SSE2, NEON). LOOM_SIMD_BYTES overrides it.
#if defined(LOOM_SIMD_BYTES)
inline constexpr int register_bytes = LOOM_SIMD_BYTES;
#elif defined(__AVX512F__)
inline constexpr int register_bytes = 64;
#elif defined(__AVX__)
inline constexpr int register_bytes = 32;
#else
inline constexpr int register_bytes = 16;
#endif
static_assert(register_bytes == 16 || register_bytes == 32 || register_bytes == 64,
              "loom: LOOM_SIMD_BYTES must be 16, 32 or 64");
#if defined(__x86_64__) || defined(__i386__)
static_assert(register_bytes <= 16 || (register_bytes == 32 && defined_avx()) ||
                  (register_bytes == 64 && defined_avx512()),
              "loom: LOOM_SIMD_BYTES is wider than the target's registers (32 needs -mavx, 64 "
              "needs -mavx512f)");
#endif

/// Lanes of T in one register: 8 doubles with AVX-512, 4 with AVX, 2 with SSE2.
template <class T> inline constexpr int width = register_bytes / static_cast<int>(sizeof(T));

/// Lanes of T in 32 bytes at most: the reductions of short rows (their horizontal sum is cheaper
/// in 32-byte registers; measured on SDDMM at ranks 8 to 32 with AVX-512).
template <class T>
inline constexpr int short_width =
    (register_bytes > 32 ? 32 : register_bytes) / static_cast<int>(sizeof(T));

/// Partial sums of a reduction under loom::set_deterministic(true): a fixed number, whatever the
/// target's lane width, so that the result has the same bits on every ISA.
inline constexpr int fixed_lanes = 8;

template <class T, int W> struct vec_of {
  typedef T type __attribute__((vector_size(W * sizeof(T))));
};
template <class T, int W> using vec = typename vec_of<T, W>::type;

template <int W, class T> LOOM_FORCE_INLINE vec<T, W> load(const T* p) {
  vec<T, W> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <int W, class T> LOOM_FORCE_INLINE void store(T* p, const vec<T, W>& v) {
  __builtin_memcpy(p, &v, sizeof v);
}
template <int W, class T> LOOM_FORCE_INLINE vec<T, W> splat(T x) {  // one broadcast
  return [&]<std::size_t... L>(std::index_sequence<L...>) {
    return vec<T, W>{((void)L, x)...};
  }(std::make_index_sequence<W>{});
}

/// Keeps the compiler from fusing the multiply that produced v into a later add (an FMA rounds
/// once, a multiply and an add twice): under loom::set_deterministic(true) the bits of a sum must
/// not depend on whether the target has FMA. Free: v stays in its register.
template <class V> LOOM_FORCE_INLINE void no_contract(V& v) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__FMA__) || defined(__FMA4__))
  __asm__("" : "+x"(v));
#elif defined(__aarch64__)
  __asm__("" : "+w"(v));
#else
  (void)v;
#endif
}

// Views: the values of a row at indices at, at + 1, ... as `load<W, Exact>(q)` (the W values
// from at + q) and `at(q)`. Exact: no multiply is left fusable into an add.
template <class T> struct row_view {
  const T* p;
  template <int W, bool> LOOM_FORCE_INLINE vec<T, W> load(std::int64_t q) const {
    return lanes::load<W>(p + q);
  }
  template <bool> LOOM_FORCE_INLINE T at(std::int64_t q) const { return p[q]; }
};
template <class T> struct splat_view {
  T x;
  template <int W, bool> LOOM_FORCE_INLINE vec<T, W> load(std::int64_t) const {
    return splat<W>(x);
  }
  template <bool> LOOM_FORCE_INLINE T at(std::int64_t) const { return x; }
};
template <class A, class B, bool Add> struct pair_view {
  A a;
  B b;
  // x + y or x · y, the same for a register of lanes and for one value of the tail
  template <bool Exact, class V> static LOOM_FORCE_INLINE V combine(V x, V y) {
    if constexpr (Add) {
      return x + y;
    } else {
      V p = x * y;
      if constexpr (Exact) no_contract(p);
      return p;
    }
  }
  template <int W, bool Exact> LOOM_FORCE_INLINE auto load(std::int64_t q) const {
    return combine<Exact>(a.template load<W, Exact>(q), b.template load<W, Exact>(q));
  }
  template <bool Exact> LOOM_FORCE_INLINE auto at(std::int64_t q) const {
    return combine<Exact>(a.template at<Exact>(q), b.template at<Exact>(q));
  }
};

/// What the vector path knows of a stream type X at the innermost loop. `ok`: X is a dense
/// range whose every value is a unit-stride row read, a loop-invariant scalar, or a product or
/// sum of those, all of the floating-point type T under (+, ×). Then `view(x, at)` reads its
/// values from index `at` on, `first(x)` and `count(x)` give its range, and `steps` / `probes`
/// the work counters' count per index when X is iterated (Located false) or located (true).
template <class X> struct traits {
  static constexpr bool ok = false;
};

template <class X, class T>
inline constexpr bool lanes_of_v = [] {
  if constexpr (is_stream_v<X>) {
    if constexpr (traits<X>::ok)
      return std::is_same_v<typename traits<X>::value_type, T>;
    else
      return false;
  } else {
    return std::is_same_v<std::remove_cvref_t<X>, T>;  // a loop-invariant scalar
  }
}();

/// The view of an operand: a stream's rows, or a scalar's splat.
template <class X> LOOM_FORCE_INLINE auto view_of(const X& x, std::int64_t at) {
  if constexpr (is_stream_v<X>)
    return traits<X>::view(x, at);
  else
    return splat_view<X>{x};
}
template <class X, bool Located> constexpr std::array<int, 2> work_of() {
  if constexpr (is_stream_v<X>)
    return traits<X>::template work<Located>();
  else
    return {0, 0};
}

// the all-dense operand's innermost mode, read at unit stride (its last stored level)
template <class Layout, std::size_t R> struct traits<strided_stream<Layout, R>> {
  using value_type = typename Layout::value_type;
  static constexpr bool ok =
      std::is_floating_point_v<value_type> && R + 1 == Layout::order &&
      Layout::format::level_of_mode[Layout::modes_by_depth[R]] + 1 == Layout::order;
  static LOOM_FORCE_INLINE auto view(const strided_stream<Layout, R>& s, std::int64_t at) {
    return row_view<value_type>{s.vals + s.offset + at};
  }
  static LOOM_FORCE_INLINE std::int64_t first(const strided_stream<Layout, R>& s) { return s.i; }
  static LOOM_FORCE_INLINE std::int64_t count(const strided_stream<Layout, R>& s) {
    return s.n - s.i;
  }
  template <bool Located> static constexpr std::array<int, 2> work() {
    return Located ? std::array<int, 2>{0, 1} : std::array<int, 2>{1, 0};
  }
};

// the range of a combination is that of its iterated operand `a`
template <class A> struct range_of_a {
  template <class S> static LOOM_FORCE_INLINE std::int64_t first(const S& s) {
    return traits<A>::first(s.a);
  }
  template <class S> static LOOM_FORCE_INLINE std::int64_t count(const S& s) {
    return traits<A>::count(s.a);
  }
};

// a product: iterate A, locate B (both full, so no state is skipped)
template <class A, class B, class T, class Skips, bool Flip>
struct traits<lookup_stream<A, B, mul_op<T, Skips>, Flip>> : range_of_a<A> {
  using value_type = T;
  static constexpr bool ok = A::full && B::full && lanes_of_v<A, T> && lanes_of_v<B, T>;
  using self = lookup_stream<A, B, mul_op<T, Skips>, Flip>;
  static LOOM_FORCE_INLINE auto view(const self& s, std::int64_t at) {
    auto a = view_of(s.a, at);
    auto b = view_of(s.b, at);
    if constexpr (Flip)
      return pair_view<decltype(b), decltype(a), false>{b, a};
    else
      return pair_view<decltype(a), decltype(b), false>{a, b};
  }
  template <bool Located> static constexpr std::array<int, 2> work() {
    const auto a = work_of<A, Located>(), b = work_of<B, true>();
    return {a[0] + b[0], a[1] + b[1]};
  }
};

// a row times a loop-invariant scalar (SpMM's S(i,j) · B(j,k))
template <class A, class X, class T, class Skips, bool Flip>
struct traits<scaled_stream<A, X, mul_op<T, Skips>, Flip>> : range_of_a<A> {
  using value_type = T;
  static constexpr bool ok =
      !A::contracted && lanes_of_v<A, T> && !is_stream_v<X> && std::is_same_v<X, T>;
  using self = scaled_stream<A, X, mul_op<T, Skips>, Flip>;
  static LOOM_FORCE_INLINE auto view(const self& s, std::int64_t at) {
    auto a = view_of(s.a, at);
    if constexpr (Flip)
      return pair_view<splat_view<T>, decltype(a), false>{{s.x}, a};
    else
      return pair_view<decltype(a), splat_view<T>, false>{a, {s.x}};
  }
  template <bool Located> static constexpr std::array<int, 2> work() {
    return work_of<A, Located>();
  }
};

// a sum of two full rows, zipped (an element-wise map: U(i,k) + V(i,k))
template <class A, class B, class T> struct traits<union_stream<A, B, add_op<T>>> : range_of_a<A> {
  using value_type = T;
  static constexpr bool ok =
      A::full && B::full && !A::contracted && lanes_of_v<A, T> && lanes_of_v<B, T>;
  using self = union_stream<A, B, add_op<T>>;
  static LOOM_FORCE_INLINE auto view(const self& s, std::int64_t at) {
    auto a = view_of(s.a, at);
    auto b = view_of(s.b, at);
    return pair_view<decltype(a), decltype(b), true>{a, b};
  }
  template <bool Located> static constexpr std::array<int, 2> work() {
    const auto a = work_of<A, Located>(), b = work_of<B, Located>();
    return {a[0] + b[0], a[1] + b[1]};
  }
};

// a scalar repeated along the loop (a term that does not use the innermost index)
template <std::size_t D, class X> struct traits<expand_stream<D, X>> {
  using value_type = std::remove_cvref_t<X>;
  static constexpr bool ok = !is_stream_v<X> && std::is_floating_point_v<value_type>;
  static LOOM_FORCE_INLINE auto view(const expand_stream<D, X>& s, std::int64_t) {
    return splat_view<value_type>{s.x};
  }
  static LOOM_FORCE_INLINE std::int64_t first(const expand_stream<D, X>& s) { return s.i; }
  static LOOM_FORCE_INLINE std::int64_t count(const expand_stream<D, X>& s) { return s.n - s.i; }
  template <bool Located> static constexpr std::array<int, 2> work() {
    return Located ? std::array<int, 2>{0, 0} : std::array<int, 2>{1, 0};
  }
};

// Σ over the range: a reduction's operand
template <class S, bool = traits<S>::ok> struct contract_traits {
  static constexpr bool ok = false;
};
template <class S> struct traits<contract_stream<S>> : contract_traits<S> {};
template <class S> struct contract_traits<S, true> {
  using value_type = typename traits<S>::value_type;
  static constexpr bool ok = true;
  static LOOM_FORCE_INLINE auto view(const contract_stream<S>& s, std::int64_t at) {
    return traits<S>::view(s.s, at);
  }
  static LOOM_FORCE_INLINE std::int64_t first(const contract_stream<S>& s) {
    return traits<S>::first(s.s);
  }
  static LOOM_FORCE_INLINE std::int64_t count(const contract_stream<S>& s) {
    return traits<S>::count(s.s);
  }
  template <bool Located> static constexpr std::array<int, 2> work() {
    return traits<S>::template work<Located>();
  }
};

/// Whether reduce(x) takes the vector path: a Σ over a dense range of unit-stride rows.
template <class X>
inline constexpr bool reduces_in_lanes = [] {
  if constexpr (is_stream_v<X>) {
    if constexpr (X::contracted && traits<X>::ok)
      return true;
    else
      return false;
  } else {
    return false;
  }
}();

/// Whether a free stream X, written into a dense output of T at unit stride, takes the vector
/// path (an update or a store).
template <class X, class T>
inline constexpr bool writes_in_lanes = [] {
  if constexpr (is_stream_v<X>) {
    if constexpr (!X::contracted && traits<X>::ok)
      return std::is_same_v<typename traits<X>::value_type, T>;
    else
      return false;
  } else {
    return false;
  }
}();

/// The vector path a kernel's loops take, read off the type of its stream tree X (what
/// explain() reports): a reduction (dot), a write into a row of a dense output of Out (void for
/// other outputs), or none.
enum class shape { none, dot, write };
template <class X, class Out> constexpr shape shape_of() {
  if constexpr (!is_stream_v<X>) {
    return shape::none;
  } else if constexpr (reduces_in_lanes<X>) {
    return shape::dot;
  } else if constexpr (writes_in_lanes<X, Out>) {
    return shape::write;
  } else if constexpr (requires { requires X::scale_factors; }) {
    return shape_of<std::remove_cvref_t<decltype(std::declval<const X&>().a)>, Out>();
  } else if constexpr (requires { requires X::sum_of_sums; }) {
    constexpr shape a = shape_of<std::remove_cvref_t<decltype(std::declval<const X&>().a)>, Out>();
    if constexpr (a != shape::none)
      return a;
    else
      return shape_of<std::remove_cvref_t<decltype(std::declval<const X&>().b)>, Out>();
  } else {
    return shape_of<std::remove_cvref_t<decltype(std::declval<const X&>().value())>, Out>();
  }
}

template <class X> LOOM_FORCE_INLINE void count_work(std::int64_t n) {
  constexpr auto w = traits<X>::template work<false>();
  if constexpr (w[0] > 0) LOOM_COUNT_WORK_N(steps, n * w[0]);
  if constexpr (w[1] > 0) LOOM_COUNT_WORK_N(probes, n * w[1]);
  LOOM_COUNT_WORK(vector_loops);
  (void)n;
}

template <class T, int W> LOOM_FORCE_INLINE T sum_lanes(const vec<T, W>& v) {
  if constexpr (W == 1) {
    return v[0];
  } else {
    vec<T, W / 2> lo, hi;
    __builtin_memcpy(&lo, &v, sizeof lo);
    __builtin_memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof lo, sizeof hi);
    return sum_lanes<T, W / 2>(lo + hi);
  }
}

/// Σ of n values in W lanes: four registers of partial sums, then two, then one, then a scalar
/// tail. The rounding depends on the lane width.
template <int W, class T, class V> LOOM_FORCE_INLINE T dot_lanes(const V& v, std::int64_t n) {
  using vt = vec<T, W>;
  vt a0{}, a1{}, a2{}, a3{};
  std::int64_t q = 0;
  for (; q + 4 * W <= n; q += 4 * W) {
    a0 += v.template load<W, false>(q);
    a1 += v.template load<W, false>(q + W);
    a2 += v.template load<W, false>(q + 2 * W);
    a3 += v.template load<W, false>(q + 3 * W);
  }
  if (q + 2 * W <= n) {
    a0 += v.template load<W, false>(q);
    a1 += v.template load<W, false>(q + W);
    q += 2 * W;
  }
  if (q + W <= n) {
    a2 += v.template load<W, false>(q);
    q += W;
  }
  T r = sum_lanes<T, W>((a0 + a1) + (a2 + a3));
  for (; q < n; ++q) r += v.template at<false>(q);
  return r;
}

/// Σ of n values in the target's lanes; rows under 64 values in 32-byte lanes at most.
template <class T, class V> LOOM_FORCE_INLINE T dot_native(const V& v, std::int64_t n) {
  if constexpr (short_width<T> < width<T>) {
    if (n >= 64) return dot_lanes<width<T>, T>(v, n);
  }
  constexpr int W = short_width<T>;
  if (n < W) {
    T r = T(0);
    for (std::int64_t q = 0; q < n; ++q) r += v.template at<false>(q);
    return r;
  }
  return dot_lanes<W, T>(v, n);
}

/// Σ of n values in `fixed_lanes` partial sums whatever the target: index q goes to partial sum
/// q mod 8, which are then added as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)); no
/// multiply is fused into an add. The same bits with SSE2, AVX or AVX-512, with or without FMA.
template <class T, class V> LOOM_FORCE_INLINE T dot_fixed(const V& v, std::int64_t n) {
  constexpr int W = width<T> < fixed_lanes ? width<T> : fixed_lanes;
  constexpr int regs = fixed_lanes / W;
  using vt = vec<T, W>;
  vt acc[regs] = {};
  std::int64_t q = 0;
  for (; q + fixed_lanes <= n; q += fixed_lanes)
    for (int g = 0; g < regs; ++g) acc[g] = acc[g] + v.template load<W, true>(q + g * W);
  T s[fixed_lanes];
  for (int g = 0; g < regs; ++g)
    for (int l = 0; l < W; ++l) s[g * W + l] = acc[g][l];
  for (int t = 0; q < n; ++q, ++t) s[t] = s[t] + v.template at<true>(q);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/// reduce(x) on the vector path; `fixed` under loom::set_deterministic(true).
template <class X> LOOM_FORCE_INLINE auto dot(const X& x, bool fixed) {
  using T = typename traits<X>::value_type;
  const std::int64_t n = traits<X>::count(x);
  if (n <= 0) return T(0);
  count_work<X>(n);
  const auto v = traits<X>::view(x, traits<X>::first(x));
  return fixed ? dot_fixed<T>(v, n) : dot_native<T>(v, n);
}

/// p[0, n) = 0: a short row in registers of zeros (a call to memset costs more than its
/// stores), a long one by memset (faster than a loop of stores on blocks of kilobytes).
template <class T> LOOM_FORCE_INLINE void zero(T* p, std::int64_t n) {
  if (n * static_cast<std::int64_t>(sizeof(T)) >= 2048) {
    std::fill(p, p + n, T(0));
  } else if constexpr (std::is_floating_point_v<T>) {
    constexpr int W = width<T>;
    std::int64_t q = 0;
    for (; q + W <= n; q += W) lanes::store<W>(p + q, vec<T, W>{});
    for (; q < n; ++q) p[q] = T(0);
  } else {
    for (std::int64_t q = 0; q < n; ++q) p[q] = T(0);
  }
}

/// row[i] (+)= the value of x at i, over x's range: Store writes, otherwise adds (the
/// dense output's `vals[off] += value`, each cell's own order of operations unchanged).
template <bool Store, class X, class T>
LOOM_FORCE_INLINE std::int64_t write(T* row, const X& x, bool exact) {
  const std::int64_t n = traits<X>::count(x);
  if (n <= 0) return 0;
  count_work<X>(n);
  const std::int64_t at = traits<X>::first(x);
  const auto v = traits<X>::view(x, at);
  T* const out = row + at;
  auto run = [&](auto exact_c) {
    constexpr bool E = decltype(exact_c)::value;
    constexpr int W = width<T>;
    std::int64_t q = 0;
    auto one = [&](std::int64_t p) {
      auto y = v.template load<W, E>(p);
      if constexpr (!Store) y = lanes::load<W>(out + p) + y;
      lanes::store<W>(out + p, y);
    };
    auto scalar = [&](std::int64_t p) {
      out[p] = Store ? v.template at<E>(p) : out[p] + v.template at<E>(p);
    };
    for (; q + 2 * W <= n; q += 2 * W) {
      one(q);
      one(q + W);
    }
    for (; q + W <= n; q += W) one(q);
    for (; q < n; ++q) scalar(q);
  };
  if (exact)
    run(std::true_type{});
  else
    run(std::false_type{});
  return n;
}

}  // namespace lanes
}  // namespace loom::stream

#endif  // LOOM_STREAM_LANES_HPP
