// Defines the level vocabulary shared by every level: properties, arrays, width checks, the
// assembly input and the cursor protocol (format/). The level concept itself: level.hpp.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
#define LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom {

/// Whether a coordinate may repeat among the children of one parent.
enum class uniqueness { unique, non_unique };

/// What a level guarantees; streams and the planner branch on these (TACO's level properties).
struct level_properties {
  bool ordered = true;         // coordinates ascend within a parent
  bool unique = true;          // no coordinate repeats within a parent
  bool full = false;           // every coordinate of the extent is present
  bool random_access = false;  // locate(parent, i) in O(1)
  bool segmented = false;      // a parent is a range of positions, not one position
  bool padded = false;         // some positions hold no entry (their values are zero padding)
};

/// The arrays a level keeps, when they follow one of the built-in layouts. loom's fast paths
/// (sparse outputs appended online, csr rows written in parallel, statistics read from the
/// arrays) key on the layout, not on the level's type: a user-defined level that declares one
/// (`static constexpr loom::level_layout layout = ...;`) gets them (docs/levels.md).
enum class level_layout {
  other,       ///< none of these (the default): assembled and read through the level's hooks
  dense,       ///< `storage::extent`; coordinate i of parent p at position p * extent + i
  compressed,  ///< `storage::pos`, `storage::crd` (`pos_type`, `crd_type`): parent p's
               ///< coordinates at crd[pos[p] .. pos[p + 1]), ascending
  singleton,   ///< `storage::crd` (`crd_type`): one coordinate per position, below a
               ///< non-unique level (`segmented`)
  bitmap,      ///< `storage::bits`: bit p * extent + i marks coordinate i of parent p, whose
               ///< value sits at that position
  appended,    ///< as `compressed` while a sparse output is appended (`pos`, `crd`, `pos_type`,
               ///< `crd_type`), then `adapt(storage&, values, extent, zero)` lays the level out
               ///< its own way; innermost only (its positions may move)
};

/// A level's declared layout, `level_layout::other` when it declares none.
template <class Level> inline constexpr level_layout layout_of = level_layout::other;
template <class Level>
  requires std::same_as<std::remove_cv_t<decltype(Level::layout)>, level_layout>
inline constexpr level_layout layout_of<Level> = Level::layout;

/// How a level's cursor searches its coordinates for a target (`seek`): a per-level choice of
/// the planner, given to `iterate`. Not to be confused with a *skip policy*
/// (`stream::skip`), which says which operand of an intersection leads.
enum class search_strategy {
  linear,     ///< one position at a time
  galloping,  ///< doubling steps, then binary search (good for skewed intersections)
  binary      ///< binary search over the rest of the segment
};
/// The former name of `search_strategy` (until 2026-11-27).
using skip_policy [[deprecated("loom::skip_policy is now loom::search_strategy")]] =
    search_strategy;

/// Child positions [begin, end) of one coordinate; empty when the coordinate is absent.
/// Below a unique level end = begin + 1; a non-unique level hands a run to its singleton child.
struct level_range {
  std::int64_t begin = 0, end = 0;
  constexpr bool empty() const { return begin >= end; }
};

/// What assembly hands one level: entries sorted and unique in storage order. The level fills
/// `position[e]` (its position of entry e) and returns how many positions it has; entries with
/// the same parent and coordinate share a position at a unique level.
struct level_build {
  std::size_t mode = 0;                  // logical mode stored (for messages)
  std::int64_t extent = 0;               // extent of that mode
  std::int64_t parents = 1;              // positions of the level above (1 at the root)
  std::span<const std::int64_t> parent;  // parent position of each entry, ascending
  std::span<const std::int64_t> coord;   // this level's coordinate of each entry
  /// The most positions a level that pads (dense, bitmap, banded) may create; the readers set
  /// it from `read_options::max_dense_elements` so that a file's shape cannot exhaust memory.
  std::int64_t max_positions = std::numeric_limits<std::int64_t>::max();
};

/// What a level's storage check is handed (a tensor or view made from its parts, and
/// `loom::validate`): the level's place, and the positions of the level above.
struct level_check {
  std::size_t mode = 0;      // logical mode stored (for messages)
  std::int64_t extent = 0;   // extent of that mode
  std::int64_t parents = 1;  // positions of the level above (1 at the root)
};

/// A level's array: a `std::vector` in an owning tensor, a `std::span` in a view.
template <class T, bool Owning>
using level_array = std::conditional_t<Owning, std::vector<T>, std::span<const T>>;

namespace detail {

/// Whether `value` fits `Int` (and is not negative).
template <class Int> constexpr bool fits_in(std::int64_t value) {
  return value >= 0 && static_cast<std::uint64_t>(value) <=
                           static_cast<std::uint64_t>(std::numeric_limits<Int>::max());
}

/// Throws `overflow_error` when `value` does not fit `Int`; `what` names the quantity.
template <class Int> void check_fits(std::int64_t value, std::string_view what) {
  if (value < 0 || static_cast<std::uint64_t>(value) >
                       static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) {
    throw overflow_error("loom: " + std::string(what) + " = " + std::to_string(value) +
                         " does not fit the level's " + std::to_string(sizeof(Int) * 8) +
                         "-bit integer type; choose a wider position/coordinate type");
  }
}

/// Throws `shape_error` "the <level> level of mode m: what" (storage checks).
LOOM_DECL [[noreturn]] void bad_storage(std::string_view level, const level_check& in,
                                        const std::string& what);

/// `parents * extent`, the positions of a level storing every coordinate of each parent; a
/// `shape_error` when the product overflows.
LOOM_DECL std::int64_t every_coordinate(std::string_view level, const level_check& in);

/// `Level::iterate<P>(st, begin, end)`, or an empty cursor when the level's `pos` is empty (a
/// moved-from tensor's). Used where a level is iterated as the root, once per kernel: below the
/// root an empty `pos` has no parent positions to iterate (the moved-from shape is 0), so the
/// cursors themselves keep no test per fiber.
template <class Level, search_strategy P, class Storage>
LOOM_FORCE_INLINE auto iterate_or_empty(const Storage& st, std::int64_t begin, std::int64_t end) {
  using cursor = decltype(Level::template iterate<P>(st, begin, end));
  if constexpr (requires { st.pos.empty(); }) {
    if (st.pos.empty()) [[unlikely]]
      return cursor{};
  }
  return Level::template iterate<P>(st, begin, end);
}

/// O(1): a `pos` array of parents + 1 entries starting at 0; returns its last entry. An empty
/// `pos` (a moved-from tensor's) holds no entries under any parent.
template <class Pos>
std::int64_t check_pos(std::string_view level, const level_check& in, std::span<const Pos> pos) {
  if (pos.empty()) return 0;
  if (in.parents >= std::numeric_limits<std::int64_t>::max() ||
      static_cast<std::int64_t>(pos.size()) != in.parents + 1)
    bad_storage(level, in,
                "pos has " + std::to_string(pos.size()) + " entries, expected " +
                    (in.parents >= std::numeric_limits<std::int64_t>::max()
                         ? std::string("more than 2^63")
                         : std::to_string(in.parents + 1)));
  if (pos[0] != 0) bad_storage(level, in, "pos[0] is " + std::to_string(pos[0]) + ", expected 0");
  const auto last = static_cast<std::int64_t>(pos[pos.size() - 1]);
  if (last < 0) bad_storage(level, in, "pos[last] is negative (" + std::to_string(last) + ")");
  return last;
}

/// O(parents): `pos` does not decrease.
template <class Pos>
void check_pos_monotone(std::string_view level, const level_check& in, std::span<const Pos> pos) {
  for (std::size_t p = 0; p + 1 < pos.size(); ++p)
    if (pos[p + 1] < pos[p])
      bad_storage(level, in,
                  "pos decreases at parent " + std::to_string(p) + " (" + std::to_string(pos[p]) +
                      " then " + std::to_string(pos[p + 1]) + ")");
}

/// O(nnz): the coordinates of each parent's segment are in [0, extent), ascending (strictly
/// when unique).
template <class Pos, class Crd>
void check_segments(std::string_view level, const level_check& in, std::span<const Pos> pos,
                    std::span<const Crd> crd, bool unique) {
  for (std::size_t p = 0; p + 1 < pos.size(); ++p)
    for (auto q = static_cast<std::int64_t>(pos[p]); q < static_cast<std::int64_t>(pos[p + 1]);
         ++q) {
      const auto c = static_cast<std::int64_t>(crd[static_cast<std::size_t>(q)]);
      if (c < 0 || c >= in.extent)
        bad_storage(level, in,
                    "coordinate " + std::to_string(c) + " at position " + std::to_string(q) +
                        " is outside [0, " + std::to_string(in.extent) + ")");
      if (q > static_cast<std::int64_t>(pos[p])) {
        const auto before = static_cast<std::int64_t>(crd[static_cast<std::size_t>(q) - 1]);
        if (unique ? c <= before : c < before)
          bad_storage(level, in,
                      "the coordinates of parent " + std::to_string(p) + " are not " +
                          (unique ? "strictly " : "") + "ascending at position " +
                          std::to_string(q));
      }
    }
}

/// O(1): an index array's last entry (`last`, e.g. pos[last]) equals the length of the array it
/// indexes; else "<index>[last] is N but <array> has M <unit>".
LOOM_DECL void check_array_end(std::string_view level, const level_check& in,
                               std::string_view index, std::int64_t last, std::string_view array,
                               std::size_t size, std::string_view unit);

/// The hash of a coordinate in the tables of the hashed and adaptive levels.
LOOM_FORCE_INLINE constexpr std::uint64_t hash_coordinate(std::int64_t i) {
  const std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/// Locates coordinate i through one fiber's table (`mask + 1` slots holding position + 1, or 0
/// when empty; load at most 1/2, so an empty slot ends the linear probing): {q, q + 1} with
/// crd[q] == i, or empty.
template <class Pos, class Crd>
LOOM_FORCE_INLINE level_range probe_table(const Pos* table, std::uint64_t mask, const Crd* crd,
                                          std::int64_t i) {
  for (std::uint64_t s = hash_coordinate(i) & mask;; s = (s + 1) & mask) {
    const auto v = static_cast<std::int64_t>(table[s]);
    if (v == 0) return {};
    if (crd[v - 1] == i) return {v - 1, v};
  }
}

/// Fills one fiber's table (`mask + 1` slots at `table`, zeroed) with positions [from, to).
template <class Pos, class Crd>
void fill_table(Pos* table, std::uint64_t mask, const Crd* crd, std::int64_t from,
                std::int64_t to) {
  for (std::int64_t q = from; q < to; ++q) {
    std::uint64_t s = hash_coordinate(crd[q]) & mask;
    while (table[s] != 0) s = (s + 1) & mask;
    table[s] = static_cast<Pos>(q + 1);
  }
}

/// Throws `loom::error` when a padding level would create more positions than `in` allows.
LOOM_DECL void check_padded_positions(std::string_view level, const level_build& in,
                                      std::int64_t positions);

/// The largest index; cursors guard `seek_past(top_coordinate)` against overflow.
inline constexpr std::int64_t top_coordinate = std::numeric_limits<std::int64_t>::max();

/// First q in [q, end) with crd[q] >= i (or end), searched by policy P; crd ascending.
template <search_strategy P, class Crd>
constexpr std::int64_t search_first(const Crd* crd, std::int64_t q, std::int64_t end,
                                    std::int64_t i) {
  if (q >= end || crd[q] >= i) return q;
  if constexpr (P == search_strategy::linear) {
    while (q < end && crd[q] < i) ++q;
    return q;
  } else {
    std::int64_t lo = q + 1, hi = end;  // crd[q] < i; answer in [lo, hi]
    if constexpr (P == search_strategy::galloping) {
      std::int64_t step = 1;
      while (lo + step - 1 < end && crd[lo + step - 1] < i) {
        lo += step;
        step *= 2;
      }
      hi = std::min(end, lo + step - 1);
    }
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (crd[mid] < i)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
}

#if LOOM_HEADER_ONLY
LOOM_DEF void bad_storage(std::string_view level, const level_check& in, const std::string& what) {
  throw shape_error("the " + std::string(level) + " level of mode " + std::to_string(in.mode) +
                    " (extent " + std::to_string(in.extent) + ", " + std::to_string(in.parents) +
                    " parent position(s)): " + what);
}

LOOM_DEF std::int64_t every_coordinate(std::string_view level, const level_check& in) {
  if (in.extent < 0) bad_storage(level, in, "the extent is negative");
  if (in.extent != 0 && in.parents > std::numeric_limits<std::int64_t>::max() / in.extent)
    bad_storage(level, in, "parents x extent overflows 64 bits");
  return in.parents * in.extent;
}

LOOM_DEF void check_array_end(std::string_view level, const level_check& in, std::string_view index,
                              std::int64_t last, std::string_view array, std::size_t size,
                              std::string_view unit) {
  if (last != static_cast<std::int64_t>(size))
    bad_storage(level, in,
                std::string(index) + "[last] is " + std::to_string(last) + " but " +
                    std::string(array) + " has " + std::to_string(size) + " " + std::string(unit));
}

LOOM_DEF void check_padded_positions(std::string_view level, const level_build& in,
                                     std::int64_t positions) {
  if (positions > in.max_positions)
    throw error("the " + std::string(level) + " level of mode " + std::to_string(in.mode) +
                " (extent " + std::to_string(in.extent) + ") would hold " +
                std::to_string(positions) + " positions for " + std::to_string(in.coord.size()) +
                " entries, more than the " + std::to_string(in.max_positions) +
                " allowed (loom::read_options::max_dense_elements plus the entries that are not "
                "zero); choose a sparser format, or raise the limit if the shape is right");
}
#endif  // LOOM_HEADER_ONLY
}  // namespace detail
}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
