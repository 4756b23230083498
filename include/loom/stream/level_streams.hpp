// Defines the streams over stored levels: level_stream, which turns any level's cursor into
// an indexed stream, and the strided stream of all-dense tensors, which may be walked in any
// mode order (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_LEVEL_STREAMS_HPP
#define LOOM_STREAM_LEVEL_STREAMS_HPP

#include <loom/core/combinatorics.hpp>
#include <loom/core/config.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/format/levels/level.hpp>
#include <loom/stream/concepts.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom::stream {

/// Static description of one access under a loop order: which depth each level iterates.
template <class Tensor, class Order, class... Is> struct access_layout {
  using tensor_type = std::remove_const_t<Tensor>;
  using format = typename tensor_type::format_type;
  using value_type = typename tensor_type::value_type;
  static constexpr std::size_t order = format::order;
  /// depth_of_mode[m]: position in the loop order of the index used for mode m
  static constexpr std::array<std::size_t, order> depth_of_mode{
      boost::mp11::mp_find<Order, Is>::value...};
  static constexpr std::array<std::size_t, order> depth_of_level = [] {
    std::array<std::size_t, order> d{};
    for (std::size_t m = 0; m < order; ++m) d[m] = depth_of_mode[format::modes[m]];
    return d;
  }();
  /// modes sorted by depth: the walk order of the strided (all-dense) stream
  static constexpr std::array<std::size_t, order> modes_by_depth =
      loom::detail::positions_by_key(depth_of_mode);
  template <std::size_t K> using level = boost::mp11::mp_at_c<typename format::levels, K>;
};

template <class Layout, std::size_t K, search_strategy P> struct level_stream;

/// The stream of level K of a tensor below the parent position range [begin, end), or the value
/// at position `begin` past the last level. Every level, built-in or user-defined, goes through
/// its own customisation point `Level::iterate<P>(storage, begin, end)`, which yields a cursor.
template <class Layout, std::size_t K, search_strategy P = search_strategy::galloping>
LOOM_FORCE_INLINE auto make_level(const typename Layout::tensor_type* t, std::int64_t begin,
                                  std::int64_t end) {
  if constexpr (K == Layout::order) {
    (void)end;
    return t->values()[static_cast<std::size_t>(begin)];
  } else {
    using level = typename Layout::template level<K>;
    if constexpr (K == 0)  // the root: a moved-from tensor's empty pos is one test per kernel
      return level_stream<Layout, K, P>{
          t, loom::detail::iterate_or_empty<level, P>(t->template level<K>(), begin, end)};
    else
      return level_stream<Layout, K, P>{
          t, level::template iterate<P>(t->template level<K>(), begin, end)};
  }
}

template <class Layout, std::size_t K, search_strategy P>
using level_cursor_t = decltype(Layout::template level<K>::template iterate<P>(
    std::declval<const typename Layout::tensor_type&>().template level<K>(), std::int64_t{},
    std::int64_t{}));

// level_stream<Layout, K, P>: a level's cursor as an indexed stream. The cursor moves; this
// adds the stream's static facts (depth, strict, full, locatable) and builds the next level's
// stream from the cursor's child positions. Strict: a cursor emits each coordinate once.
template <class Layout, std::size_t K, search_strategy P>
struct level_stream : level_cursor_t<Layout, K, P> {
  using level = typename Layout::template level<K>;
  using cursor = level_cursor_t<Layout, K, P>;
  static constexpr std::size_t depth = Layout::depth_of_level[K];
  static constexpr bool contracted = false, strict = true, full = level::properties.full,
                        locatable = level::properties.random_access;
  // the last level holds the values' address, so that reading a value is one load, not three
  static constexpr bool last = K + 1 == Layout::order;
  using base_type = std::conditional_t<last, const typename Layout::value_type*,
                                       const typename Layout::tensor_type*>;
  base_type base_ = nullptr;

  level_stream() = default;
  LOOM_FORCE_INLINE level_stream(const typename Layout::tensor_type* t, const cursor& c)
      : cursor(c), base_(base_of(t)) {}

  LOOM_FORCE_INLINE bool ready() const {
    if constexpr (requires(const cursor& c) { c.ready(); })
      return cursor::ready();
    else
      return true;
  }
#ifdef LOOM_WORK_COUNTERS  // the cursor's moves, counted (core/work_counters.hpp)
  LOOM_FORCE_INLINE void next() {
    LOOM_COUNT_WORK(steps);
    cursor::next();
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    cursor::seek(j);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    cursor::seek_past(j);
  }
#endif
  LOOM_FORCE_INLINE auto value() const { return child(this->children()); }
  // whether coordinate j is stored (a product skips the absent ones instead of emitting zeros)
  LOOM_FORCE_INLINE bool contains(std::int64_t j) const
    requires(locatable)
  {
    LOOM_COUNT_WORK(probes);
    if constexpr (full)
      return true;
    else
      return !cursor::locate(j).empty();
  }
  // the value at coordinate j: the next level, or zero (an empty stream) when j is absent
  LOOM_FORCE_INLINE auto locate(std::int64_t j) const
    requires(locatable)
  {
    LOOM_COUNT_WORK(probes);
    const level_range r = cursor::locate(j);
    using V = decltype(child(r));
    if constexpr (!level::properties.full)
      if (r.empty()) return zero_of<V>();
    return child(r);
  }

 private:
  static LOOM_FORCE_INLINE base_type base_of(const typename Layout::tensor_type* t) {
    if constexpr (last)
      return t->values().data();
    else
      return t;
  }
  LOOM_FORCE_INLINE auto child(const level_range& r) const {
    if constexpr (last)
      return base_[r.begin];
    else
      return make_level<Layout, K + 1, P>(base_, r.begin, r.end);
  }
};

/// The streams of the built-in levels, by their historical names.
template <class Layout, std::size_t K, search_strategy P = search_strategy::galloping>
using coordinate_stream = level_stream<Layout, K, P>;
template <class Layout, std::size_t K>
using dense_level_stream = level_stream<Layout, K, search_strategy::galloping>;

// strided_stream<Layout, R>: the R-th mode (by depth) of an all-dense tensor, walked in any
// order by offset arithmetic, so dense operands never force a loop order (locate, not iterate).
template <class Layout, std::size_t R> struct strided_stream;

template <class Layout>
using strided_values_t =
    decltype(std::declval<const typename Layout::tensor_type&>().values().data());

// `vals` is t's values array, read once at the root and carried down by value (a value read
// through t would be a load of the tensor's array pointer per entry)
template <class Layout, std::size_t R>
LOOM_FORCE_INLINE auto make_strided(const typename Layout::tensor_type* t, std::int64_t offset,
                                    strided_values_t<Layout> vals) {
  if constexpr (R == Layout::order) {
    return vals[offset];
  } else {
    constexpr std::size_t mode = Layout::modes_by_depth[R];
    constexpr std::size_t level = Layout::format::level_of_mode[mode];
    std::int64_t stride = 1;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      ((Ks > level ? (stride *= t->template level<Ks>().extent) : 0), ...);
    }(std::make_index_sequence<Layout::order>{});
    return strided_stream<Layout, R>{t, vals, offset, stride, 0, t->extent(mode)};
  }
}

template <class Layout, std::size_t R>
LOOM_FORCE_INLINE auto make_strided(const typename Layout::tensor_type* t, std::int64_t offset) {
  return make_strided<Layout, R>(t, offset, t->values().data());
}

template <class Layout, std::size_t R> struct strided_stream {
  static constexpr std::size_t depth = Layout::depth_of_mode[Layout::modes_by_depth[R]];
  static constexpr bool contracted = false, strict = true, full = true, locatable = true;
  const typename Layout::tensor_type* t = nullptr;
  strided_values_t<Layout> vals = nullptr;
  std::int64_t offset = 0, stride = 0, i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE bool ready() const { return true; }
  LOOM_FORCE_INLINE auto value() const {
    return make_strided<Layout, R + 1>(t, offset + i * stride, vals);
  }
  LOOM_FORCE_INLINE auto locate(std::int64_t j) const {
    LOOM_COUNT_WORK(probes);
    return make_strided<Layout, R + 1>(t, offset + j * stride, vals);
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    i = std::max(i, j);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    LOOM_COUNT_WORK(seeks);
    i = std::max(i, j + 1);
  }
  LOOM_FORCE_INLINE void next() {
    LOOM_COUNT_WORK(steps);
    ++i;
  }
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_LEVEL_STREAMS_HPP
