// Defines loom::hashed_level and loom::hashed: a per-parent hash table over the coordinates,
// locate in O(1), iteration in coordinate order (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_HASHED_HPP
#define LOOM_FORMAT_LEVELS_HASHED_HPP

#include <loom/core/config.hpp>
#include <loom/format/levels/coordinate_cursor.hpp>
#include <loom/format/levels/level_base.hpp>

#include <cstdint>
#include <string>

namespace loom {

/// The hashed cursor: iterates like a coordinate segment, locates through the table.
template <class Pos, class Crd, search_strategy P>
struct hashed_cursor : coordinate_cursor<Crd, true, P> {
  const Pos* table = nullptr;  // slots of this parent: position + 1, or 0 when empty
  std::uint64_t mask = 0;      // capacity - 1; capacity 0 means no entries

  // locate(i) -> {q, q+1} with crd[q] == i, probing linearly (load <= 1/2, so it terminates)
  LOOM_FORCE_INLINE level_range locate(std::int64_t i) const {
    if (table == nullptr) return {};
    return detail::probe_table(table, mask, this->crd, i);
  }
};

/// Coordinates of parent p are looked up in a hash table (open addressing, capacity a power
/// of two at least twice the count) in O(1); positions [pos[p], pos[p+1]) keep the same
/// coordinates in ascending order, the sorted order that iteration needs. Assembly receives
/// entries sorted, so that order costs no sort; the table answers `locate`, so the planner
/// iterates the other operand and probes this one.
template <class Pos = std::int64_t, class Crd = std::int32_t> struct hashed_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::hashed_level: position and coordinate types must be integers");
  static constexpr level_properties properties{.random_access = true};
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "hashed";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning> struct storage {
    // pos_bounds(p_{k-1}) -> [pos[p], pos[p+1]); crd ascending within
    // locate(p_{k-1}, i)  -> table[slot_pos[p] ..  slot_pos[p+1]) probed from hash(i)
    level_array<Pos, Owning> pos;
    level_array<Crd, Owning> crd;
    level_array<Pos, Owning> slot_pos;
    level_array<Pos, Owning> table;
  };

  template <search_strategy P, bool Owning>
  static hashed_cursor<Pos, Crd, P> iterate(const storage<Owning>& st, std::int64_t begin,
                                            std::int64_t) {
    hashed_cursor<Pos, Crd, P> c;
    c.crd = st.crd.data();
    c.p = static_cast<std::int64_t>(st.pos[begin]);
    c.end = static_cast<std::int64_t>(st.pos[begin + 1]);
    const auto s0 = static_cast<std::int64_t>(st.slot_pos[begin]);
    const auto s1 = static_cast<std::int64_t>(st.slot_pos[begin + 1]);
    if (s1 > s0) {
      c.table = st.table.data() + s0;
      c.mask = static_cast<std::uint64_t>(s1 - s0 - 1);
    }
    return c;
  }

  // check (O(1)): pos and slot_pos have parents + 1 entries from 0; pos ends at crd's length,
  // slot_pos at the table's
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    const std::int64_t last = detail::check_pos(name, in, std::span<const Pos>(st.pos));
    detail::check_array_end(name, in, "pos", last, "crd", st.crd.size(), "entries");
    const std::int64_t slots = detail::check_pos(name, in, std::span<const Pos>(st.slot_pos));
    detail::check_array_end(name, in, "slot_pos", slots, "the table", st.table.size(), "slots");
    return last;
  }
  // validate (O(nnz + slots)): as a compressed level; each table is a power of two at least twice
  // its parent's count, and its slots name positions of that parent
  template <bool Owning>
  static void validate_storage(const storage<Owning>& st, const level_check& in) {
    detail::check_pos_monotone(name, in, std::span<const Pos>(st.pos));
    detail::check_pos_monotone(name, in, std::span<const Pos>(st.slot_pos));
    detail::check_segments(name, in, std::span<const Pos>(st.pos), std::span<const Crd>(st.crd),
                           true);
    for (std::size_t p = 0; p + 1 < st.pos.size(); ++p) {
      const auto count = static_cast<std::int64_t>(st.pos[p + 1] - st.pos[p]);
      const auto cap = static_cast<std::int64_t>(st.slot_pos[p + 1] - st.slot_pos[p]);
      if ((count == 0) != (cap == 0) || (cap != 0 && ((cap & (cap - 1)) != 0 || cap < 2 * count)))
        detail::bad_storage(name, in,
                            "parent " + std::to_string(p) + " has " + std::to_string(count) +
                                " coordinates but " + std::to_string(cap) +
                                " hash slots (expected a power of two at least twice as many)");
      for (auto s = static_cast<std::int64_t>(st.slot_pos[p]);
           s < static_cast<std::int64_t>(st.slot_pos[p + 1]); ++s) {
        const auto v = static_cast<std::int64_t>(st.table[static_cast<std::size_t>(s)]);
        if (v != 0 && (v - 1 < static_cast<std::int64_t>(st.pos[p]) ||
                       v - 1 >= static_cast<std::int64_t>(st.pos[p + 1])))
          detail::bad_storage(name, in,
                              "hash slot " + std::to_string(s) + " names position " +
                                  std::to_string(v - 1) + ", outside parent " + std::to_string(p));
      }
    }
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    const auto parents = static_cast<std::size_t>(in.parents);
    st.crd.reserve(nnz);
    st.pos.assign(parents + 1, Pos(0));
    for (std::size_t e = 0; e < nnz; ++e) {
      if (e == 0 || in.parent[e] != in.parent[e - 1] || in.coord[e] != in.coord[e - 1]) {
        st.crd.push_back(static_cast<Crd>(in.coord[e]));
        ++st.pos[static_cast<std::size_t>(in.parent[e]) + 1];
      }
      position[e] = static_cast<std::int64_t>(st.crd.size()) - 1;
    }
    // checked before the counts are summed in the narrow type
    detail::check_fits<Pos>(static_cast<std::int64_t>(st.crd.size()) + 1, "number of positions");
    for (std::size_t p = 1; p <= parents; ++p) st.pos[p] += st.pos[p - 1];
    // tables: capacity the next power of two >= 2 * count (0 for an empty parent)
    st.slot_pos.assign(parents + 1, Pos(0));
    std::int64_t slots = 0;
    for (std::size_t p = 0; p < parents; ++p) {
      const std::int64_t count = static_cast<std::int64_t>(st.pos[p + 1] - st.pos[p]);
      std::int64_t cap = count == 0 ? 0 : 2;
      while (cap < 2 * count) cap *= 2;
      slots += cap;
      detail::check_fits<Pos>(slots, "number of hash slots");
      st.slot_pos[p + 1] = static_cast<Pos>(slots);
    }
    st.table.assign(static_cast<std::size_t>(slots), Pos(0));
    for (std::size_t p = 0; p < parents; ++p) {
      const auto base = static_cast<std::size_t>(st.slot_pos[p]);
      const auto mask = static_cast<std::uint64_t>(st.slot_pos[p + 1] - st.slot_pos[p]) - 1;
      detail::fill_table(st.table.data() + base, mask, st.crd.data(),
                         static_cast<std::int64_t>(st.pos[p]),
                         static_cast<std::int64_t>(st.pos[p + 1]));
    }
    return static_cast<std::int64_t>(st.crd.size());
  }
};

/// The hashed level with int64 positions and int32 coordinates.
using hashed = hashed_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_HASHED_HPP
