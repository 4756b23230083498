// Defines the Gustavson workspace sink of a sparse output written out of order: entries that
// arrive in any order are accumulated per row in a workspace of one of three kinds (a dense
// array with a touched list, an open-addressing hash table, a sorted list; its storage is
// format/assembly/workspace_storage.hpp), then appended in order when the row ends
// (format/assembly/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ASSEMBLY_WORKSPACE_HPP
#define LOOM_FORMAT_ASSEMBLY_WORKSPACE_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/assembly/workspace_storage.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace loom::stream {

/// `KeyDepth` of a workspace whose key has more than one level (or is not known statically).
inline constexpr std::size_t no_key_depth = ~std::size_t{0};

/// A Gustavson workspace: the first `prefix` output levels are iterated in order by the outer
/// loops; the rest arrive in any order, possibly repeated, and are accumulated per prefix
/// ("row") in a workspace of kind `kind`, then appended in order when the row ends. `KeyDepth`,
/// when the plan leaves one level to the workspace (SpGEMM's columns), is the loop depth of
/// that level: the key is then that index, read without a loop over levels. `RowDepth`, when
/// given, is the depth that fixes the last prefix level: the end of its indices flushes a row,
/// a test the compiler folds at every loop instead of reading `prefix` per entry.
template <class T, std::size_t N, class Out, std::size_t KeyDepth = no_key_depth,
          std::size_t RowDepth = no_key_depth>
struct workspace_sink {
  using value_type = T;
  Out& out;
  std::array<std::int64_t, 32> at_depth{};
  std::array<std::size_t, N> depth_of_level{};
  std::array<std::int64_t, N> level_extent{};
  std::size_t prefix = 0;  // output levels fixed by the outer loops
  workspace_kind kind = workspace_kind::dense;
  std::int64_t expected_row_entries = 0;  // sizes the hash table; it grows past half full
  // dense: acc, seen, cells; hashed: slot_key (key + 1, 0 empty), slot_val, `touched` the used
  // slots; sorted (and the hashed row's entries, sorted before they are appended): pairs
  workspace_buffers<T> buf{};
  std::uint64_t mask = 0;
  bool clean = false;      // finished: the buffers may go back to the thread's spare ones
  std::int64_t space = 0;  // cells of a row: dense keys are below it
  // hashed and sorted keys pack the row's levels into bit fields when they fit in 62 bits (no
  // divisions to unpack them, and a sort can skip fields); otherwise they are mixed-radix
  bool packed = false;
  std::array<int, N> shift{};
  std::array<std::int64_t, N> field{};  // (1 << bits of the level) - 1
  int key_bits = 0;                     // bits of a packed key
  int sorted_bits = 0;                  // low bits already in order as the entries arrive

  // a matrix whose rows the workspace holds (SpGEMM's: the key is the column) into a csr-like
  // output: a row is stored whole (append_row), and the per-entry paths are not compiled
  static constexpr bool whole_rows =
      N == 2 && KeyDepth != no_key_depth && requires { requires Out::by_rows; };

  ~workspace_sink() {
    if (clean) buf.keep_as_spare();  // an exception left them dirty
  }

  void init() {
    buf.take_spare();  // clean, possibly empty
    clean = false;
    const detail::workspace_keys keys = detail::plan_workspace_keys(
        N, prefix, level_extent.data(), depth_of_level.data(), kind, shift.data(), field.data());
    space = keys.space;
    key_bits = keys.key_bits;
    packed = keys.packed;
    sorted_bits = keys.sorted_bits;
    mask = buf.prepare(kind, space, expected_row_entries);
  }
  LOOM_FORCE_INLINE std::int64_t key() const {
    // one level: packed, its shift is 0; mixed-radix, 0 · extent + index; either way the index
    if constexpr (KeyDepth != no_key_depth) return at_depth[KeyDepth];
    std::int64_t key = 0;
    if (packed) {
      for (std::size_t k = prefix; k < N; ++k) key |= at_depth[depth_of_level[k]] << shift[k];
    } else {
      for (std::size_t k = prefix; k < N; ++k)
        key = key * level_extent[k] + at_depth[depth_of_level[k]];
    }
    return key;
  }
  static LOOM_FORCE_INLINE std::uint64_t hash(std::int64_t key) {
    return detail::workspace_hash(key);
  }
  LOOM_FORCE_INLINE void push(const T& v) {
    const std::int64_t kk = key();
    if (kind == workspace_kind::dense) {
      if (!buf.seen[kk]) {
        buf.seen[kk] = 1;
        buf.cells.push_back(static_cast<std::uint32_t>(kk));  // below 2^26 cells
        buf.acc[kk] = v;
      } else {
        buf.acc[kk] = semiring_traits<T>::add(buf.acc[kk], v);
      }
    } else if (kind == workspace_kind::hashed) {
      for (std::uint64_t s = hash(kk) & mask;; s = (s + 1) & mask) {
        if (buf.slot_key[s] == kk + 1) {
          buf.slot_val[s] = semiring_traits<T>::add(buf.slot_val[s], v);
          return;
        }
        if (buf.slot_key[s] == 0) {
          buf.slot_key[s] = kk + 1;
          buf.slot_val[s] = v;
          buf.touched.push_back(static_cast<std::int64_t>(s));
          if (2 * buf.touched.size() > mask + 1) resize_table(2 * (mask + 1));
          return;
        }
      }
    } else {
      buf.pairs.emplace_back(kk, v);
    }
  }
  // the loop at depth d finished one index: flush when d fixes the last prefix level
  LOOM_FORCE_INLINE bool end_of(std::size_t d) {
    if constexpr (RowDepth != no_key_depth) {
      if (d == RowDepth) flush();
    } else if (prefix > 0 && d == depth_of_level[prefix - 1]) {
      flush();
    }
    return false;  // a row's entries always fit (the workspace grows)
  }
  void finish() {
    if (prefix == 0) flush();
    clean = true;
  }
  void restart() {}  // entries go to `out.push`: nothing to take again per chunk
  void flush() {
    if (kind == workspace_kind::dense)
      flush_dense();
    else if (whole_rows || packed)  // a whole row's key is its column, whatever its width
      flush_pairs<true>();
    else if constexpr (!whole_rows)
      flush_pairs<false>();
  }

 private:
  // the row's fixed coordinates, the rest filled in per entry by `unpack`
  std::array<std::int64_t, N> row_coordinates() const {
    std::array<std::int64_t, N> c{};
    for (std::size_t k = 0; k < prefix; ++k) c[k] = at_depth[depth_of_level[k]];
    return c;
  }
  // one branch-free decoder per flush loop keeps the appender's push inlined in it
  template <bool Packed>
  LOOM_FORCE_INLINE void unpack(std::array<std::int64_t, N>& c, std::int64_t kk) const {
    if constexpr (Packed) {
      for (std::size_t k = prefix; k < N; ++k) c[k] = (kk >> shift[k]) & field[k];
    } else {  // mixed radix; the outermost level is what remains (no division for one level)
      for (std::size_t k = N - 1; k > prefix; --k) {
        c[k] = kk % level_extent[k];
        kk /= level_extent[k];
      }
      c[prefix] = kk;
    }
  }
  void flush_dense() {
    if (buf.cells.size() < detail::radix_sort_min)
      detail::sort_workspace_cells(buf.cells, buf.scratch_cells);  // most rows
    else
      detail::sort_by_key<true>(buf.cells, buf.scratch_cells, buf.counts, space,
                                detail::key_identity{});
    if constexpr (whole_rows) {  // its length known, its entries stored like the hand loop's
      T* acc = buf.acc.data();
      unsigned char* seen = buf.seen.data();
      const std::uint32_t* cells = buf.cells.data();
      out.append_row(at_depth[depth_of_level[0]], buf.cells.size(), [&](std::size_t e) {
        const std::uint32_t kk = cells[e];
        const T v = acc[kk];
        acc[kk] = semiring_traits<T>::zero();
        seen[kk] = 0;
        return std::pair<std::int64_t, T>{kk, v};
      });
    } else {
      std::array<std::int64_t, N> c = row_coordinates();
      for (const std::int64_t kk : buf.cells) {
        unpack<false>(c, kk);
        out.push(c, buf.acc[kk]);
        buf.acc[kk] = semiring_traits<T>::zero();
        buf.seen[kk] = 0;
      }
    }
    buf.cells.clear();
  }
  template <bool Packed> void flush_pairs() {
    constexpr detail::key_first by_key{};
    const bool unique = kind == workspace_kind::hashed;
    if (unique) {  // the table's slots were taken in arrival order
      for (std::int64_t s : buf.touched) {
        buf.pairs.emplace_back(buf.slot_key[s] - 1, buf.slot_val[s]);
        buf.slot_key[s] = 0;
      }
      buf.touched.clear();
    }
    // one workspace over a csr-like output whose columns arrive in order (a transpose): a
    // counting sort on the row places the entries straight into the output's arrays
    if constexpr (Packed && RowDepth == no_key_depth &&
                  requires { requires Out::rows_of_columns; }) {
      if (prefix == 0 && sorted_bits >= shift[0]) {
        const auto& p = buf.pairs;
        out.fill_by_rows(
            p.size(), [&](std::size_t e) { return p[e].first >> shift[0]; },
            [&](std::size_t e) { return p[e].first & field[1]; },
            [&](std::size_t e) { return p[e].second; }, !unique);
        buf.pairs.clear();
        return;
      }
    }
    // stable: a sorted row's duplicates are added in the order they were written
    if constexpr (Packed) {
      if (unique)
        detail::sort_bits<true>(buf.pairs, buf.scratch_pairs, buf.counts, sorted_bits, key_bits,
                                by_key);
      else
        detail::sort_bits(buf.pairs, buf.scratch_pairs, buf.counts, sorted_bits, key_bits, by_key);
    } else {
      if (unique)
        detail::sort_by_key<true>(buf.pairs, buf.scratch_pairs, buf.counts, space, by_key);
      else
        detail::sort_by_key(buf.pairs, buf.scratch_pairs, buf.counts, space, by_key);
    }
    if constexpr (whole_rows) {  // a matrix row, its keys its columns: stored as a whole
      auto& pairs = buf.pairs;
      if (!unique) {  // the sorted kind: repeats are next to each other, added in order
        std::size_t kept = 0;
        for (std::size_t q = 0; q < pairs.size(); ++q) {
          if (kept > 0 && pairs[kept - 1].first == pairs[q].first)
            pairs[kept - 1].second =
                semiring_traits<T>::add(pairs[kept - 1].second, pairs[q].second);
          else
            pairs[kept++] = pairs[q];
        }
        pairs.resize(kept);
      }
      const auto* row = pairs.data();
      out.append_row(at_depth[depth_of_level[0]], pairs.size(),
                     [&](std::size_t e) { return row[e]; });
    } else {
      std::array<std::int64_t, N> c = row_coordinates();
      for (std::size_t q = 0; q < buf.pairs.size();) {
        T v = buf.pairs[q].second;
        std::size_t r = q + 1;
        for (; r < buf.pairs.size() && buf.pairs[r].first == buf.pairs[q].first; ++r)
          v = semiring_traits<T>::add(v, buf.pairs[r].second);
        unpack<Packed>(c, buf.pairs[q].first);
        out.push(c, v);
        q = r;
      }
    }
    buf.pairs.clear();
  }

  // a table of `capacity` slots (a power of two) holding the entries already in the old one
  void resize_table(std::uint64_t capacity) {
    buf.resize_table(capacity);
    mask = capacity - 1;
  }
};

}  // namespace loom::stream

#endif  // LOOM_FORMAT_ASSEMBLY_WORKSPACE_HPP
