// Defines loom::dense_level and loom::dense: a level storing every coordinate (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_DENSE_HPP
#define LOOM_FORMAT_LEVELS_DENSE_HPP

#include <loom/core/config.hpp>
#include <loom/format/levels/level_base.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace loom {

/// Every coordinate i in [0, n) of the parent at position p, at position `p * n + i`.
struct dense_cursor {
  std::int64_t base = 0, i = 0, n = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE level_range children() const { return {base + i, base + i + 1}; }
  LOOM_FORCE_INLINE level_range locate(std::int64_t j) const { return {base + j, base + j + 1}; }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    i = j >= n ? n : std::max(i, j + 1);  // j may be the top index
  }
  LOOM_FORCE_INLINE void next() { ++i; }
};

/// Every coordinate in [0, extent) is present; positions are `parent * extent + i`.
/// `Extent` is static when given (it takes part in compile-time extent checks).
/// A format made only of full levels is addressed by strides, in any loop order.
template <std::size_t Extent = dynamic_extent> struct dense_level {
  static constexpr level_properties properties{.full = true, .random_access = true, .padded = true};
  static constexpr level_layout layout = level_layout::dense;
  static constexpr std::size_t static_extent = Extent;
  static constexpr std::string_view name = "dense";

  template <bool Owning> struct storage {
    // locate(p_{k-1}, i) -> p_{k-1} * extent + i
    std::int64_t extent = 0;
  };

  template <search_strategy, bool Owning>
  static dense_cursor iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    return {begin * st.extent, 0, st.extent};
  }

  // check (O(1)): the stored extent is the mode's -> parents * extent positions
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    if (st.extent != in.extent)
      detail::bad_storage(name, in, "the level stores the extent " + std::to_string(st.extent));
    return detail::every_coordinate(name, in);
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    if (in.extent != 0 && in.parents > INT64_MAX / in.extent)
      throw overflow_error("loom: the dense level of mode " + std::to_string(in.mode) +
                           " would hold more than 2^63 positions");
    detail::check_padded_positions(name, in, in.parents * in.extent);
    for (std::size_t e = 0; e < in.coord.size(); ++e)
      position[e] = in.parent[e] * in.extent + in.coord[e];
    return in.parents * in.extent;
  }
};

/// The dense level with a run-time extent.
using dense = dense_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_DENSE_HPP
