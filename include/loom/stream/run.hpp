// Defines the run loops that drive a stream tree into a destination: a dense array, or a
// coordinate sink that assembles a sparse output (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_RUN_HPP
#define LOOM_STREAM_RUN_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/stream/combinators.hpp>
#include <loom/stream/concepts.hpp>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace loom::stream {

// The loop template of Etch (notes §5.3) specialised by stream kind: the δ step is `next()`,
// which always-ready levels turn into `++position`, so a compressed level becomes a plain
// counted loop and a dense level a `for`.

/// reduce with a flag telling whether any value was emitted (sparse outputs skip empty sums).
template <class X>
LOOM_FORCE_INLINE auto reduce_touched(const X& x) {
  using leaf = leaf_t<X>;
  if constexpr (!is_stream_v<X>) {
    return std::pair<leaf, bool>{x, true};
  } else {
    leaf acc = semiring_traits<leaf>::zero();
    bool touched = false;
    X s = x;
    while (s.valid()) {
      if (s.ready()) {
        if constexpr (is_stream_v<decltype(s.value())>) {
          auto [v, t] = reduce_touched(s.value());
          if (t) {
            acc = semiring_traits<leaf>::add(acc, v);
            touched = true;
          }
        } else {
          acc = semiring_traits<leaf>::add(acc, s.value());
          touched = true;
        }
      }
      s.next();
    }
    return std::pair<leaf, bool>{acc, touched};
  }
}

/// Accumulates a stream into a dense array: `vals[off + Σ index·stride[depth]] += value`.
template <class T, class S>
LOOM_FORCE_INLINE void run_dense(T* vals, const std::int64_t* strides, const S& s,
                                 std::int64_t off) {
  if constexpr (!is_stream_v<S>) {
    vals[off] = semiring_traits<T>::add(vals[off], static_cast<T>(s));
  } else if constexpr (reducible<S>()) {
    vals[off] = semiring_traits<T>::add(vals[off], static_cast<T>(reduce(s)));  // local sum
  } else {
    S st = s;
    while (st.valid()) {
      if (st.ready()) {
        if constexpr (S::contracted) run_dense(vals, strides, st.value(), off);
        else run_dense(vals, strides, st.value(), off + st.index() * strides[S::depth]);
      }
      st.next();
    }
  }
}

/// Collects (coordinates, value) entries of a sparse output, coordinates in the output's
/// storage order; `sorted_unique` says whether they arrive in order (append) or not (workspace).
template <class T, std::size_t N>
struct coordinate_sink {
  std::vector<std::array<std::int64_t, N>> crd;
  std::vector<T> vals;
  std::array<std::int64_t, 32> at_depth{};      // current index of each free depth
  std::array<std::size_t, N> depth_of_level{};  // output level k is iterated at this depth

  LOOM_FORCE_INLINE void push(const T& v) {
    std::array<std::int64_t, N> c{};
    for (std::size_t k = 0; k < N; ++k) c[k] = at_depth[depth_of_level[k]];
    crd.push_back(c);
    vals.push_back(v);
  }
};

/// Drives a stream into a coordinate sink.
template <class T, std::size_t N, class S>
LOOM_FORCE_INLINE void run_sparse(coordinate_sink<T, N>& sink, const S& s) {
  if constexpr (!is_stream_v<S>) {
    sink.push(static_cast<T>(s));
  } else if constexpr (reducible<S>()) {
    auto [v, touched] = reduce_touched(s);
    if (touched) sink.push(static_cast<T>(v));
  } else {
    S st = s;
    while (st.valid()) {
      if (st.ready()) {
        if constexpr (!S::contracted) sink.at_depth[S::depth] = st.index();
        run_sparse(sink, st.value());
      }
      st.next();
    }
  }
}

}  // namespace loom::stream

#endif  // LOOM_STREAM_RUN_HPP
