// Defines the hash-map physical kind of storage mappings: loom::mapping::hash_map<"name"> (keys
// to positions, open addressing), hash_table (its contents, built from key/position pairs) and
// the sorted-order cache that lets an unordered map be iterated in key order on demand
// (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_HASH_MAP_HPP
#define LOOM_FORMAT_MAPPING_HASH_MAP_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/fixed_string.hpp>
#include <loom/core/sync.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/format/mapping/index_expr.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::mapping {

namespace detail {
/// The key of an empty slot.
inline constexpr std::int64_t empty_key = -1;
/// Where key i starts probing (multiplicative hashing; the table's mask takes the low bits).
LOOM_FORCE_INLINE constexpr std::uint64_t hash_key(std::int64_t i) {
  const std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}
/// The smallest power of two >= 2 * count (0 for no entries): load factor at most 1/2.
constexpr std::int64_t table_capacity(std::int64_t count) {
  if (count == 0) return 0;
  std::int64_t cap = 2;
  while (cap < 2 * count) cap *= 2;
  return cap;
}
}  // namespace detail

/// The contents of a hash map (or of a trie's hash maps, one table after another): open
/// addressing with linear probing, each table's capacity a power of two, key -1 marking an
/// empty slot. `vals[s]` is the position the key in slot s maps to.
template <class Key = std::int64_t, class Val = std::int64_t> struct hash_table;

/// A borrowed hash_table (what `bind` keeps, so a view reads the caller's table).
template <class Key, class Val> struct hash_table_view {
  std::span<const Key> keys;
  std::span<const Val> vals;
};

template <class Key, class Val> struct hash_table {
  std::vector<Key> keys;
  std::vector<Val> vals;

  hash_table_view<Key, Val> view() const { return {keys, vals}; }

  /// Appends one table holding `entries` (key, position; keys distinct, in any order) and
  /// returns its first slot; the table ends at `keys.size()` after the call.
  std::int64_t append(const std::vector<std::pair<std::int64_t, std::int64_t>>& entries) {
    const auto lo = static_cast<std::int64_t>(keys.size());
    const std::int64_t cap = detail::table_capacity(static_cast<std::int64_t>(entries.size()));
    keys.resize(static_cast<std::size_t>(lo + cap), static_cast<Key>(detail::empty_key));
    vals.resize(static_cast<std::size_t>(lo + cap), Val(0));
    const auto mask = static_cast<std::uint64_t>(cap - 1);
    for (const auto& [k, v] : entries) {
      std::uint64_t s = detail::hash_key(k) & mask;
      while (keys[static_cast<std::size_t>(lo) + s] != static_cast<Key>(detail::empty_key)) {
        if (keys[static_cast<std::size_t>(lo) + s] == static_cast<Key>(k))
          throw duplicate_error("loom::mapping::hash_table: key " + std::to_string(k) +
                                " appears twice in one table");
        s = (s + 1) & mask;
      }
      keys[static_cast<std::size_t>(lo) + s] = static_cast<Key>(k);
      vals[static_cast<std::size_t>(lo) + s] = static_cast<Val>(v);
    }
    return lo;
  }
  /// One table from (key, position) pairs.
  static hash_table from(const std::vector<std::pair<std::int64_t, std::int64_t>>& entries) {
    hash_table t;
    t.append(entries);
    return t;
  }
};

namespace detail {
/// The keys of every table of one hash map in ascending order, computed the first time a
/// kernel iterates the map (never when it is only located). `tables` are recorded when the
/// tensor is validated; the sorted run of table [lo, hi) sits at [lo, end[lo]).
struct sorted_cache {
  loom::detail::once_flag once;
  std::vector<std::pair<std::int64_t, std::int64_t>> tables;
  std::vector<std::int64_t> keys, vals, end;
  // a map keyed by pairs (parent * extent + coordinate, DOK): the coordinates and positions in
  // key order, and where each parent's run starts (computed on first iteration, like the above)
  loom::detail::once_flag pairs_once;
  std::vector<std::int64_t> minor, minor_vals, run_start;
};

template <class Key, class Val, bool Owning> struct hash_storage {
  level_array<Key, Owning> keys;
  level_array<Val, Owning> vals;
  std::shared_ptr<sorted_cache> sorted = std::make_shared<sorted_cache>();

  std::size_t size() const { return keys.size(); }

  /// The sorted keys and positions of every recorded table (built once, thread-safe).
  const sorted_cache& sorted_order() const {
    sorted->once.call([&] {
      auto& c = *sorted;
      const std::size_t n = keys.size();
      c.keys.assign(n, 0);
      c.vals.assign(n, 0);
      c.end.assign(n + 1, 0);
      std::vector<std::pair<std::int64_t, std::int64_t>> run;
      for (const auto& [lo, hi] : c.tables) {
        run.clear();
        for (std::int64_t s = lo; s < hi; ++s)
          if (static_cast<std::int64_t>(keys[static_cast<std::size_t>(s)]) != empty_key)
            run.emplace_back(static_cast<std::int64_t>(keys[static_cast<std::size_t>(s)]),
                             static_cast<std::int64_t>(vals[static_cast<std::size_t>(s)]));
        loom::detail::sort_range(run.begin(), run.end());
        for (std::size_t e = 0; e < run.size(); ++e) {
          c.keys[static_cast<std::size_t>(lo) + e] = run[e].first;
          c.vals[static_cast<std::size_t>(lo) + e] = run[e].second;
        }
        c.end[static_cast<std::size_t>(lo)] = lo + static_cast<std::int64_t>(run.size());
      }
    });
    return *sorted;
  }

  /// For keys `parent * extent + coordinate` (a DOK): the coordinates and positions in key
  /// order and each parent's run [run_start[p], run_start[p + 1]) (built once, thread-safe).
  const sorted_cache& pair_order(std::int64_t extent) const {
    sorted->pairs_once.call([&] {
      auto& c = *sorted;
      std::vector<std::pair<std::int64_t, std::int64_t>> run;
      run.reserve(keys.size() / 2);
      for (std::size_t s = 0; s < keys.size(); ++s)
        if (static_cast<std::int64_t>(keys[s]) != empty_key)
          run.emplace_back(static_cast<std::int64_t>(keys[s]), static_cast<std::int64_t>(vals[s]));
      loom::detail::sort_range(run.begin(), run.end());
      const std::int64_t e = std::max<std::int64_t>(extent, 1);
      const std::int64_t parents = run.empty() ? 0 : run.back().first / e + 1;
      c.minor.resize(run.size());
      c.minor_vals.resize(run.size());
      c.run_start.assign(static_cast<std::size_t>(parents) + 1, 0);
      for (std::size_t q = 0; q < run.size(); ++q) {
        c.minor[q] = run[q].first % e;
        c.minor_vals[q] = run[q].second;
        ++c.run_start[static_cast<std::size_t>(run[q].first / e) + 1];
      }
      for (std::size_t p = 1; p < c.run_start.size(); ++p) c.run_start[p] += c.run_start[p - 1];
    });
    return *sorted;
  }
};
}  // namespace detail

/// A physical hash map named `Name` from keys to positions (STOREL's `CREATE HASHMAP`): a loop
/// `hashed(i, H)` binds each key i and its position `pos(i)`; `H.table(lo, hi)` is the table in
/// slots [lo, hi) (one per parent: a trie of hash maps). Bound with `bind(H, hash_table{...})`.
template <fixed_string Name, class Key = std::int64_t, class Val = std::int64_t> struct hash_map {
  static_assert(std::is_integral_v<Key> && std::is_signed_v<Key> && std::is_integral_v<Val>,
                "loom::mapping::hash_map: keys must be signed integers (-1 marks an empty slot) "
                "and positions integers");
  using key_type = Key;
  using mapped_type = Val;
  using value_type = Key;  // for messages
  static constexpr std::string_view name = Name.view();
  static constexpr bool is_hash_map = true;
  template <bool Owning> using storage = detail::hash_storage<Key, Val, Owning>;

  template <node Lo, node Hi> constexpr auto table(Lo, Hi) const;
  /// The whole map keyed by pairs: key `parent * extent + coordinate`, so that one flat table
  /// holds a matrix (STOREL's `sum(<<i,j>,v> in H)`, SciPy's DOK): `hashed(j, H.pairs())`.
  constexpr auto pairs() const;
};

/// Slots [Lo, Hi) of hash map H: one parent's table. `whole_table` spans the map.
struct whole_table : node_base {};
template <class H, class Lo, class Hi> struct table_of {
  using map_type = H;
  using lo = Lo;
  using hi = Hi;
};

/// Hash map H keyed by (parent position, coordinate) pairs, `parent * extent + coordinate`.
template <class H> struct pair_table {
  using map_type = H;
  using lo = lit<0>;
  using hi = whole_table;
  static constexpr bool pair_keys = true;
};

template <fixed_string Name, class Key, class Val>
template <node Lo, node Hi>
constexpr auto hash_map<Name, Key, Val>::table(Lo, Hi) const {
  return table_of<hash_map, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>>{};
}
template <fixed_string Name, class Key, class Val>
constexpr auto hash_map<Name, Key, Val>::pairs() const {
  static_assert(sizeof(Key) == 8,
                "loom::mapping::hash_map::pairs: a pair key (parent * extent + "
                "coordinate) needs 64-bit keys");
  return pair_table<hash_map>{};
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_HASH_MAP_HPP
