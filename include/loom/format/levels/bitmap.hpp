// Defines loom::bitmap_level and loom::bitmap: a dense presence bitset with dense values;
// iteration visits the set bits, locate is one bit test (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_LEVELS_BITMAP_HPP
#define LOOM_FORMAT_LEVELS_BITMAP_HPP

#include <loom/core/config.hpp>
#include <loom/format/levels/level_base.hpp>

#include <bit>
#include <cstdint>
#include <string>

namespace loom {

/// The set bits of [base, base + n) of a bitset, each at most once, ascending.
struct bitmap_cursor {
  const std::uint64_t* bits = nullptr;
  std::int64_t base = 0, i = 0, n = 0;  // invariant: i == n or bit base + i is set

  LOOM_FORCE_INLINE bool valid() const { return i < n; }
  LOOM_FORCE_INLINE std::int64_t index() const { return i; }
  LOOM_FORCE_INLINE level_range children() const { return {base + i, base + i + 1}; }
  LOOM_FORCE_INLINE bool test(std::int64_t j) const {
    const std::int64_t b = base + j;
    return (bits[b >> 6] >> (b & 63)) & 1u;
  }
  LOOM_FORCE_INLINE level_range locate(std::int64_t j) const {
    if (test(j)) return {base + j, base + j + 1};
    return {};
  }
  LOOM_FORCE_INLINE void seek(std::int64_t j) {
    if (j > i) i = first_set(j);
  }
  LOOM_FORCE_INLINE void seek_past(std::int64_t j) {
    if (j >= n)
      i = n;
    else if (j >= i)
      i = first_set(j + 1);
  }
  LOOM_FORCE_INLINE void next() { i = first_set(i + 1); }
  // first set bit at an offset >= j (j <= n), or n: a word at a time
  LOOM_FORCE_INLINE std::int64_t first_set(std::int64_t j) const {
    if (j >= n) return n;
    std::int64_t b = base + j;
    const std::int64_t last = base + n;
    std::uint64_t word = bits[b >> 6] & (~std::uint64_t{0} << (b & 63));
    std::int64_t w = b >> 6;
    while (word == 0) {
      if ((w + 1) * 64 >= last) return n;
      word = bits[++w];
    }
    const std::int64_t found = w * 64 + std::countr_zero(word) - base;
    return found < n ? found : n;
  }
};

/// Coordinate i of parent p is present when bit `p * extent + i` is set; values sit at that
/// position as in a dense level (absent ones are zero padding), so locate is one bit test and
/// iteration skips 64 absent coordinates per word.
template <class Crd = std::int32_t> struct bitmap_level {
  static constexpr level_properties properties{.random_access = true, .padded = true};
  static constexpr level_layout layout = level_layout::bitmap;
  static constexpr std::size_t static_extent = dynamic_extent;
  static constexpr std::string_view name = "bitmap";
  using crd_type = Crd;

  template <bool Owning> struct storage {
    // locate(p_{k-1}, i) -> p * extent + i when bits[p * extent + i]
    std::int64_t extent = 0;
    level_array<std::uint64_t, Owning> bits;
  };

  template <search_strategy, bool Owning>
  static bitmap_cursor iterate(const storage<Owning>& st, std::int64_t begin, std::int64_t) {
    bitmap_cursor c{st.bits.data(), begin * st.extent, 0, st.extent};
    if (c.n > 0 && !c.test(0)) c.i = c.first_set(1);
    return c;
  }

  // check (O(1)): the stored extent is the mode's, one bit per position
  template <bool Owning>
  static std::int64_t check_storage(const storage<Owning>& st, const level_check& in) {
    if (st.extent != in.extent)
      detail::bad_storage(name, in, "the level stores the extent " + std::to_string(st.extent));
    const std::int64_t count = detail::every_coordinate(name, in);
    const std::int64_t words = count / 64 + (count % 64 != 0);
    if (static_cast<std::int64_t>(st.bits.size()) != words)
      detail::bad_storage(name, in,
                          "bits has " + std::to_string(st.bits.size()) + " words, expected " +
                              std::to_string(words));
    return count;
  }

  static std::int64_t assemble(storage<true>& st, const level_build& in,
                               std::span<std::int64_t> position) {
    st.extent = in.extent;
    if (in.extent != 0 && in.parents > INT64_MAX / in.extent)
      throw overflow_error("loom: the bitmap level of mode " + std::to_string(in.mode) +
                           " would hold more than 2^63 positions");
    const std::int64_t count = in.parents * in.extent;
    detail::check_padded_positions(name, in, count);
    st.bits.assign(static_cast<std::size_t>((count + 63) / 64), 0);
    for (std::size_t e = 0; e < in.coord.size(); ++e) {
      const std::int64_t b = in.parent[e] * in.extent + in.coord[e];
      st.bits[static_cast<std::size_t>(b >> 6)] |= std::uint64_t{1} << (b & 63);
      position[e] = b;
    }
    return count;
  }

  /// Stored entries (set bits): `nnz()` of a tensor whose innermost level is a bitmap.
  template <bool Owning> static std::int64_t stored_count(const storage<Owning>& st) {
    std::int64_t c = 0;
    for (std::uint64_t w : st.bits) c += std::popcount(w);
    return c;
  }
};

/// The bitmap level.
using bitmap = bitmap_level<>;

}  // namespace loom

#endif  // LOOM_FORMAT_LEVELS_BITMAP_HPP
