// Defines the level vocabulary shared by every level: properties, arrays, width checks (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
#define LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

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
};

/// A level's array: a `std::vector` in an owning tensor, a `std::span` in a view.
template <class T, bool Owning>
using level_array = std::conditional_t<Owning, std::vector<T>, std::span<const T>>;

namespace detail {

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

}  // namespace detail
}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_LEVEL_BASE_HPP
