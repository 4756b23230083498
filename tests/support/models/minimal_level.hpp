// A user-defined level written outside loom (docs/levels.md quotes this file): coordinates
// stored as 16-bit gaps. It implements only the members loom::level_type requires.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_MODELS_MINIMAL_LEVEL_HPP
#define LOOM_TESTS_SUPPORT_MODELS_MINIMAL_LEVEL_HPP

#include <loom/loom.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace example {

// [level]
/// Coordinates of parent p are the running sums of gap[pos[p] .. pos[p+1]): a sorted
/// coordinate list in 2 bytes per entry instead of 4. Iteration only (no locate).
struct gap_level {
  static constexpr loom::level_properties properties{};  // ordered, unique
  static constexpr std::size_t static_extent = loom::dynamic_extent;
  static constexpr std::string_view name = "gap";

  template <bool Owning>  // vectors in a tensor, spans in a view
  struct storage {
    loom::level_array<std::int64_t, Owning> pos;
    loom::level_array<std::uint16_t, Owning> gap;
  };

  // Walks one parent's gaps; positions are indices into `gap`.
  struct cursor {
    const std::uint16_t* gap = nullptr;
    std::int64_t q = 0, end = 0, i = 0;  // position, end of segment, coordinate at q

    bool valid() const { return q < end; }
    std::int64_t index() const { return i; }
    loom::level_range children() const { return {q, q + 1}; }
    void next() {
      if (++q < end) i += gap[q];
    }
    void seek(std::int64_t j) {  // first coordinate >= j; never backwards
      while (q < end && i < j) next();
    }
    void seek_past(std::int64_t j) {  // first coordinate > j
      while (q < end && i <= j) next();
    }
  };

  template <loom::search_strategy, bool Owning>
  static cursor iterate(const storage<Owning>& st, std::int64_t parent, std::int64_t) {
    cursor c{st.gap.data(), st.pos[parent], st.pos[parent + 1], 0};
    if (c.q < c.end) c.i = c.gap[c.q];
    return c;
  }

  // Entries arrive sorted by (parent, coordinate), unique; entries that share a parent and a
  // coordinate (they differ at a deeper level) share a position.
  static std::int64_t assemble(storage<true>& st, const loom::level_build& in,
                               std::span<std::int64_t> position) {
    st.pos.assign(static_cast<std::size_t>(in.parents) + 1, 0);
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      const bool first = e == 0 || in.parent[e] != in.parent[e - 1];
      if (!first && in.coord[e] == in.coord[e - 1]) {
        position[e] = position[e - 1];
        continue;
      }
      const std::int64_t gap = in.coord[e] - (first ? 0 : in.coord[e - 1]);
      if (gap > 0xFFFF)
        throw loom::overflow_error("gap_level: gap " + std::to_string(gap) + " in mode " +
                                   std::to_string(in.mode) + " exceeds 16 bits");
      st.gap.push_back(static_cast<std::uint16_t>(gap));
      ++st.pos[static_cast<std::size_t>(in.parent[e]) + 1];
      position[e] = static_cast<std::int64_t>(st.gap.size()) - 1;
    }
    for (std::size_t p = 1; p < st.pos.size(); ++p) st.pos[p] += st.pos[p - 1];
    return static_cast<std::int64_t>(st.gap.size());
  }
};
static_assert(loom::level_type<gap_level> && !loom::level_with_locate<gap_level>);

/// CSR with gap-encoded column indices.
using gap_csr = loom::format<loom::dense, gap_level>;
// [level]

}  // namespace example

#endif  // LOOM_TESTS_SUPPORT_MODELS_MINIMAL_LEVEL_HPP
