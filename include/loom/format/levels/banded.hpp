// Defines loom::banded_level and loom::banded: one contiguous coordinate range [lo, hi) per
// parent, for band and diagonal matrices; locate is a range test (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_BANDED_HPP
#define LOOM_FORMAT_LEVELS_BANDED_HPP

#include <loom/core/config.hpp>
#include <loom/format/levels/level_base.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace loom {

/// Every coordinate of [lo, hi), coordinate i at position base + i - lo.
struct banded_cursor {
  std::int64_t base = 0, lo = 0, i = 0, hi = 0;

  LOOM_FORCE_INLINE bool valid() const { return i < hi; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE level_range children() const { return {base + i - lo, base + i - lo + 1}; }
  LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
    if (j < lo || j >= hi) return {};
    return {base + j - lo, base + j - lo + 1};
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) { i = std::max(i, j); }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) { i = j >= hi ? hi : std::max(i, j + 1); }
  LOOM_FORCE_INLINE void next() { ++i; }
};

/// Parent p stores the coordinates [lo[p], lo[p] + pos[p+1] - pos[p]) at positions
/// [pos[p], pos[p+1]): the band from its first to its last entry, gaps inside it padded with
/// zeros. No coordinate array: a band matrix costs its values plus two integers per row.
template <class Pos = std::int64_t, class Crd = std::int32_t> struct banded_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::banded_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.random_access = true, .padded = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "banded";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning> struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p], pos[p+1]); pos_access(q) -> lo[p] + q - pos[p]
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> lo;
  };

  template <search_strategy, bool Owning>
  static banded_cursor iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    const auto base = static_cast<std::int64_t>(st.pos[begin]);
    const auto lo = static_cast<std::int64_t>(st.lo[begin]);
    return {base, lo, lo, lo + static_cast<std::int64_t>(st.pos[begin + 1]) - base};
  }

  // check (O(1)): pos has parents + 1 entries from 0, lo one per parent -> pos[last] positions
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    const std::int64_t last = detail::check_pos(name, in, std::span<const Pos>(st.pos));
    if (!st.pos.empty() && static_cast<std::int64_t>(st.lo.size()) != in.parents)
      detail::bad_storage(name, in,
                          "lo has " + std::to_string(st.lo.size()) + " entries, expected " +
                              std::to_string(in.parents));
    return last;
  }
  // validate (O(parents)): pos does not decrease; each band [lo, lo + width) lies in the extent
  template <bool Owning>
  static void validate_storage(const storage<Owning>& st, const level_check& in) {
    detail::check_pos_monotone(name, in, std::span<const Pos>(st.pos));
    for (std::size_t p = 0; p < st.lo.size(); ++p) {
      const auto lo = static_cast<std::int64_t>(st.lo[p]);
      const auto width = static_cast<std::int64_t>(st.pos[p + 1] - st.pos[p]);
      if (width > 0 && (lo < 0 || lo > in.extent - width))
        detail::bad_storage(name, in,
                            "the band of parent " + std::to_string(p) + ", [" + std::to_string(lo) +
                                ", " + std::to_string(lo) + " + " + std::to_string(width) +
                                "), is outside [0, " + std::to_string(in.extent) + ")");
    }
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    const auto parents = static_cast<std::size_t>(in.parents);
    st.lo.assign(parents, Crd(0));
    std::vector<std::int64_t> width(parents, 0);
    // entries of one parent are contiguous and ascending: the band is [first, last + 1)
    for (std::size_t e = 0; e < nnz; ++e) {
      const auto p = static_cast<std::size_t>(in.parent[e]);
      if (e == 0 || in.parent[e] != in.parent[e - 1]) st.lo[p] = static_cast<Crd>(in.coord[e]);
      width[p] = in.coord[e] - st.lo[p] + 1;
    }
    st.pos.assign(parents + 1, Pos(0));
    std::int64_t total = 0;
    for (std::size_t p = 0; p < parents; ++p) {
      total += width[p];
      detail::check_fits<Pos>(total, "number of positions");
      st.pos[p + 1] = static_cast<Pos>(total);
    }
    detail::check_padded_positions(name, in, total);  // before the values are allocated
    for (std::size_t e = 0; e < nnz; ++e) {
      const auto p = static_cast<std::size_t>(in.parent[e]);
      position[e] = static_cast<std::int64_t>(st.pos[p]) + in.coord[e] - st.lo[p];
    }
    return total;
  }
};

/// The banded level with int64 positions and int32 coordinates.
using banded = banded_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_BANDED_HPP
