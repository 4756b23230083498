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
#include <loom/format/mapping/mapped_level_build.hpp>

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

  /// Walks every coordinate under every parent, calling f(up, index, position), and throws on
  /// arrays that break the mapping (detail::walk_level); returns the next level's parents.
  template <bool Owning, class F>
  static detail::parent_runs walk(const storage<Owning>& st, const detail::parent_runs& parents,
                                  const std::string& who, std::size_t mode, F&& f) {
    return detail::walk_level<mapped_level, Owning>(st, parents, who, mode, std::forward<F>(f));
  }

  // Part 4: assembly from sorted entries (conversions, outputs) ----------------------------------

  /// This level's arrays from sorted entries (detail::assemble_level says how, per kind of loop).
  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    return detail::assemble_level<mapped_level>(st, in, position);
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
