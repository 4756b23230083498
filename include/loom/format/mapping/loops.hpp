// Defines the loops of a storage mapping: `range(i, lo, hi, guards...)` over integers,
// `each(j, crd.slice(lo, hi)[, unique])` over a sorted index segment, `hashed(i, H)` over the
// keys of a hash map, and `values(e)`, the value array's offset (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_LOOPS_HPP
#define LOOM_FORMAT_MAPPING_LOOPS_HPP

#include <loom/core/index.hpp>
#include <loom/format/mapping/hash_map.hpp>
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
template <class I, class Lo, class Hi, class... Gs> struct range_loop {
  using index = I;
  using lo = Lo;
  using hi = Hi;
  using guards = boost::mp11::mp_list<Gs...>;
  static constexpr bool is_range = true, is_hash = false, unique = true, ordered = true;
};

/// sum(<I_pos, I> in Arr(Lo : Hi)) { [@unique] I -> ... }: the stored coordinates, ascending.
/// Unique: one iteration per stored position. Not unique (COO rows): a coordinate may repeat
/// in a run of positions, which the loop emits once, handing the whole run to the loop below.
template <class I, class Slice, bool Unique = true> struct each_loop {
  using index = I;
  using array_type = typename Slice::array_type;
  using lo = typename Slice::lo;
  using hi = typename Slice::hi;
  using guards = boost::mp11::mp_list<>;
  static constexpr bool is_range = false, is_hash = false, unique = Unique, ordered = true;
};

/// sum(<I, I_pos> in H) { @unique I -> ... }: the keys of a hash map, each once, in no order
/// (`ordered` is false: iterating them in key order sorts them, once, on demand), located in
/// O(1); I_pos is the position the key maps to.
/// With `H.pairs()`, one flat map keyed by (parent position, I) for the whole tensor (a DOK).
template <class I, class Table> struct hash_loop {
  using index = I;
  using array_type = typename Table::map_type;
  using lo = typename Table::lo;
  using hi = typename Table::hi;
  using guards = boost::mp11::mp_list<>;
  static constexpr bool is_range = false, is_hash = true, unique = true, ordered = false;
  static constexpr bool pair_keys = requires { Table::pair_keys; };
};

/// The value of an entry: `vals(E)`, E the offset into the tensor's value array.
template <class E> struct values_at {
  using offset = E;
};

/// `range(i, 0_c, extent, var(j) <= var(i))`: i ranges over [lo, hi) where every guard holds.
template <index_variable I, node Lo, node Hi, class... Gs>
constexpr range_loop<std::remove_cvref_t<I>, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>,
                     Gs...>
range(I, Lo, Hi, Gs...) {
  return {};
}

/// `each(j, crd.slice(pos(i), pos(i) + 1_c), unique)`: j is each stored coordinate of the
/// sorted segment. Without `unique` the coordinates may repeat (COO's row array): F3 does not
/// apply, so the loop emits each coordinate once and the loop below walks the whole run of
/// positions holding it (their entries are accumulated into one row).
template <index_variable I, class Slice, class... Annotations>
constexpr each_loop<std::remove_cvref_t<I>, Slice, (std::is_same_v<Annotations, unique_t> || ...)>
each(I, Slice, Annotations...) {
  static_assert(((std::is_same_v<Annotations, unique_t>)&&...),
                "loom::mapping::each: the only annotation of a segment is `unique`");
  return {};
}

/// `hashed(i, H)`: i is each key of hash map H (a whole map, at the root); `hashed(j,
/// H.table(slot(pos(i)), slot(pos(i) + 1_c)))`: each key of the parent's table (a trie).
template <index_variable I, fixed_string Name, class Key, class Val>
constexpr hash_loop<std::remove_cvref_t<I>, table_of<hash_map<Name, Key, Val>, lit<0>, whole_table>>
hashed(I, hash_map<Name, Key, Val>) {
  return {};
}
template <index_variable I, class H, class Lo, class Hi>
constexpr hash_loop<std::remove_cvref_t<I>, table_of<H, Lo, Hi>> hashed(I, table_of<H, Lo, Hi>) {
  return {};
}
/// `hashed(j, H.pairs())`: each j stored with the parent position in one flat map keyed by
/// `parent * extent + j` (STOREL's `sum(<<i,j>,v> in H)`, a dictionary of keys).
template <index_variable I, class H>
constexpr hash_loop<std::remove_cvref_t<I>, pair_table<H>> hashed(I, pair_table<H>) {
  return {};
}

/// `values(var(i) * (var(i) + 1_c) / 2_c + var(j))`: where the entry's value is stored.
template <node E> constexpr values_at<std::remove_cvref_t<E>> values(E) { return {}; }

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_LOOPS_HPP
