// Defines the streams over stored levels: dense, coordinate (compressed, singleton) and the
// strided stream of all-dense tensors, which may be walked in any mode order (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_LEVEL_STREAMS_HPP
#define LOOM_STREAM_LEVEL_STREAMS_HPP

#include <loom/core/config.hpp>
#include <loom/stream/concepts.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>

namespace loom::stream {

/// Static description of one access under a loop order: which depth each level iterates.
template <class Tensor, class Order, class... Is>
struct access_layout {
  using tensor_type = std::remove_const_t<Tensor>;
  using format = typename tensor_type::format_type;
  using value_type = typename tensor_type::value_type;
  static constexpr std::size_t order = format::order;
  /// depth_of_mode[m]: position in the loop order of the index used for mode m
  static constexpr std::array<std::size_t, order> depth_of_mode{
      boost::mp11::mp_find<Order, Is>::value...};
  static constexpr std::array<std::size_t, order> depth_of_level = [] {
    std::array<std::size_t, order> d{};
    for (std::size_t k = 0; k < order; ++k) d[k] = depth_of_mode[format::modes[k]];
    return d;
  }();
  /// modes sorted by depth: the walk order of the strided (all-dense) stream
  static constexpr std::array<std::size_t, order> modes_by_depth = [] {
    std::array<std::size_t, order> m{};
    for (std::size_t k = 0; k < order; ++k) m[k] = k;
    std::sort(m.begin(), m.end(),
              [](std::size_t a, std::size_t b) { return depth_of_mode[a] < depth_of_mode[b]; });
    return m;
  }();
  template <std::size_t K>
  using level = boost::mp11::mp_at_c<typename format::levels, K>;
};

template <class Layout, std::size_t K, skip_policy P>
struct coordinate_stream;
template <class Layout, std::size_t K>
struct dense_level_stream;

/// The stream of level K of a tensor below the parent position range [begin, end), or the value
/// at position `begin` past the last level.
template <class Layout, std::size_t K, skip_policy P = skip_policy::galloping>
LOOM_FORCE_INLINE auto make_level(const typename Layout::tensor_type* t, std::int64_t begin,
                                  std::int64_t end) {
  if constexpr (K == Layout::order) {
    (void)end;
    return t->values()[static_cast<std::size_t>(begin)];
  } else if constexpr (Layout::template level<K>::properties.full) {
    const std::int64_t n = t->template level<K>().extent;
    return dense_level_stream<Layout, K>{t, begin * n, 0, n};
  } else if constexpr (Layout::template level<K>::properties.segmented) {
    return coordinate_stream<Layout, K, P>{t, t->template level<K>().crd.data(), begin, end};
  } else {
    const auto& st = t->template level<K>();
    return coordinate_stream<Layout, K, P>{t, st.crd.data(), static_cast<std::int64_t>(st.pos[begin]),
                                           static_cast<std::int64_t>(st.pos[begin + 1])};
  }
}

// dense_level_stream<Layout, K>: index = position within the parent; always ready; locatable.
template <class Layout, std::size_t K>
struct dense_level_stream {
  static constexpr std::size_t depth = Layout::depth_of_level[K];
  static constexpr bool contracted = false, strict = true, full = true, locatable = true;
  const typename Layout::tensor_type* t = nullptr;
  std::int64_t base = 0, i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE auto value() const { return make_level<Layout, K + 1>(t, base + i, base + i + 1); }
  LOOM_FORCE_INLINE auto locate(std::int64_t j) const {
    return make_level<Layout, K + 1>(t, base + j, base + j + 1);
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = std::max(i, j + 1); }
  LOOM_FORCE_INLINE void next() { ++i; }
};

// coordinate_stream<Layout, K, P>: positions [p, end) of a compressed or singleton level.
// A non-unique level emits each run of equal coordinates once, its value spanning the run.
template <class Layout, std::size_t K, skip_policy P>
struct coordinate_stream {
  using level = typename Layout::template level<K>;
  using crd_type = typename level::crd_type;
  static constexpr bool unique = level::properties.unique;
  static constexpr std::size_t depth = Layout::depth_of_level[K];
  static constexpr bool contracted = false, strict = true, full = false, locatable = false;
  const typename Layout::tensor_type* t = nullptr;
  const crd_type* crd = nullptr;
  std::int64_t p = 0, end = 0;

  LOOM_FORCE_INLINE bool valid() const { return p < end; }
  LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE std::int64_t run_end() const {
    if constexpr (unique) {
      return p + 1;
    } else {
      std::int64_t q = p + 1;
      while (q < end && crd[q] == crd[p]) ++q;
      return q;
    }
  }
  LOOM_FORCE_INLINE auto value() const { return make_level<Layout, K + 1, P>(t, p, run_end()); }
  LOOM_FORCE_INLINE void next() { p = run_end(); }
  LOOM_FORCE_INLINE void seek(std::int64_t i) { p = find_first(i); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    if (i == std::numeric_limits<std::int64_t>::max()) p = end;
    else p = find_first(i + 1);
  }

 private:
  // first position q >= p with crd[q] >= i (or end)
  LOOM_FORCE_INLINE std::int64_t find_first(std::int64_t i) const {
    std::int64_t q = p;
    if (q >= end || crd[q] >= i) return q;
    if constexpr (P == skip_policy::linear) {
      while (q < end && crd[q] < i) ++q;
      return q;
    } else {
      std::int64_t lo = q + 1, hi = end;  // crd[q] < i; answer in [lo, hi]
      if constexpr (P == skip_policy::galloping) {
        std::int64_t step = 1;
        while (lo + step - 1 < end && crd[lo + step - 1] < i) {
          lo += step;
          step *= 2;
        }
        hi = std::min(end, lo + step - 1);
      }
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (crd[mid] < i) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
  }
};

// strided_stream<Layout, R>: the R-th mode (by depth) of an all-dense tensor, walked in any
// order by offset arithmetic, so dense operands never force a loop order (locate, not iterate).
template <class Layout, std::size_t R>
struct strided_stream;

template <class Layout, std::size_t R>
LOOM_FORCE_INLINE auto make_strided(const typename Layout::tensor_type* t, std::int64_t offset) {
  if constexpr (R == Layout::order) {
    return t->values()[static_cast<std::size_t>(offset)];
  } else {
    constexpr std::size_t mode = Layout::modes_by_depth[R];
    constexpr std::size_t level = Layout::format::level_of_mode[mode];
    std::int64_t stride = 1;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      ((Ks > level ? (stride *= t->template level<Ks>().extent) : 0), ...);
    }(std::make_index_sequence<Layout::order>{});
    return strided_stream<Layout, R>{t, offset, stride, 0, t->extent(mode)};
  }
}

template <class Layout, std::size_t R>
struct strided_stream {
  static constexpr std::size_t depth = Layout::depth_of_mode[Layout::modes_by_depth[R]];
  static constexpr bool contracted = false, strict = true, full = true, locatable = true;
  const typename Layout::tensor_type* t = nullptr;
  std::int64_t offset = 0, stride = 0, i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE auto value() const { return make_strided<Layout, R + 1>(t, offset + i * stride); }
  LOOM_FORCE_INLINE auto locate(std::int64_t j) const {
    return make_strided<Layout, R + 1>(t, offset + j * stride);
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = std::max(i, j + 1); }
  LOOM_FORCE_INLINE void next() { ++i; }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_LEVEL_STREAMS_HPP
