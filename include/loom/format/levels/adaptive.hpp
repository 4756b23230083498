// Defines loom::adaptive_level and loom::adaptive: a level that stores each fiber sorted, hashed,
// as a bitmap or dense, chosen at assembly from that fiber's fill, and read through one cursor
// that branches on the fiber's kind (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_ADAPTIVE_HPP
#define LOOM_FORMAT_LEVELS_ADAPTIVE_HPP

#include <loom/core/config.hpp>
#include <loom/format/levels/level_base.hpp>

#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom {

/// How one fiber of an adaptive level is stored (Galley's formats, per fiber).
enum class fiber_kind : std::uint8_t {
  sorted,  ///< ascending coordinates; located by binary search
  hashed,  ///< ascending coordinates and an open-addressing table; located in O(1)
  bitmap,  ///< a position per coordinate of the extent, a presence bit each
  dense,   ///< every coordinate present, a position each
};

/// "sorted", "hashed", "bitmap" or "dense".
constexpr std::string_view fiber_kind_name(fiber_kind k) {
  return k == fiber_kind::hashed   ? "hashed"
         : k == fiber_kind::bitmap ? "bitmap"
         : k == fiber_kind::dense  ? "dense"
                                   : "sorted";
}

/// The adaptive cursor. Every kind keeps its fiber's positions [first, end) and a coordinate per
/// position (a padded fiber's is its offset), so `valid`, `index` and `children` do not branch;
/// `next`, `seek` and `locate` read the fiber's kind, which is the same for the whole fiber, so
/// the branch predicts.
template <class Pos, class Crd, search_strategy P> struct adaptive_cursor {
  const Crd* crd = nullptr;
  const std::uint64_t* bits = nullptr;
  const Pos* table = nullptr;  // a hashed fiber's slots: position + 1, or 0 when empty
  std::uint64_t mask = 0;      // its capacity - 1
  std::int64_t first = 0, p = 0, end = 0;
  // a sorted fiber's last located position: probes from an operand iterated in order ascend, so
  // the next one gallops on from here (the work of a leapfrog) rather than searching the fiber
  mutable std::int64_t hint = 0;
  fiber_kind kind = fiber_kind::sorted;

  LOOM_FORCE_INLINE bool valid() const { return p < end; }
  LOOM_FORCE_INLINE std::int64_t index() const { return crd[p]; }
  LOOM_FORCE_INLINE level_range children() const { return {p, p + 1}; }
  LOOM_FORCE_INLINE void next() {
    if (kind == fiber_kind::bitmap)
      p = first_set(p + 1);
    else
      ++p;
  }
  LOOM_FORCE_INLINE void seek(std::int64_t i) {
    if (p >= end || crd[p] >= i) return;
    switch (kind) {
      case fiber_kind::dense:
        p = i < end - first ? first + i : end;
        return;
      case fiber_kind::bitmap:
        p = i < end - first ? first_set(first + i) : end;
        return;
      default:
        p = detail::search_first<P>(crd, p, end, i);
    }
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t i) {
    if (i == detail::top_coordinate)
      p = end;
    else
      seek(i + 1);
  }
  LOOM_FORCE_INLINE level_range locate(std::int64_t i) const {
    switch (kind) {
      case fiber_kind::dense:
        return {first + i, first + i + 1};
      case fiber_kind::bitmap: {
        const std::int64_t q = first + i;
        if ((bits[q >> 6] >> (q & 63)) & 1u) return {q, q + 1};
        return {};
      }
      case fiber_kind::hashed:
        return detail::probe_table(table, mask, crd, i);
      default: {
        const std::int64_t from = hint < end && crd[hint] <= i ? hint : first;
        const std::int64_t q = detail::search_first<search_strategy::galloping>(crd, from, end, i);
        hint = q < end ? q : from;
        if (q < end && crd[q] == i) return {q, q + 1};
        return {};
      }
    }
  }

 private:
  // the first set bit at a position >= q of this fiber, or end: a word at a time
  LOOM_FORCE_INLINE std::int64_t first_set(std::int64_t q) const {
    if (q >= end) return end;
    std::int64_t w = q >> 6;
    std::uint64_t word = bits[w] & (~std::uint64_t{0} << (q & 63));
    while (word == 0) {
      if ((w + 1) * 64 >= end) return end;
      word = bits[++w];
    }
    const std::int64_t found = w * 64 + std::countr_zero(word);
    return found < end ? found : end;
  }
};

/// Each fiber (the coordinates of one parent) is stored in the kind its fill calls for, decided
/// when the level is assembled: dense when every coordinate is present, a bitmap when at least
/// one in `BitmapFill` is, hashed (sorted plus a table) when it holds at least `HashMin`
/// coordinates, sorted otherwise. A fiber's positions are [pos[p], pos[p+1]): one per coordinate
/// of the extent when dense or a bitmap (absent ones are zero padding), one per entry otherwise.
/// Random access: a dense or bitmap fiber locates in O(1), a hashed one through its table, a
/// sorted one (fewer than `HashMin` entries) by binary search.
template <class Pos = std::int64_t, class Crd = std::int32_t, std::int64_t BitmapFill = 16,
          std::int64_t HashMin = 16>
struct adaptive_level {
  static_assert(std::is_integral_v<Pos> && std::is_integral_v<Crd>,
                "loom::adaptive_level: position and coordinate types must be integers");
  static_assert(BitmapFill >= 1 && HashMin >= 1,
                "loom::adaptive_level: BitmapFill and HashMin must be at least 1");
  static constexpr level_properties properties{.random_access = true, .padded = true};
  // a sparse output appends its entries as into a compressed level, then `adapt` lays them out
  static constexpr level_layout layout = level_layout::appended;
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "adaptive";
  using pos_type = Pos;
  using crd_type = Crd;

  template <bool Owning> struct storage {
    std::int64_t extent = 0;
    level_array<fiber_kind, Owning> kind;     // per parent
    level_array<Pos, Owning> pos;             // per parent + 1: its first position
    level_array<Crd, Owning> crd;             // per position: its coordinate
    level_array<std::uint64_t, Owning> bits;  // per position: present (bitmap fibers)
    level_array<Pos, Owning> slot_pos;        // per parent + 1: its first hash slot
    level_array<Pos, Owning> table;           // hashed fibers' slots: position + 1, or 0
    /// When set before the level is assembled or appended, every fiber takes this kind rather
    /// than its fill's (a dense one only where full, else a bitmap): a caller that has costed
    /// the kinds, as `decompose` does for its intermediates, picks one at run time.
    std::optional<fiber_kind> only{};
  };

  /// The kind a fiber of `count` coordinates out of `extent` is stored in.
  static constexpr fiber_kind kind_for(std::int64_t count, std::int64_t extent) {
    if (count > 0 && count == extent) return fiber_kind::dense;
    if (count > 0 && count * BitmapFill >= extent) return fiber_kind::bitmap;
    if (count >= HashMin) return fiber_kind::hashed;
    return fiber_kind::sorted;
  }

  template <search_strategy P, bool Owning>
  static adaptive_cursor<Pos, Crd, P> iterate(const storage<Owning>& st, std::int64_t begin,
                                              std::int64_t) {
    adaptive_cursor<Pos, Crd, P> c;
    c.crd = st.crd.data();
    c.bits = st.bits.data();
    c.kind = st.kind[static_cast<std::size_t>(begin)];
    c.first = c.p = c.hint = static_cast<std::int64_t>(st.pos[static_cast<std::size_t>(begin)]);
    c.end = static_cast<std::int64_t>(st.pos[static_cast<std::size_t>(begin) + 1]);
    if (c.kind == fiber_kind::hashed) {
      const auto s0 = static_cast<std::int64_t>(st.slot_pos[static_cast<std::size_t>(begin)]);
      const auto s1 = static_cast<std::int64_t>(st.slot_pos[static_cast<std::size_t>(begin) + 1]);
      c.table = st.table.data() + s0;
      c.mask = static_cast<std::uint64_t>(s1 - s0 - 1);
    } else if (c.kind == fiber_kind::bitmap && c.p < c.end &&
               !((c.bits[c.p >> 6] >> (c.p & 63)) & 1u)) {
      c.next();  // to the first present coordinate
    }
    return c;
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    if (in.extent > 0)
      detail::check_fits<Crd>(in.extent - 1,
                              "largest coordinate of mode " + std::to_string(in.mode));
    const std::size_t nnz = in.coord.size();
    // distinct coordinates per parent (entries are sorted; equal ones share a position)
    std::vector<std::int64_t> count(static_cast<std::size_t>(in.parents), 0);
    for (std::size_t e = 0; e < nnz; ++e)
      if (e == 0 || in.parent[e] != in.parent[e - 1] || in.coord[e] != in.coord[e - 1])
        ++count[static_cast<std::size_t>(in.parent[e])];
    const std::int64_t positions = lay_out(st, count, in.extent);
    detail::check_padded_positions(name, in, positions);
    st.crd.assign(static_cast<std::size_t>(positions), Crd(0));
    number_padded(st);
    std::int64_t next = 0;  // a sorted or hashed fiber fills its positions in order
    for (std::size_t e = 0; e < nnz; ++e) {
      const auto p = static_cast<std::size_t>(in.parent[e]);
      if (e == 0 || in.parent[e] != in.parent[e - 1]) next = static_cast<std::int64_t>(st.pos[p]);
      if (padded(st.kind[p])) {
        const std::int64_t q = static_cast<std::int64_t>(st.pos[p]) + in.coord[e];
        st.bits[static_cast<std::size_t>(q >> 6)] |= std::uint64_t{1} << (q & 63);
        position[e] = q;
      } else {
        const bool repeat =
            e > 0 && in.parent[e] == in.parent[e - 1] && in.coord[e] == in.coord[e - 1];
        if (!repeat) st.crd[static_cast<std::size_t>(next++)] = static_cast<Crd>(in.coord[e]);
        position[e] = next - 1;
      }
    }
    build_tables(st);
    return positions;
  }

  /// After a sparse output was appended as a compressed level (`pos`, `crd`, one value per
  /// entry), lays each fiber out in its kind, moving the values of the padded ones (absent
  /// coordinates get `zero`).
  template <class T>
  static void adapt(storage<true>& st, std::vector<T>& values, std::int64_t extent, const T& zero) {
    const std::size_t parents = st.pos.empty() ? 0 : st.pos.size() - 1;
    std::vector<std::int64_t> count(parents);
    for (std::size_t p = 0; p < parents; ++p)
      count[p] = static_cast<std::int64_t>(st.pos[p + 1] - st.pos[p]);
    level_array<Pos, true> old_pos = std::move(st.pos);
    const std::int64_t positions = lay_out(st, count, extent);
    bool any_padded = false;
    for (const fiber_kind k : st.kind) any_padded = any_padded || padded(k);
    if (any_padded) {  // its values move to their coordinates; its bits are set
      level_array<Crd, true> old_crd = std::move(st.crd);
      std::vector<T> old_values = std::move(values);
      st.crd.assign(static_cast<std::size_t>(positions), Crd(0));
      values.assign(static_cast<std::size_t>(positions), zero);
      number_padded(st);
      for (std::size_t p = 0; p < parents; ++p) {
        const auto to = static_cast<std::int64_t>(st.pos[p]);
        const bool pad = padded(st.kind[p]);
        for (auto q = static_cast<std::int64_t>(old_pos[p]);
             q < static_cast<std::int64_t>(old_pos[p + 1]); ++q) {
          const std::int64_t c = old_crd[static_cast<std::size_t>(q)];
          const std::int64_t r = pad ? to + c : to + (q - static_cast<std::int64_t>(old_pos[p]));
          if (pad) st.bits[static_cast<std::size_t>(r >> 6)] |= std::uint64_t{1} << (r & 63);
          st.crd[static_cast<std::size_t>(r)] = static_cast<Crd>(c);
          values[static_cast<std::size_t>(r)] = std::move(old_values[static_cast<std::size_t>(q)]);
        }
      }
    }
    build_tables(st);
  }

 private:
  static constexpr bool padded(fiber_kind k) {
    return k == fiber_kind::dense || k == fiber_kind::bitmap;
  }
  // each fiber's kind from its count, `pos` (its positions), `slot_pos` (its table's slots),
  // `extent`, `bits` (cleared) and `table` (sized); returns the number of positions
  static std::int64_t lay_out(storage<true>& st, const std::vector<std::int64_t>& count,
                              std::int64_t extent) {
    const std::size_t parents = count.size();
    st.extent = extent;
    st.kind.assign(parents, fiber_kind::sorted);
    st.pos.assign(parents + 1, Pos(0));
    st.slot_pos.assign(parents + 1, Pos(0));
    std::int64_t positions = 0, slots = 0;
    for (std::size_t p = 0; p < parents; ++p) {
      const fiber_kind k = !st.only ? kind_for(count[p], extent)
                           : *st.only == fiber_kind::dense && (count[p] != extent || extent == 0)
                               ? fiber_kind::bitmap
                               : *st.only;
      st.kind[p] = k;
      positions += padded(k) ? extent : count[p];
      detail::check_fits<Pos>(positions, "number of positions");
      st.pos[p + 1] = static_cast<Pos>(positions);
      if (k == fiber_kind::hashed) {
        std::int64_t cap = 2;
        while (cap < 2 * count[p]) cap *= 2;
        slots += cap;
        detail::check_fits<Pos>(slots, "number of hash slots");
      }
      st.slot_pos[p + 1] = static_cast<Pos>(slots);
    }
    st.bits.assign(static_cast<std::size_t>((positions + 63) / 64), 0);
    st.table.assign(static_cast<std::size_t>(slots), Pos(0));
    return positions;
  }
  // a padded fiber's coordinate at each position is its offset
  static void number_padded(storage<true>& st) {
    for (std::size_t p = 0; p < st.kind.size(); ++p)
      if (padded(st.kind[p]))
        for (std::int64_t i = 0; i < st.extent; ++i)
          st.crd[static_cast<std::size_t>(st.pos[p]) + static_cast<std::size_t>(i)] =
              static_cast<Crd>(i);
  }
  // the hashed fibers' tables, from their coordinates
  static void build_tables(storage<true>& st) {
    for (std::size_t p = 0; p < st.kind.size(); ++p) {
      if (st.kind[p] != fiber_kind::hashed) continue;
      const auto base = static_cast<std::size_t>(st.slot_pos[p]);
      const auto mask = static_cast<std::uint64_t>(st.slot_pos[p + 1] - st.slot_pos[p]) - 1;
      detail::fill_table(st.table.data() + base, mask, st.crd.data(),
                         static_cast<std::int64_t>(st.pos[p]),
                         static_cast<std::int64_t>(st.pos[p + 1]));
    }
  }

 public:
  /// Stored entries: the coordinates of the sorted, hashed and dense fibers and the set bits of
  /// the bitmap ones (`nnz()` of a tensor whose innermost level is adaptive).
  template <bool Owning> static std::int64_t stored_count(const storage<Owning>& st) {
    std::int64_t c = 0;
    for (std::size_t p = 0; p < st.kind.size(); ++p) {
      const auto a = static_cast<std::int64_t>(st.pos[p]);
      const auto b = static_cast<std::int64_t>(st.pos[p + 1]);
      if (st.kind[p] != fiber_kind::bitmap) {
        c += b - a;
        continue;
      }
      for (std::int64_t q = a; q < b; ++q)
        c +=
            static_cast<std::int64_t>((st.bits[static_cast<std::size_t>(q >> 6)] >> (q & 63)) & 1u);
    }
    return c;
  }

  /// How many fibers are stored in kind `k` (explain and tests).
  template <bool Owning> static std::int64_t fibers_of(const storage<Owning>& st, fiber_kind k) {
    std::int64_t n = 0;
    for (const fiber_kind x : st.kind) n += x == k ? 1 : 0;
    return n;
  }

  // check (O(1)): per-parent arrays of parents (+ 1) entries; crd one per position, bits a bit
  // per position, the table as long as slot_pos says
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    if (st.extent != in.extent)
      detail::bad_storage(name, in, "the level stores the extent " + std::to_string(st.extent));
    if (static_cast<std::int64_t>(st.kind.size()) != in.parents)
      detail::bad_storage(name, in,
                          "kind has " + std::to_string(st.kind.size()) + " entries, expected " +
                              std::to_string(in.parents));
    const std::int64_t last = detail::check_pos(name, in, std::span<const Pos>(st.pos));
    detail::check_array_end(name, in, "pos", last, "crd", st.crd.size(), "entries");
    if (static_cast<std::int64_t>(st.bits.size()) != (last + 63) / 64)
      detail::bad_storage(name, in,
                          "bits has " + std::to_string(st.bits.size()) + " words, expected " +
                              std::to_string((last + 63) / 64));
    const std::int64_t slots = detail::check_pos(name, in, std::span<const Pos>(st.slot_pos));
    detail::check_array_end(name, in, "slot_pos", slots, "the table", st.table.size(), "slots");
    return last;
  }

  // validate (O(positions + slots)): each fiber's kind is known and its positions fit it (a
  // padded fiber has extent positions numbered 0, 1, ...; a dense one every bit set), sorted and
  // hashed coordinates ascend within the extent, and a hashed fiber's table (a power of two at
  // least twice its count) names positions of that fiber only
  template <bool Owning>
  static void validate_storage(const storage<Owning>& st, const level_check& in) {
    detail::check_pos_monotone(name, in, std::span<const Pos>(st.pos));
    detail::check_pos_monotone(name, in, std::span<const Pos>(st.slot_pos));
    for (std::size_t p = 0; p < st.kind.size(); ++p) {
      const fiber_kind k = st.kind[p];
      const auto a = static_cast<std::int64_t>(st.pos[p]);
      const auto b = static_cast<std::int64_t>(st.pos[p + 1]);
      const auto slots = static_cast<std::int64_t>(st.slot_pos[p + 1] - st.slot_pos[p]);
      const std::string fiber =
          "fiber " + std::to_string(p) + " (" + std::string(fiber_kind_name(k)) + ")";
      if (static_cast<std::uint8_t>(k) > static_cast<std::uint8_t>(fiber_kind::dense))
        detail::bad_storage(name, in,
                            "fiber " + std::to_string(p) + " has the unknown kind " +
                                std::to_string(static_cast<int>(k)));
      if ((k == fiber_kind::hashed) != (slots != 0) ||
          (slots != 0 && ((slots & (slots - 1)) != 0 || slots < 2 * (b - a))))
        detail::bad_storage(name, in,
                            fiber + " has " + std::to_string(b - a) + " positions and " +
                                std::to_string(slots) + " hash slots");
      const bool padded = k == fiber_kind::dense || k == fiber_kind::bitmap;
      if (padded && b - a != in.extent)
        detail::bad_storage(name, in,
                            fiber + " has " + std::to_string(b - a) + " positions, not the extent");
      for (std::int64_t q = a; q < b; ++q) {
        const auto c = static_cast<std::int64_t>(st.crd[static_cast<std::size_t>(q)]);
        const bool set = (st.bits[static_cast<std::size_t>(q >> 6)] >> (q & 63)) & 1u;
        if (padded ? c != q - a : (c < 0 || c >= in.extent || (q > a && c <= st.crd[q - 1])))
          detail::bad_storage(name, in,
                              fiber + ": coordinate " + std::to_string(c) + " at position " +
                                  std::to_string(q) + " is out of place");
        if (k == fiber_kind::dense && !set)
          detail::bad_storage(name, in, fiber + ": position " + std::to_string(q) + " is unset");
      }
      for (auto s = static_cast<std::int64_t>(st.slot_pos[p]);
           s < static_cast<std::int64_t>(st.slot_pos[p + 1]); ++s) {
        const auto v = static_cast<std::int64_t>(st.table[static_cast<std::size_t>(s)]);
        if (v != 0 && (v - 1 < a || v - 1 >= b))
          detail::bad_storage(name, in,
                              "hash slot " + std::to_string(s) + " names position " +
                                  std::to_string(v - 1) + ", outside " + fiber);
      }
    }
  }
};

/// The adaptive level with int64 positions and int32 coordinates.
using adaptive = adaptive_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_ADAPTIVE_HPP
