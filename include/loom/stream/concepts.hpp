// Defines the indexed-stream vocabulary: the stream concept, depth of scalars, zero values,
// skip policies (stream/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_CONCEPTS_HPP
#define LOOM_STREAM_CONCEPTS_HPP

#include <loom/core/semiring.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/stream/skip.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace loom::stream {

/// An indexed stream level (Etch, notes §3.4): `valid()`, `index()` (valid only), `ready()`
/// (valid only), `value()` (ready only: a scalar or the next level's stream), `seek(i)` (to the
/// first state that may hold an index >= i), `seek_past(i)` (> i) and `next()` (the successor
/// δ = seek_past(index()) when ready, seek(index()) otherwise).
/// Static members: `depth` (position of its attribute in the loop order), `contracted` (its
/// index is `*`), `strict` (each index emitted at most once), `full` (every index of the
/// extent is emitted, always ready), `locatable` (has `locate(i)`: the value at i in O(1)).
/// **Laws**: index never decreases; a skip never overshoots a value it must keep; a skip to a
/// target at or beyond (index, ready) makes progress. A default-constructed stream is empty.
template <class S>
concept indexed_stream =
    std::default_initializable<S> && requires(S s, const S cs, std::int64_t i) {
      { S::depth } -> std::convertible_to<std::size_t>;
      { S::contracted } -> std::convertible_to<bool>;
      { cs.valid() } -> std::same_as<bool>;
      { cs.index() } -> std::convertible_to<std::int64_t>;
      { cs.ready() } -> std::same_as<bool>;
      cs.value();
      s.seek(i);
      s.seek_past(i);
      s.next();
    };

template <class X> inline constexpr bool is_stream_v = requires { std::remove_cvref_t<X>::depth; };

/// Depth of a value: its attribute's position, or "deeper than any attribute" for scalars.
inline constexpr std::size_t scalar_depth = std::numeric_limits<std::size_t>::max();
template <class X> constexpr std::size_t depth_of() {
  if constexpr (is_stream_v<X>)
    return std::remove_cvref_t<X>::depth;
  else
    return scalar_depth;
}
template <class X> constexpr bool is_contracted() {
  if constexpr (is_stream_v<X>)
    return std::remove_cvref_t<X>::contracted;
  else
    return false;
}
template <class X> constexpr bool is_full() {
  if constexpr (is_stream_v<X>)
    return std::remove_cvref_t<X>::full;
  else
    return false;
}

/// The scalar type at the leaves of a (nested) stream.
template <class X, bool = is_stream_v<X>> struct leaf_type {
  using type = X;
};
template <class X> struct leaf_type<X, true> {
  using type =
      typename leaf_type<std::remove_cvref_t<decltype(std::declval<const X&>().value())>>::type;
};
template <class X> using leaf_t = typename leaf_type<std::remove_cvref_t<X>>::type;

/// True when every level below (and including) X is contracted: it reduces to one scalar.
template <class X> constexpr bool reducible() {
  if constexpr (!is_stream_v<X>)
    return true;
  else if constexpr (!std::remove_cvref_t<X>::contracted)
    return false;
  else
    return reducible<decltype(std::declval<const X&>().value())>();
}

/// The additive identity of a value type: the empty stream, or the semiring's zero.
template <class X> constexpr X zero_of() {
  if constexpr (is_stream_v<X>)
    return X{};
  else
    return semiring_traits<X>::zero();
}

/// How a coordinate level moves to a target index (defined with the levels, format/).
using loom::search_strategy;

/// Runtime facts shared by the streams of one kernel: the extent of every attribute.
struct kernel_context {
  std::array<std::int64_t, skip::max_loops> extents{};  // by position in the loop order
  skip::codes skip = skip::default_codes;  // by loop: what skip::runtime intersections do
  bool sequential_sums = false;            // loom::deterministic(): no partial sums (lane_sum)
  /// by loop: every fiber the operands iterate there holds fewer than skip::gallop_ratio
  /// entries, so an adaptive intersection merges without comparing lengths per pair of fibers
  std::array<bool, skip::max_loops> short_fibers{};
};

}  // namespace loom::stream

#endif  // LOOM_STREAM_CONCEPTS_HPP
