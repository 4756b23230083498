// Defines loom::relational::detail::sorted_keys: the rows of a table stably sorted by integer key
// columns of known extents, by radix sort, using any order the rows already have; the keys are
// carried through the sort (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_SORTED_KEYS_HPP
#define LOOM_RELATIONAL_SORTED_KEYS_HPP

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::relational::detail {

// The sort behind key_by. Key 0 is the most significant; every value of key k lies in
// [0, extent[k]) (key_by checks this first). The result is the order std::stable_sort gives,
// computed in linear time:
//
//   rows already sorted by every key              -> kept, after one check pass
//   rows sorted by a key prefix [0, P), P >= 1    -> each run of equal prefix sorted alone:
//                                                    insertion sort when short, else radix
//   rows sorted by a key suffix [L, N)            -> only the keys [0, L) are radix-sorted
//                                                    (a stable sort keeps the suffix order)
//   otherwise                                     -> LSD radix sort on all keys
//
// Each key takes bit_width(extent - 1) bits of one 64-bit word (key 0 highest). When the keys
// and the row number fit in 64 bits together, an element is that one integer; when only the
// keys fit, an element is (keys, row); the keys travel with the rows, so reading them back in
// sorted order never goes through the row number to the columns (a cache miss per key and row
// on a large table). Radix passes take at most 11 bits and are skipped when one digit value
// holds every row. Keys of more than 64 bits in all sort the row numbers, reading the keys
// through them.

/// How a sorted element holds its keys.
enum class key_packing {
  with_row,  ///< one 64-bit integer: keys << row_bits | row
  apart,     ///< the keys in one 64-bit integer, the row number beside it
  none       ///< the row number only; keys are read from the columns
};

/// Bits a key of this extent needs.
inline int key_bits(std::int64_t extent) {
  return extent <= 1 ? 0 : std::bit_width(static_cast<std::uint64_t>(extent - 1));
}

/// How the keys of `extents` over `rows` rows are held.
template <std::size_t N>
key_packing packing_for(const std::array<std::int64_t, N>& extents, std::size_t rows) {
  int bits = 0;
  for (std::int64_t e : extents) bits += key_bits(e);
  if (bits > 64) return key_packing::none;
  return bits + key_bits(static_cast<std::int64_t>(std::max<std::size_t>(rows, 2))) <= 64
             ? key_packing::with_row
             : key_packing::apart;
}

/// Stable LSD radix sort of `a[0, n)` by bits [shift, shift + bits) of digit_source(element),
/// using `tmp[0, n)`; returns true when the result is in `tmp`, false when in `a`.
template <class Elem, class DigitSource>
bool radix_sort_bits(Elem* a, Elem* tmp, std::size_t n, int shift, int bits,
                     DigitSource digit_source) {
  if (bits <= 0 || n < 2) return false;
  constexpr int max_digit = 11;
  const int passes = (bits + max_digit - 1) / max_digit;
  const int digit = (bits + passes - 1) / passes;
  const std::size_t buckets = std::size_t{1} << digit;
  const std::uint64_t mask = buckets - 1;
  std::vector<std::size_t> count(static_cast<std::size_t>(passes) * buckets, 0);
  for (std::size_t i = 0; i < n; ++i) {  // every pass's histogram in one read
    const std::uint64_t d = digit_source(a[i]) >> shift;
    for (int p = 0; p < passes; ++p)
      ++count[static_cast<std::size_t>(p) * buckets + ((d >> (p * digit)) & mask)];
  }
  bool in_tmp = false;
  for (int p = 0; p < passes; ++p) {
    std::size_t* c = count.data() + static_cast<std::size_t>(p) * buckets;
    if (std::any_of(c, c + buckets, [&](std::size_t x) { return x == n; }))
      continue;  // one digit value for every element: the pass would move nothing
    std::size_t sum = 0;
    for (std::size_t b = 0; b < buckets; ++b) sum += std::exchange(c[b], sum);
    const int s = shift + p * digit;
    for (std::size_t i = 0; i < n; ++i) tmp[c[(digit_source(a[i]) >> s) & mask]++] = a[i];
    std::swap(a, tmp);
    in_tmp = !in_tmp;
  }
  return in_tmp;
}

/// The rows 0..n-1 stably sorted by N integer keys, with each sorted row's keys.
template <std::size_t N, class Index, key_packing Packing> class sorted_keys {
  static_assert(N < 256, "loom::relational::key_by: at most 255 key columns");

 public:
  using columns = std::array<std::span<const std::int64_t>, N>;

  sorted_keys(const columns& cols, const std::array<std::int64_t, N>& extents, std::size_t n)
      : cols_(cols), n_(n) {
    int bits = 0;
    for (std::size_t k = N; k-- > 0;) {
      shift_[k] = bits;
      width_[k] = key_bits(extents[k]);
      bits += width_[k];
    }
    for (int b = 0; b < 64; ++b) {  // the key holding bit b (keys of width 0 hold none)
      level_of_bit_[static_cast<std::size_t>(b)] = 0;
      for (std::size_t k = 0; k < N; ++k)
        if (b >= shift_[k] && b < shift_[k] + width_[k])
          level_of_bit_[static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(k);
    }
    row_bits_ = key_bits(static_cast<std::int64_t>(std::max<std::size_t>(n, 2)));
    elems_.reset(new elem[n]);  // not zero-filled: every element is written below
    for (std::size_t r = 0; r < n; ++r) {
      if constexpr (Packing == key_packing::none) {
        elems_[r] = static_cast<Index>(r);
      } else {
        std::uint64_t key = 0;
        for (std::size_t k = 0; k < N; ++k)
          if (width_[k] > 0) key |= static_cast<std::uint64_t>(cols[k][r]) << shift_[k];
        if constexpr (Packing == key_packing::with_row)
          elems_[r] = key << row_bits_ | static_cast<std::uint64_t>(r);
        else
          elems_[r] = {key, static_cast<Index>(r)};
      }
    }
    sort();
  }

  std::size_t size() const { return n_; }
  /// False when the rows were already in key order (row(e) == e).
  bool moved() const { return moved_; }
  /// True when rows moved across the whole table (a radix sort of all of them), false when they
  /// stayed in order or moved only within runs of an already sorted key prefix.
  bool shuffled() const { return shuffled_; }
  /// The row number of the e-th sorted row.
  std::size_t row(std::size_t e) const {
    if constexpr (Packing == key_packing::with_row)
      return static_cast<std::size_t>(elems_[e] & ((std::uint64_t{1} << row_bits_) - 1));
    else if constexpr (Packing == key_packing::apart)
      return static_cast<std::size_t>(elems_[e].row);
    else
      return static_cast<std::size_t>(elems_[e]);
  }
  /// Key k of the e-th sorted row.
  std::int64_t key(std::size_t k, std::size_t e) const {
    if constexpr (Packing == key_packing::none) {
      return cols_[k][elems_[e]];
    } else {
      const std::uint64_t mask = width_[k] == 0 ? 0 : ~std::uint64_t{0} >> (64 - width_[k]);
      return static_cast<std::int64_t>((packed(e) >> shift_[k]) & mask);
    }
  }
  /// The first key in which sorted rows e - 1 and e differ (e >= 1); N when all keys are equal.
  std::size_t first_difference(std::size_t e) const {
    if constexpr (Packing == key_packing::none) {
      for (std::size_t k = 0; k < N; ++k)
        if (cols_[k][elems_[e]] != cols_[k][elems_[e - 1]]) return k;
      return N;
    } else {
      const std::uint64_t x = packed(e) ^ packed(e - 1);
      return x == 0 ? N : level_of_bit_[static_cast<std::size_t>(std::bit_width(x) - 1)];
    }
  }

 private:
  struct keyed_row {
    std::uint64_t key;
    Index row;
  };
  using elem =
      std::conditional_t<Packing == key_packing::with_row, std::uint64_t,
                         std::conditional_t<Packing == key_packing::apart, keyed_row, Index>>;

  std::uint64_t packed(std::size_t e) const { return packed_of(elems_[e]); }
  std::uint64_t packed_of(const elem& x) const {
    if constexpr (Packing == key_packing::with_row)
      return x >> row_bits_;
    else if constexpr (Packing == key_packing::apart)
      return x.key;
    else
      return 0;
  }

  /// Whether row r sorts before row s on the keys [lo, hi), read from the columns.
  bool row_less(std::size_t lo, std::size_t hi, std::size_t r, std::size_t s) const {
    for (std::size_t k = lo; k < hi; ++k) {
      const std::int64_t x = cols_[k][r], y = cols_[k][s];
      if (x != y) return x < y;
    }
    return false;
  }
  /// The longest prefix [0, P) of the keys by which the rows are already sorted.
  std::size_t sorted_prefix() const {
    std::size_t p = N;
    for (std::size_t r = 1; r < n_ && p > 0; ++r)
      for (std::size_t k = 0; k < p; ++k) {
        const std::int64_t x = cols_[k][r - 1], y = cols_[k][r];
        if (x < y) break;
        if (x > y) {
          p = k;
          break;
        }
      }
    return p;
  }
  /// Whether the rows are already sorted by the keys [lo, N).
  bool sorted_from(std::size_t lo) const {
    for (std::size_t r = 1; r < n_; ++r)
      if (row_less(lo, N, r, r - 1)) return false;
    return true;
  }

  /// Stable sort of elems_[begin, end) by the keys [lo, hi); rows in the range ascend.
  void sort_range(std::size_t begin, std::size_t end, std::size_t lo, std::size_t hi,
                  std::vector<elem>& tmp) {
    const std::size_t len = end - begin;
    if (len < 2 || lo >= hi) return;
    elem* a = elems_.get() + begin;
    if (len <= 32) {  // stable insertion sort
      for (std::size_t i = 1; i < len; ++i) {
        const elem x = a[i];
        std::size_t j = i;
        for (; j > 0 && less(lo, hi, x, a[j - 1]); --j) a[j] = a[j - 1];
        a[j] = x;
      }
      return;
    }
    if constexpr (Packing == key_packing::none) {
      // several 64-bit words of keys, least significant first; each a stable radix sort
      std::vector<keyed_row> keyed(len), scratch(len);
      std::size_t last = hi;
      while (last > lo) {
        int bits = 0;
        std::size_t first = last;
        while (first > lo && bits + width_[first - 1] <= 64) bits += width_[--first];
        for (std::size_t i = 0; i < len; ++i) {
          std::uint64_t key = 0;
          for (std::size_t k = first; k < last; ++k)
            key = (key << width_[k]) | static_cast<std::uint64_t>(cols_[k][a[i]]);
          keyed[i] = {key, a[i]};
        }
        const bool in_tmp = radix_sort_bits(keyed.data(), scratch.data(), len, 0, bits,
                                            [](const keyed_row& x) { return x.key; });
        const keyed_row* sorted = in_tmp ? scratch.data() : keyed.data();
        for (std::size_t i = 0; i < len; ++i) a[i] = sorted[i].row;
        last = first;
      }
    } else {
      const int low = shift_[hi - 1], high = shift_[lo] + width_[lo];
      if (tmp.size() < len) tmp.resize(len);
      const bool in_tmp = radix_sort_bits(a, tmp.data(), len, low, high - low,
                                          [this](const elem& x) { return packed_of(x); });
      if (in_tmp) std::copy(tmp.data(), tmp.data() + len, a);
    }
  }
  bool less(std::size_t lo, std::size_t hi, const elem& x, const elem& y) const {
    if constexpr (Packing == key_packing::none) {
      return row_less(lo, hi, x, y);
    } else {
      const int low = shift_[hi - 1], high = shift_[lo] + width_[lo];
      const std::uint64_t mask =
          high - low >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (high - low)) - 1);
      return ((packed_of(x) >> low) & mask) < ((packed_of(y) >> low) & mask);
    }
  }

  void sort() {
    const std::size_t prefix = sorted_prefix();
    if (prefix == N) return;
    moved_ = true;
    std::size_t radix_end = N;  // the rows are already sorted by the keys [radix_end, N)
    for (std::size_t lo = std::max<std::size_t>(prefix, 1); lo < N; ++lo)
      if (sorted_from(lo)) {
        radix_end = lo;
        break;
      }
    std::vector<elem> tmp;
    if (prefix == 0) {
      shuffled_ = true;
      if constexpr (Packing == key_packing::none) {
        sort_range(0, n_, 0, radix_end, tmp);
      } else {  // the whole array: swap buffers instead of copying back
        const int low = shift_[radix_end - 1], high = shift_[0] + width_[0];
        std::unique_ptr<elem[]> other(new elem[n_]);
        if (radix_sort_bits(elems_.get(), other.get(), n_, low, high - low,
                            [this](const elem& x) { return packed_of(x); }))
          elems_.swap(other);
      }
      return;
    }
    // sorted by [0, prefix): sort each run of equal prefix by [prefix, radix_end)
    std::size_t begin = 0;
    for (std::size_t r = 1; r <= n_; ++r) {
      if (r < n_) {
        bool same = true;
        for (std::size_t k = 0; k < prefix && same; ++k) same = cols_[k][r] == cols_[k][r - 1];
        if (same) continue;
      }
      sort_range(begin, r, prefix, radix_end, tmp);
      begin = r;
    }
  }

  columns cols_;
  std::size_t n_;
  std::array<int, N> shift_{}, width_{};
  std::array<std::uint8_t, 64> level_of_bit_{};
  int row_bits_ = 1;
  bool moved_ = false, shuffled_ = false;
  std::unique_ptr<elem[]> elems_;
};

}  // namespace loom::relational::detail

#endif  // LOOM_RELATIONAL_SORTED_KEYS_HPP
