// Defines the loops of a storage mapping: `range(i, lo, hi, guards...)` over integers and
// `each(j, crd.slice(lo, hi), unique)` over a sorted index segment, and `values(e)`, the value
// array's offset (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_LOOPS_HPP
#define LOOM_FORMAT_MAPPING_LOOPS_HPP

#include <loom/core/index.hpp>
#include <loom/format/mapping/index_expr.hpp>

#include <boost/mp11/list.hpp>

#include <string>
#include <type_traits>

namespace loom::mapping {

/// `@unique`: no coordinate repeats within one segment (STOREL's annotation, a type property:
/// it lets the program's loop be the segment's loop, rule F3).
struct unique_t {};
inline constexpr unique_t unique{};

/// sum(<I, _> in Lo : Hi) with the guards Gs (`j <= i`), which are folded into the bounds.
template <class I, class Lo, class Hi, class... Gs>
struct range_loop {
  using index = I;
  using lo = Lo;
  using hi = Hi;
  using guards = boost::mp11::mp_list<Gs...>;
  static constexpr bool is_range = true;
};

/// sum(<I_pos, I> in Arr(Lo : Hi)) { @unique I -> ... }: one iteration per stored position.
template <class I, class Slice>
struct each_loop {
  using index = I;
  using array_type = typename Slice::array_type;
  using lo = typename Slice::lo;
  using hi = typename Slice::hi;
  using guards = boost::mp11::mp_list<>;
  static constexpr bool is_range = false;
};

/// The value of an entry: `vals(E)`, E the offset into the tensor's value array.
template <class E>
struct values_at {
  using offset = E;
};

/// `range(i, 0_c, extent, var(j) <= var(i))`: i ranges over [lo, hi) where every guard holds.
template <index_variable I, node Lo, node Hi, class... Gs>
constexpr range_loop<std::remove_cvref_t<I>, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>, Gs...>
range(I, Lo, Hi, Gs...) {
  return {};
}

/// `each(j, crd.slice(pos(i), pos(i) + 1_c ...), unique)`: j is each stored coordinate of the
/// sorted segment. Without `unique` (coordinates may repeat) no loop of a program may be fused
/// with it one-to-one (F3 needs @unique); such segments are rejected.
template <index_variable I, class Slice, class... Annotations>
constexpr each_loop<std::remove_cvref_t<I>, Slice> each(I, Slice, Annotations...) {
  static_assert((std::is_same_v<Annotations, unique_t> || ...),
                "loom::mapping::each: mark the segment `unique` (no coordinate repeats within a "
                "segment). A segment whose coordinates repeat cannot be fused with a program's "
                "loop (STOREL's F3 needs @unique); store it with a non-unique loom level instead");
  return {};
}

/// `values(var(i) * (var(i) + 1_c) / 2_c + var(j))`: where the entry's value is stored.
template <node E>
constexpr values_at<std::remove_cvref_t<E>> values(E) {
  return {};
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_LOOPS_HPP
