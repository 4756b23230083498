// Defines loom::relational::interval: a key range as an implicit stream level (Etch's
// predRange) — no stored keys, `seek` jumps straight to the target, `locate` is a comparison
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_INTERVAL_HPP
#define LOOM_RELATIONAL_INTERVAL_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/format.hpp>
#include <loom/format/levels/level.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/format/tensor.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace loom::relational {

/// The coordinates [lo, hi) of a root level, stored as two numbers. A view made by `interval`
/// gives every coordinate the same value (position 0); an assembled tensor (consecutive keys)
/// has one position per coordinate.
struct interval_level {
  static constexpr level_properties properties{.random_access = true};  // ordered, unique
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "interval";

  template <bool Owning> struct storage {
    std::int64_t lo = 0, hi = 0;
    bool shared_value = false;  // every coordinate at position 0
  };

  struct cursor {
    std::int64_t i = 0, lo = 0, hi = 0;
    bool shared_value = false;

    LOOM_FORCE_INLINE bool valid() const { return i < hi; }
    LOOM_FORCE_INLINE std::int64_t index() const { return i; }
    LOOM_FORCE_INLINE level_range at(std::int64_t j) const {
      return shared_value ? level_range{0, 1} : level_range{j - lo, j - lo + 1};
    }
    LOOM_FORCE_INLINE level_range children() const { return at(i); }
    // locate(j) -> the position of j when lo <= j < hi, else empty
    LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
      return j >= lo && j < hi ? at(j) : level_range{};
    }
    LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }  // a jump, not a search
    LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
    LOOM_FORCE_INLINE void next() { ++i; }
  };

  template <search_strategy, bool Owning>
  static cursor iterate(const storage<Owning>& st, std::int64_t, std::int64_t) {
    return {st.lo, st.lo, st.hi, st.shared_value};
  }

  LOOM_DECL static std::int64_t assemble(storage<true>& st, const level_build& in,
                                         std::span<std::int64_t> position);
};
static_assert(level_type<interval_level> && level_with_locate<interval_level>);

namespace detail {
template <class T> inline const T semiring_one = semiring_traits<T>::one();
}  // namespace detail

/// `[lo <= key < hi]` over keys `0 .. extent-1` as a level with no storage: merged with a
/// relation's level, `seek` jumps to the target in O(1), and the planner may also locate it
/// (one comparison). Use it like `range`: `in_1994(d) * O(d, o, c)`.
template <class T = std::int64_t>
view<const T, format<interval_level>> interval(std::int64_t lo, std::int64_t hi,
                                               std::int64_t extent) {
  if (extent < 0) throw shape_error("loom::relational::interval: the extent is negative");
  typename view<const T, format<interval_level>>::level_storages levels{};
  auto& st = std::get<0>(levels);
  st.lo = std::clamp<std::int64_t>(lo, 0, extent);
  st.hi = std::clamp<std::int64_t>(hi, st.lo, extent);
  st.shared_value = true;
  view<const T, format<interval_level>> v({extent}, levels,
                                          std::span<const T>(&detail::semiring_one<T>, 1));
  v.set_name("[" + std::to_string(st.lo) + "," + std::to_string(st.hi) + ")");
  return v;
}

#if LOOM_HEADER_ONLY
LOOM_DEF std::int64_t interval_level::assemble(storage<true>& st, const level_build& in,
                                               std::span<std::int64_t> position) {
  if (in.parents != 1)
    throw shape_error("loom::relational::interval_level: mode " + std::to_string(in.mode) +
                      " must be the first level");
  st.lo = in.coord.empty() ? 0 : in.coord.front();
  st.hi = in.coord.empty() ? 0 : in.coord.back() + 1;
  st.shared_value = false;
  for (std::size_t e = 0; e < in.coord.size(); ++e) {
    if (e > 0 && in.coord[e] != in.coord[e - 1] && in.coord[e] != in.coord[e - 1] + 1)
      throw shape_error("loom::relational::interval_level: the keys of mode " +
                        std::to_string(in.mode) + " are not consecutive (" +
                        std::to_string(in.coord[e - 1]) + " then " + std::to_string(in.coord[e]) +
                        ")");
    position[e] = in.coord[e] - st.lo;
  }
  return st.hi - st.lo;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_INTERVAL_HPP
