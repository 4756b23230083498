// Defines loom::mapping::mapped_level<Def, K>: loop K of a storage mapping compiled into a loom
// level, so that programs over a mapped tensor run through the ordinary planner and streams,
// their loops fused with the mapping's (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP
#define LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP

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

}  // namespace detail

/// Loop K of mapping Def as a level. Its position (what the next loop, or the value array,
/// receives) is the loop's index for a range at the root, `up * N + i` for a deeper range, the
/// stored position for a segment, the mapped position for a hash map, and the `values(...)`
/// offset at the innermost loop.
template <class Def, std::size_t K> struct mapped_level {
  // Part 1: the loop's static facts, properties and storage ---------------------------------------
  using definition = Def;
  static constexpr std::size_t loop_number = K;
  using loops = typename Def::loops;
  using loop = boost::mp11::mp_at_c<loops, K>;
  using self = typename loop::index;
  static constexpr bool is_range = loop::is_range;
  static constexpr bool is_hash = loop::is_hash;
  // one flat map keyed by parent position * extent + coordinate (a DOK), not a table per parent
  static constexpr bool pair_keys = [] {
    if constexpr (is_hash)
      return loop::pair_keys;
    else
      return false;
  }();
  static constexpr bool is_last = K + 1 == boost::mp11::mp_size<loops>::value;
  // a non-unique loop above hands this loop a run of positions [begin, end)
  static constexpr bool under_runs = detail::above_is_non_unique<loops, K>;
  using up = typename detail::loop_above<loops, K>::index;
  // the loop above is a root range: its position is its index, so `var(i)` is readable here
  static constexpr bool up_is_index = K == 1 && boost::mp11::mp_front<loops>::is_range;
  using scope = detail::scope<self, up, is_range, up_is_index>;

  static_assert(loop::unique || !is_last,
                "loom::mapping::each: the innermost loop must be `unique` (an entry whose full "
                "coordinate repeats would need its values summed); merge duplicate entries "
                "before building the tensor");
  static_assert(!pair_keys || K > 0,
                "loom::mapping::hashed(j, H.pairs()): a map keyed by (parent, coordinate) pairs "
                "needs a loop above it, e.g. range(i, 0_c, extent)");
  static_assert(!under_runs || (!is_range && !is_hash),
                "loom::mapping: the loop below a non-unique segment must be a segment over the "
                "run of positions it receives, e.g. each(j, crd.slice(pos(i), pos(i) + 1_c))");

  using position_expr = typename boost::mp11::mp_cond<
      boost::mp11::mp_bool<is_last>, boost::mp11::mp_identity<typename Def::value_type::offset>,
      boost::mp11::mp_bool<!is_range>, boost::mp11::mp_identity<pos_node<self>>,
      boost::mp11::mp_bool<K == 0>, boost::mp11::mp_identity<var_node<self>>, boost::mp11::mp_true,
      boost::mp11::mp_identity<bin<'+', bin<'*', pos_node<up>, extent_node>, var_node<self>>>>::
      type;
  /// bounds after folding the guards (G: guard into bound)
  using lo_expr =
      typename detail::fold_bounds<self, typename loop::lo, typename loop::guards, 'L'>::type;
  using hi_expr =
      typename detail::fold_bounds<self, typename loop::hi, typename loop::guards, 'H'>::type;
  static constexpr bool whole_map = std::is_same_v<hi_expr, whole_table>;
  using loop_array = typename detail::array_of_loop<loop>::type;

  using array_list = boost::mp11::mp_unique<boost::mp11::mp_append<
      detail::arrays_t<lo_expr>, detail::arrays_t<hi_expr>, detail::arrays_t<position_expr>,
      boost::mp11::mp_if_c<is_range, mp_list<>, mp_list<loop_array>>>>;

  static_assert(detail::resolvable<scope, lo_expr>::value &&
                    detail::resolvable<scope, hi_expr>::value &&
                    detail::resolvable<scope, position_expr>::value,
                "loom::mapping: a loop may use its own index and position, the position of the "
                "loop directly above, and the index of that loop when it is a range at the root");

  static constexpr bool plain_range = is_range && std::is_same_v<typename loop::lo, lit<0>> &&
                                      std::is_same_v<typename loop::hi, extent_node> &&
                                      boost::mp11::mp_empty<typename loop::guards>::value;
  // a plain range holds every coordinate; all-plain mappings stay "sparse" for the planner,
  // since loom walks all-full formats by row-major strides, which a mapping need not follow
  static constexpr bool full = plain_range && !Def::all_plain;

  static constexpr level_properties properties{.ordered = loop::ordered,
                                               .unique = loop::unique,
                                               .full = full,
                                               .random_access = is_range || is_hash,
                                               .segmented = under_runs,
                                               .padded = is_range};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = Def::name;
  // a mapping stores one mode order: its guards and offsets cannot hold the entries permuted, so
  // a program that reads it against that order reads a copy in general levels
  // (plan/transposed_format.hpp)
  static constexpr bool permutable = false;

  template <bool Owning> struct array_storage {
    template <class Arr> struct pick {
      using type = level_array<typename Arr::value_type, Owning>;
    };
    template <detail::hash_map_kind Arr> struct pick<Arr> {
      using type = typename Arr::template storage<Owning>;
    };
    template <class Arr> using fn = typename pick<Arr>::type;
  };

  template <bool Owning> struct storage {
    std::int64_t extent = 0;  // of the mode this loop stores
    boost::mp11::mp_rename<boost::mp11::mp_transform_q<array_storage<Owning>, array_list>,
                           std::tuple>
        arrays;
  };

  template <class E, class St>
  static LOOM_FORCE_INLINE std::int64_t eval(const St& st, const detail::eval_env& env) {
    return detail::eval<scope, array_list, E>::template run(st, env);
  }
  template <class St> static LOOM_FORCE_INLINE const auto& own_array(const St& st) {
    return std::get<boost::mp11::mp_find<array_list, loop_array>::value>(st.arrays);
  }

  // Part 2: the cursors (range, segment, hash map) ------------------------------------------------

  /// Counted loop over [lo, hi) (guards folded); locate is the range test of rule T4.
  template <bool Owning> struct range_cursor {
    const storage<Owning>* st = nullptr;
    std::int64_t up = 0, lo = 0, i = 0, hi = 0;

    LOOM_FORCE_INLINE bool valid() const { return i < hi; }
    LOOM_FORCE_INLINE std::int64_t index() const { return i; }
    LOOM_FORCE_INLINE std::int64_t position(std::int64_t j) const {
      return eval<position_expr>(*st, {up, j, j, st->extent});
    }
    LOOM_FORCE_INLINE level_range children() const {
      const std::int64_t p = position(i);
      return {p, p + 1};
    }
    LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
      if (j < lo || j >= hi) return {};
      const std::int64_t p = position(j);
      return {p, p + 1};
    }
    LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
    LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
    LOOM_FORCE_INLINE void next() { ++i; }
  };

  /// The stored coordinates crd[lo, hi), ascending; skips search them by policy P. A
  /// non-unique segment emits each run of equal coordinates once, its children the run.
  template <search_strategy P, bool Owning> struct segment_cursor {
    using crd_type = typename loop_array::value_type;
    const storage<Owning>* st = nullptr;
    const crd_type* crd = nullptr;
    std::int64_t up = 0, p = 0, end = 0;

    LOOM_FORCE_INLINE bool valid() const { return p < end; }
    LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
    LOOM_FORCE_INLINE std::int64_t run_end() const {
      if constexpr (loop::unique) {
        return p + 1;
      } else {
        std::int64_t q = p + 1;
        while (q < end && crd[q] == crd[p]) ++q;
        return q;
      }
    }
    LOOM_FORCE_INLINE level_range children() const {
      if constexpr (std::is_same_v<position_expr, pos_node<self>>) {
        return {p, run_end()};
      } else {
        const std::int64_t q = eval<position_expr>(*st, {up, crd[p], p, st->extent});
        return {q, q + 1};
      }
    }
    LOOM_FORCE_INLINE void next() { p = run_end(); }
    LOOM_FORCE_INLINE void seek(std::int64_t i) {
      p = loom::detail::search_first<P>(crd, p, end, i);
    }
    LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
      if (i == loom::detail::top_coordinate)
        p = end;
      else
        p = loom::detail::search_first<P>(crd, p, end, i + 1);
    }
  };

  /// The keys of one hash table, slots [lo, hi): locate probes the table in O(1) (rule F1's
  /// lookup); iteration walks the keys in ascending order, sorted the first time any kernel
  /// iterates this map (a cursor only located never sorts).
  template <search_strategy P, bool Owning> struct hash_cursor {
    using map_storage = typename loop_array::template storage<Owning>;
    const storage<Owning>* st = nullptr;
    const map_storage* map = nullptr;
    std::int64_t up = 0, lo = 0, hi = 0;
    // the sorted walk, started on first use (end < 0: not started)
    mutable const std::int64_t* keys = nullptr;
    mutable const std::int64_t* vals = nullptr;
    mutable std::int64_t p = 0, end = 0;

    LOOM_FORCE_INLINE void start() const {
      if (end < 0) [[unlikely]] {
        if constexpr (pair_keys) {  // this parent's run of the pairs in key order
          const auto& c = map->pair_order(st->extent);
          keys = c.minor.data();
          vals = c.minor_vals.data();
          const auto runs = static_cast<std::int64_t>(c.run_start.size()) - 1;
          p = up < runs ? c.run_start[static_cast<std::size_t>(up)] : 0;
          end = up < runs ? c.run_start[static_cast<std::size_t>(up) + 1] : 0;
        } else {
          const auto& c = map->sorted_order();
          keys = c.keys.data();
          vals = c.vals.data();
          p = lo;
          end = c.end[static_cast<std::size_t>(lo)];
        }
      }
    }
    LOOM_FORCE_INLINE level_range at(std::int64_t key, std::int64_t v) const {
      if constexpr (std::is_same_v<position_expr, pos_node<self>>) {
        return {v, v + 1};
      } else {
        const std::int64_t q = eval<position_expr>(*st, {up, key, v, st->extent});
        return {q, q + 1};
      }
    }
    LOOM_FORCE_INLINE bool valid() const {
      start();
      return p < end;
    }
    LOOM_FORCE_INLINE std::int64_t index() const { return keys[p]; }
    LOOM_FORCE_INLINE level_range children() const { return at(keys[p], vals[p]); }
    LOOM_FORCE_INLINE void next() { ++p; }
    LOOM_FORCE_INLINE void seek(std::int64_t i) {
      start();
      p = loom::detail::search_first<P>(keys, p, end, i);
    }
    LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
      start();
      if (i == loom::detail::top_coordinate)
        p = end;
      else
        p = loom::detail::search_first<P>(keys, p, end, i + 1);
    }
    // locate(i) -> the slot holding key i, probed linearly from hash(i) (load <= 1/2)
    LOOM_FORCE_INLINE level_range locate(std::int64_t i) const {
      if (hi <= lo) return {};
      const auto* k = map->keys.data() + lo;
      const auto mask = static_cast<std::uint64_t>(hi - lo - 1);
      const std::int64_t wanted = pair_keys ? up * st->extent + i : i;
      for (std::uint64_t s = detail::hash_key(wanted) & mask;; s = (s + 1) & mask) {
        const auto key = static_cast<std::int64_t>(k[s]);
        if (key == wanted)
          return at(i, static_cast<std::int64_t>(map->vals[static_cast<std::size_t>(lo) + s]));
        if (key == detail::empty_key) return {};
      }
    }
  };

  template <class St>
  static LOOM_FORCE_INLINE std::pair<std::int64_t, std::int64_t> bounds(const St& st,
                                                                        std::int64_t up,
                                                                        std::int64_t end) {
    const detail::eval_env env{up, 0, 0, st.extent};
    const std::int64_t lo = eval<lo_expr>(st, env);
    if constexpr (whole_map) {
      (void)end;
      return {lo, static_cast<std::int64_t>(own_array(st).size())};
    } else if constexpr (under_runs) {  // the segments of the run's positions, concatenated
      return {lo, eval<hi_expr>(st, {end - 1, 0, 0, st.extent})};
    } else {
      (void)end;
      return {lo, eval<hi_expr>(st, env)};
    }
  }

  // iterate(up, end) -> the loop's coordinates under the parent position up (the run [up, end)
  // below a non-unique loop)
  template <search_strategy P, bool Owning>
  static LOOM_FORCE_INLINE auto iterate(const storage<Owning>& st, std::int64_t up,
                                        std::int64_t end) {
    const auto [lo, hi] = bounds(st, up, end);
    if constexpr (is_range) {
      return range_cursor<Owning>{&st, up, lo, lo, std::max(lo, hi)};
    } else if constexpr (is_hash) {
      hash_cursor<P, Owning> c;
      c.st = &st;
      c.map = &own_array(st);
      c.up = up;
      c.lo = lo;
      c.hi = hi;
      c.p = lo;
      c.end = hi > lo ? -1 : lo;
      return c;
    } else {
      // hi >= lo was checked when the tensor was built (walk), so no clamp in the row loop
      return segment_cursor<P, Owning>{&st, own_array(st).data(), up, lo, hi};
    }
  }

  // Part 3: validation of a tensor built from arrays (walk) -----------------------------------------

  /// Walks every coordinate under every parent (run), calling f(up, index, position); throws
  /// when a segment or table leaves its array, coordinates are out of order or outside the
  /// extent, or a key is not where the hash function puts it. Returns the next level's parents.
  template <bool Owning, class F>
  static detail::parent_runs walk(const storage<Owning>& st, const detail::parent_runs& parents,
                                  const std::string& who, std::size_t mode, F&& f) {
    std::int64_t count = 0;
    detail::parent_runs next;
    const auto fail = [&](const std::string& what) { throw shape_error(who + ": " + what); };
    if constexpr (pair_keys) {  // one pass over the flat map: each key names its parent
      const auto& map = own_array(st);
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
        const auto cur = iterate<search_strategy::linear>(st, up, up + 1);
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
        const auto size = static_cast<std::int64_t>(own_array(st).size());
        const auto [lo, hi] = bounds(st, up, run.end);
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
          own_array(st).sorted->tables.emplace_back(lo, hi);
          const auto& map = own_array(st);
          const auto cur = iterate<search_strategy::linear>(st, up, run.end);
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
                   " under parent position " + std::to_string(up) +
                   " maps to the negative offset " + std::to_string(mine.begin));
            f(up, key, mine.begin);
            count = std::max(count, mine.begin + 1);
          }
          continue;
        }
      }
      if constexpr (!is_hash) {
        auto cur = iterate<search_strategy::linear>(st, up, run.end);
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

  // Part 4: assembly from sorted entries (conversions, outputs) ----------------------------------

  // assemble: a range checks each entry lies in its bounds and places it at its offset; a
  // canonical segment crd(pos(x) : pos(x + 1)) is built like a compressed level (one position
  // per entry when not unique), a singleton crd(pos(x) : pos(x) + 1) holds one coordinate per
  // parent position, and a hash map (whole, or canonical tables H.table(s(x), s(x + 1))) gets
  // one table per parent with positions numbered in key order
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    const std::string who = "loom::mapping " + std::string(Def::name);
    if constexpr (is_range) {
      if constexpr (!boost::mp11::mp_empty<array_list>::value) {
        throw shape_error(who + ": loop " + std::string(self::name) +
                          " reads physical arrays; build the tensor from its arrays");
      } else {
        for (std::size_t e = 0; e < in.coord.size(); ++e) {
          const auto cur = iterate<search_strategy::linear>(st, in.parent[e], in.parent[e] + 1);
          const level_range r = cur.locate(in.coord[e]);
          if (r.empty())
            throw shape_error(who + ": an entry with coordinate " + std::to_string(in.coord[e]) +
                              " in mode " + std::to_string(in.mode) + " (extent " +
                              std::to_string(in.extent) + ") under parent position " +
                              std::to_string(in.parent[e]) + " lies outside the stored region " +
                              std::string(self::name) + " in " + bounds_text());
          position[e] = r.begin;
        }
        return walk(st, detail::parent_runs{in.parents, {}}, who, in.mode, [](auto...) {}).count;
      }
    } else {
      using canon = detail::canonical_segment<typename loop::lo, typename loop::hi>;
      constexpr bool singleton =
          detail::singleton_segment<typename loop::lo, typename loop::hi>::value;
      constexpr bool root = [] {
        if constexpr (whole_map)
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
          auto h =
              hash_table<typename loop_array::key_type, typename loop_array::mapped_type>::from(
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

  // Part 5: text for explain ---------------------------------------------------------------------

  /// "max(0, i - 1) : min(N, i + 2)" (after folding), "crd(pos(i) : pos(i + 1))" or "H".
  static std::string bounds_text() {
    if constexpr (is_range) {
      return detail::show<lo_expr>::text() + " : " + detail::show<hi_expr>::text();
    } else if constexpr (whole_map) {
      return std::string(loop_array::name);
    } else {
      return std::string(loop_array::name) + (is_hash ? ".table(" : "(") +
             detail::show<typename loop::lo>::text() + " : " +
             detail::show<typename loop::hi>::text() + ")";
    }
  }
  /// The loop as declared: "j in 0 : N where j <= i".
  static std::string declared_text() {
    std::string s = std::string(self::name) + " in ";
    if constexpr (is_range) {
      s +=
          detail::show<typename loop::lo>::text() + " : " + detail::show<typename loop::hi>::text();
      std::string g;
      boost::mp11::mp_for_each<
          boost::mp11::mp_transform<boost::mp11::mp_identity, typename loop::guards>>([&](auto x) {
        g += (g.empty() ? " where " : " && ") + detail::show<typename decltype(x)::type>::text();
      });
      return s + g;
    } else if constexpr (pair_keys) {
      return s + "keys(" + bounds_text() + ") paired with " +
             std::string(detail::loop_above<loops, K>::index::name) + " @unique @hash";
    } else if constexpr (is_hash) {
      return s + "keys(" + bounds_text() + ") @unique @hash";
    } else {
      return s + bounds_text() + (loop::unique ? " @unique" : "");
    }
  }
};

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_MAPPED_LEVEL_HPP
