// Defines what a mapped level does outside the loops (format/mapping/): the folding of a loop's
// guards into bounds, the validation walk of a tensor built from arrays (walk_level) and the
// assembly of a level from sorted entries (assemble_level); loom::mapping::mapped_level
// delegates to them.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_MAPPED_LEVEL_BUILD_HPP
#define LOOM_FORMAT_MAPPING_MAPPED_LEVEL_BUILD_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/format/mapping/hash_map.hpp>
#include <loom/format/mapping/index_expr.hpp>
#include <loom/format/mapping/loops.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom::mapping {

namespace detail {

// Folds a guard on the loop's own index into a lower (kind 'L') or upper ('H') bound.
template <class Self, class G> struct fold_guard {
  static_assert(sizeof(G) == 0,
                "loom::mapping::range: a guard must compare the loop's own index with an "
                "expression of outer indices, e.g. var(j) <= var(i)");
};
template <class Self, char Op, class X>
  requires(!std::is_same_v<X, var_node<Self>>)
struct fold_guard<Self, guard<Op, var_node<Self>, X>> {
  static constexpr char kind = (Op == '<' || Op == 'l') ? 'H' : 'L';
  using bound = std::conditional_t<Op == 'l' || Op == '>', bin<'+', X, lit<1>>, X>;
};
template <class Self, char Op, class X>
  requires(!std::is_same_v<X, var_node<Self>>)
struct fold_guard<Self, guard<Op, X, var_node<Self>>> {
  // x < j is j > x, x <= j is j >= x, ...
  static constexpr char kind = (Op == '<' || Op == 'l') ? 'L' : 'H';
  using bound = std::conditional_t<Op == '<' || Op == 'g', bin<'+', X, lit<1>>, X>;
};

template <class Self, class Acc, class Guards, char Kind> struct fold_bounds {
  using type = Acc;
};
template <class Self, class Acc, class G, class... Gs, char Kind>
struct fold_bounds<Self, Acc, mp_list<G, Gs...>, Kind> {
  using f = fold_guard<Self, G>;
  using next = std::conditional_t<f::kind != Kind, Acc,
                                  bin<Kind == 'L' ? 'M' : 'm', Acc, typename f::bound>>;
  using type = typename fold_bounds<Self, next, mp_list<Gs...>, Kind>::type;
};

template <class E> using arrays_t = typename arrays_of<E>::type;

// X of a canonical segment bound Pos(X) : Pos(X + 1); void otherwise.
template <class Lo, class Hi> struct canonical_segment {
  using pos_array = void;
};
template <class P, class X> struct canonical_segment<load<P, X>, load<P, bin<'+', X, lit<1>>>> {
  using pos_array = P;
  using parent = X;
};
template <class P>
struct canonical_segment<load<P, lit<0>>, load<P, lit<1>>> {  // the root: pos(0) : pos(1)
  using pos_array = P;
  using parent = lit<0>;
};

struct no_loop {
  using index = void;
};
template <class Loops, std::size_t K> struct loop_above {
  using type = boost::mp11::mp_at_c<Loops, K - 1>;
  using index = typename type::index;
};
template <class Loops> struct loop_above<Loops, 0> : no_loop {};

template <class Loop> struct array_of_loop {
  using type = void;
};
template <class I, class Slice, bool U> struct array_of_loop<each_loop<I, Slice, U>> {
  using type = typename Slice::array_type;
};
template <class I, class Table> struct array_of_loop<hash_loop<I, Table>> {
  using type = typename Table::map_type;
};

// X of a canonical singleton segment crd(pos(x) : pos(x) + 1) (COO's column below its rows)
template <class Lo, class Hi> struct singleton_segment : std::false_type {};
template <class X>
struct singleton_segment<pos_node<X>, bin<'+', pos_node<X>, lit<1>>> : std::true_type {};

template <class Arr>
concept hash_map_kind = requires { Arr::is_hash_map; };

template <class Loops, std::size_t K>
inline constexpr bool above_is_non_unique = [] {
  if constexpr (K == 0)
    return false;
  else
    return !boost::mp11::mp_at_c<Loops, K - 1>::unique;
}();

/// The parents a level is walked under when a tensor is validated: positions 0..count-1, or
/// explicit runs of positions below a non-unique loop.
struct parent_runs {
  std::int64_t count = 1;
  std::vector<level_range> runs;
  std::int64_t size() const {
    return runs.empty() ? count : static_cast<std::int64_t>(runs.size());
  }
  level_range at(std::int64_t k) const {
    return runs.empty() ? level_range{k, k + 1} : runs[static_cast<std::size_t>(k)];
  }
};

/// Walks every coordinate of level L under every parent (run), calling f(up, index, position);
/// throws when a segment or table leaves its array, coordinates are out of order or outside the
/// extent, or a key is not where the hash function puts it. Returns the next level's parents.
template <class L, bool Owning, class F>
parent_runs walk_level(const typename L::template storage<Owning>& st, const parent_runs& parents,
                       const std::string& who, std::size_t mode, F&& f) {
  using loop = typename L::loop;
  constexpr bool pair_keys = L::pair_keys, is_range = L::is_range, is_hash = L::is_hash;
  std::int64_t count = 0;
  detail::parent_runs next;
  const auto fail = [&](const std::string& what) { throw shape_error(who + ": " + what); };
  if constexpr (pair_keys) {  // one pass over the flat map: each key names its parent
    const auto& map = L::own_array(st);
    const auto size = static_cast<std::int64_t>(map.size());
    if ((size & (size - 1)) != 0)
      fail("the hash map of mode " + std::to_string(mode) + " has " + std::to_string(size) +
           " slots, not a power of two (build it with loom::mapping::hash_table)");
    if (!parents.runs.empty()) fail("a map keyed by pairs cannot sit below a non-unique loop");
    const std::int64_t e = std::max<std::int64_t>(st.extent, 1);
    map.sorted->tables.emplace_back(0, size);
    for (std::int64_t s = 0; s < size; ++s) {
      const auto key = static_cast<std::int64_t>(map.keys[static_cast<std::size_t>(s)]);
      if (key == detail::empty_key) continue;
      const std::int64_t up = key / e, i = key % e;
      if (key < 0 || st.extent == 0 || up >= parents.count)
        fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) +
             " names the pair (" + std::to_string(up) + ", " + std::to_string(i) +
             "), outside the " + std::to_string(parents.count) + " parent positions x extent " +
             std::to_string(st.extent) + " (a pair is stored as parent * extent + coordinate)");
      const auto cur = L::template iterate<search_strategy::linear>(st, up, up + 1);
      const level_range r = cur.locate(i);
      const level_range mine =
          cur.at(i, static_cast<std::int64_t>(map.vals[static_cast<std::size_t>(s)]));
      if (r.begin != mine.begin || r.empty())
        fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) +
             " is not found where the hash function puts it (a duplicate, or a table not "
             "built by loom::mapping::hash_table)");
      if (mine.begin < 0)
        fail("the pair (" + std::to_string(up) + ", " + std::to_string(i) + ") of mode " +
             std::to_string(mode) + " maps to the negative offset " + std::to_string(mine.begin));
      f(up, i, mine.begin);
      count = std::max(count, mine.begin + 1);
    }
    next.count = count;
    return next;
  }
  for (std::int64_t k = 0; k < parents.size(); ++k) {
    const level_range run = parents.at(k);
    const std::int64_t up = run.begin;
    if constexpr (!is_range) {
      const auto size = static_cast<std::int64_t>(L::own_array(st).size());
      const auto [lo, hi] = L::bounds(st, up, run.end);
      if (lo < 0 || hi < lo || hi > size)
        fail("the " + std::string(is_hash ? "table" : "segment") + " [" + std::to_string(lo) +
             ", " + std::to_string(hi) + ") of mode " + std::to_string(mode) +
             " under parent position " + std::to_string(up) + " is not a range inside its " +
             (is_hash ? "hash map of " : "index array of ") + std::to_string(size) + " entries");
      if constexpr (is_hash) {
        const std::int64_t cap = hi - lo;
        if ((cap & (cap - 1)) != 0)
          fail("the table [" + std::to_string(lo) + ", " + std::to_string(hi) + ") of mode " +
               std::to_string(mode) + " under parent position " + std::to_string(up) + " has " +
               std::to_string(cap) +
               " slots, not a power of two (build it with loom::mapping::hash_table)");
        L::own_array(st).sorted->tables.emplace_back(lo, hi);
        const auto& map = L::own_array(st);
        const auto cur = L::template iterate<search_strategy::linear>(st, up, run.end);
        for (std::int64_t s = lo; s < hi; ++s) {
          const auto key = static_cast<std::int64_t>(map.keys[static_cast<std::size_t>(s)]);
          if (key == detail::empty_key) continue;
          if (key < 0 || key >= st.extent)
            fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) + " (extent " +
                 std::to_string(st.extent) + ") under parent position " + std::to_string(up) +
                 " is outside the extent");
          const level_range r = cur.locate(key);
          const level_range mine =
              cur.at(key, static_cast<std::int64_t>(map.vals[static_cast<std::size_t>(s)]));
          if (r.begin != mine.begin || r.empty())
            fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) +
                 " under parent position " + std::to_string(up) +
                 " is not found where the hash function puts it (a duplicate, or a table not "
                 "built by loom::mapping::hash_table)");
          if (mine.begin < 0)
            fail("key " + std::to_string(key) + " of mode " + std::to_string(mode) +
                 " under parent position " + std::to_string(up) + " maps to the negative offset " +
                 std::to_string(mine.begin));
          f(up, key, mine.begin);
          count = std::max(count, mine.begin + 1);
        }
        continue;
      }
    }
    if constexpr (!is_hash) {
      auto cur = L::template iterate<search_strategy::linear>(st, up, run.end);
      std::int64_t last = -1;
      for (; cur.valid(); cur.next()) {
        const std::int64_t i = cur.index();
        const bool out_of_order = loop::unique ? i <= last : i < last;
        if (i < 0 || i >= st.extent || out_of_order) {
          fail("coordinate " + std::to_string(i) + " of mode " + std::to_string(mode) +
               " (extent " + std::to_string(st.extent) + ") under parent position " +
               std::to_string(up) +
               (out_of_order
                    ? (loop::unique ? " is not strictly ascending (the loop is unique and sorted)"
                                    : " is not ascending (the loop is sorted)")
                    : " is outside the extent"));
        }
        last = i;
        const level_range r = cur.children();
        if (r.begin < 0)
          fail("coordinate " + std::to_string(i) + " of mode " + std::to_string(mode) +
               " under parent position " + std::to_string(up) + " maps to the negative offset " +
               std::to_string(r.begin));
        f(up, i, r.begin);
        if constexpr (!loop::unique) next.runs.push_back(r);
        count = std::max(count, r.end);
      }
    }
  }
  next.count = count;
  return next;
}

/// Builds level L from sorted entries: a range checks each entry lies in its bounds and places
/// it at its offset; a canonical segment crd(pos(x) : pos(x + 1)) is built like a compressed
/// level (one position per entry when not unique), a singleton crd(pos(x) : pos(x) + 1) holds
/// one coordinate per parent position, and a hash map (whole, or canonical tables
/// H.table(s(x), s(x + 1))) gets one table per parent with positions numbered in key order.
template <class L>
std::int64_t assemble_level(typename L::template storage<true>& st, const level_build& in,
                            std::span<std::int64_t> position) {
  using Def = typename L::definition;
  using self = typename L::self;
  using loop = typename L::loop;
  using loop_array = typename L::loop_array;
  using array_list = typename L::array_list;
  using position_expr = typename L::position_expr;
  constexpr bool pair_keys = L::pair_keys, is_range = L::is_range, is_hash = L::is_hash,
                 whole_map = L::whole_map;
  st.extent = in.extent;
  const std::string who = "loom::mapping " + std::string(Def::name);
  if constexpr (is_range) {
    if constexpr (!boost::mp11::mp_empty<array_list>::value) {
      throw shape_error(who + ": loop " + std::string(self::name) +
                        " reads physical arrays; build the tensor from its arrays");
    } else {
      for (std::size_t e = 0; e < in.coord.size(); ++e) {
        const auto cur =
            L::template iterate<search_strategy::linear>(st, in.parent[e], in.parent[e] + 1);
        const level_range r = cur.locate(in.coord[e]);
        if (r.empty())
          throw shape_error(who + ": an entry with coordinate " + std::to_string(in.coord[e]) +
                            " in mode " + std::to_string(in.mode) + " (extent " +
                            std::to_string(in.extent) + ") under parent position " +
                            std::to_string(in.parent[e]) + " lies outside the stored region " +
                            std::string(self::name) + " in " + L::bounds_text());
        position[e] = r.begin;
      }
      return L::walk(st, detail::parent_runs{in.parents, {}}, who, in.mode, [](auto...) {}).count;
    }
  } else {
    using canon = detail::canonical_segment<typename loop::lo, typename loop::hi>;
    constexpr bool singleton =
        detail::singleton_segment<typename loop::lo, typename loop::hi>::value;
    constexpr bool root = [] {
      if constexpr (L::whole_map)
        return true;
      else if constexpr (requires { typename canon::parent; })
        return std::is_same_v<typename canon::parent, lit<0>>;
      else
        return false;
    }();
    constexpr bool buildable =
        std::is_same_v<position_expr, pos_node<self>> &&
        (whole_map || singleton || !std::is_void_v<typename canon::pos_array>)&&(!singleton ||
                                                                                 !is_hash);
    if constexpr (!buildable) {
      throw shape_error(who + ": loop " + std::string(self::name) +
                        " is not of the form crd(pos(x) : pos(x + 1)), crd(pos(x) : pos(x) + 1) "
                        "or a hash map's table with values at its position; build the tensor "
                        "from its arrays");
    } else {
      if (in.extent > 0)
        loom::detail::check_fits<typename loop_array::value_type>(
            in.extent - 1, "largest coordinate of mode " + std::to_string(in.mode));
      const std::int64_t segments = root ? 1 : in.parents;
      // positions: per distinct (parent, coordinate), or per entry when not unique
      std::vector<std::int64_t> first(static_cast<std::size_t>(segments) + 1, 0);
      std::vector<std::int64_t> coords;
      for (std::size_t e = 0; e < in.coord.size(); ++e) {
        const bool fresh = !loop::unique || e == 0 || in.parent[e] != in.parent[e - 1] ||
                           in.coord[e] != in.coord[e - 1];
        if (fresh) {
          coords.push_back(in.coord[e]);
          ++first[root ? 1 : static_cast<std::size_t>(in.parent[e]) + 1];
        }
        position[e] = static_cast<std::int64_t>(coords.size()) - 1;
      }
      for (std::size_t p = 1; p < first.size(); ++p) first[p] += first[p - 1];
      if constexpr (pair_keys) {  // one flat table: key parent * extent + coordinate
        auto& map = std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
        if (in.extent > 0 && in.parents > std::numeric_limits<std::int64_t>::max() / in.extent)
          throw shape_error(who + ": " + std::to_string(in.parents) + " parent positions x " +
                            "extent " + std::to_string(in.extent) + " of mode " +
                            std::to_string(in.mode) + " overflow a 64-bit pair key");
        std::vector<std::pair<std::int64_t, std::int64_t>> table;
        table.reserve(in.coord.size());
        for (std::size_t e = 0; e < in.coord.size(); ++e)
          table.emplace_back(in.parent[e] * in.extent + in.coord[e], position[e]);
        auto h = hash_table<typename loop_array::key_type, typename loop_array::mapped_type>::from(
            table);
        map.sorted->tables.emplace_back(0, static_cast<std::int64_t>(h.keys.size()));
        map.keys = std::move(h.keys);
        map.vals = std::move(h.vals);
      } else if constexpr (is_hash) {
        auto& map = std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
        hash_table<typename loop_array::key_type, typename loop_array::mapped_type> h;
        std::vector<std::int64_t> slot_starts;
        std::vector<std::pair<std::int64_t, std::int64_t>> table;
        for (std::int64_t p = 0; p < segments; ++p) {
          table.clear();
          for (std::int64_t q = first[static_cast<std::size_t>(p)];
               q < first[static_cast<std::size_t>(p) + 1]; ++q)
            table.emplace_back(coords[static_cast<std::size_t>(q)], q);
          slot_starts.push_back(h.append(table));
          map.sorted->tables.emplace_back(slot_starts.back(),
                                          static_cast<std::int64_t>(h.keys.size()));
        }
        slot_starts.push_back(static_cast<std::int64_t>(h.keys.size()));
        map.keys = std::move(h.keys);
        map.vals = std::move(h.vals);
        if constexpr (!whole_map) {
          using slot_array = typename canon::pos_array;
          auto& slots = std::get<boost::mp11::mp_find<array_list, slot_array>::value>(st.arrays);
          slots.assign(slot_starts.begin(), slot_starts.end());
        }
      } else {
        auto& crd = std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
        using C = typename loop_array::value_type;
        crd.assign(coords.size(), C(0));
        for (std::size_t q = 0; q < coords.size(); ++q) crd[q] = static_cast<C>(coords[q]);
        if constexpr (singleton) {
          if (static_cast<std::int64_t>(coords.size()) != in.parents)
            throw shape_error(who + ": loop " + std::string(self::name) +
                              " holds one coordinate per parent position, but " +
                              std::to_string(coords.size()) + " entries have " +
                              std::to_string(in.parents) + " parents");
        } else {
          using pos_array = typename canon::pos_array;
          using Pp = typename pos_array::value_type;
          auto& pos = std::get<boost::mp11::mp_find<array_list, pos_array>::value>(st.arrays);
          loom::detail::check_fits<Pp>(static_cast<std::int64_t>(coords.size()),
                                       "number of positions");
          pos.assign(first.size(), Pp(0));
          for (std::size_t p = 0; p < first.size(); ++p) pos[p] = static_cast<Pp>(first[p]);
        }
      }
      return static_cast<std::int64_t>(coords.size());
    }
  }
}

}  // namespace detail
}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_MAPPED_LEVEL_BUILD_HPP
