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
  bool ordered = true;        // coordinates ascend within a parent
  bool unique = true;         // no coordinate repeats within a parent
  bool full = false;          // every coordinate of the extent is present
  bool random_access = false; // locate(parent, i) in O(1)
  bool segmented = false;     // a parent is a range of positions, not one position
  bool padded = false;        // some positions hold no entry (their values are zero padding)
};

/// How a cursor moves to a target coordinate (a per-level choice of the planner).
enum class skip_policy {
  linear,     ///< one position at a time
  galloping,  ///< doubling steps, then binary search (good for skewed intersections)
  binary      ///< binary search over the rest of the segment
};

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
  std::size_t mode = 0;                   // logical mode stored (for messages)
  std::int64_t extent = 0;                // extent of that mode
  std::int64_t parents = 1;               // positions of the level above (1 at the root)
  std::span<const std::int64_t> parent;   // parent position of each entry, ascending
  std::span<const std::int64_t> coord;    // this level's coordinate of each entry
};

/// A level's array: a `std::vector` in an owning tensor, a `std::span` in a view.
template <class T, bool Owning>
using level_array = std::conditional_t<Owning, std::vector<T>, std::span<const T>>;

namespace detail {

/// Whether `value` fits `Int` (and is not negative).
template <class Int>
constexpr bool fits_in(std::int64_t value) {
  return value >= 0 && static_cast<std::uint64_t>(value) <=
                           static_cast<std::uint64_t>(std::numeric_limits<Int>::max());
}

/// Throws `overflow_error` when `value` does not fit `Int`; `what` names the quantity.
template <class Int>
void check_fits(std::int64_t value, std::string_view what) {
  if (value < 0 || static_cast<std::uint64_t>(value) >
                       static_cast<std::uint64_t>(std::numeric_limits<Int>::max())) {
    throw overflow_error("loom: " + std::string(what) + " = " + std::to_string(value) +
                         " does not fit the level's " + std::to_string(sizeof(Int) * 8) +
                         "-bit integer type; choose a wider position/coordinate type");
  }
}

/// The largest index; cursors guard `seek_past(top_coordinate)` against overflow.
inline constexpr std::int64_t top_coordinate = std::numeric_limits<std::int64_t>::max();

/// First q in [q, end) with crd[q] >= i (or end), searched by policy P; crd ascending.
template <skip_policy P, class Crd>
constexpr std::int64_t search_first(const Crd* crd, std::int64_t q, std::int64_t end,
                                    std::int64_t i) {
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

}  // namespace detail
}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
