// Defines loom::gather_statistics: loom::statistics of a tensor, read from its level arrays where
// the format allows and by one pass over its entries otherwise (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_GATHER_STATISTICS_HPP
#define LOOM_OPTIMIZE_STATISTICS_GATHER_STATISTICS_HPP

#include <loom/core/config.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/statistics/statistics.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom {

namespace detail {

LOOM_DECL statistics empty_statistics(std::span<const std::int64_t> shape, std::int64_t nnz);

LOOM_DECL void set_mean_degrees(statistics& s);

/// The reference: one pass over the stored entries, any format. O(nnz * order) time and
/// O(sum of extents) memory (one counter per coordinate of every mode).
/// Non-empty fibers are counted by comparing each entry's storage-order prefix with the previous
/// entry's, which is exact because every loom format stores entries grouped by prefix.
template <class T, storage_format Format, bool Owning>
statistics gather_statistics_generic(const basic_tensor<T, Format, Owning>& t) {
  constexpr std::size_t n = Format::order;
  statistics s = empty_statistics(t.shape(), t.nnz());
  if constexpr (n > 0) {
    std::array<std::vector<std::int64_t>, n> degree;
    for (std::size_t m = 0; m < n; ++m) degree[m].assign(static_cast<std::size_t>(s.shape[m]), 0);
    std::array<std::int64_t, n> previous{};
    bool first = true;
    t.for_each_stored([&](const std::array<std::int64_t, n>& c, const auto&) {
      // The first level whose coordinate differs from the previous entry starts a new fiber at
      // that level and at every level below it.
      std::size_t first_differing = 0;
      if (!first)
        while (first_differing < n &&
               c[Format::modes[first_differing]] == previous[first_differing])
          ++first_differing;
      for (std::size_t l = first_differing; l < n; ++l) ++s.nonempty_fibers[l];
      for (std::size_t l = 0; l < n; ++l) previous[l] = c[Format::modes[l]];
      first = false;
      for (std::size_t m = 0; m < n; ++m) ++degree[m][static_cast<std::size_t>(c[m])];
    });
    for (std::size_t m = 0; m < n; ++m) {
      for (std::int64_t d : degree[m]) {
        s.distinct[m] += d > 0 ? 1 : 0;
        s.max_degree[m] = std::max(s.max_degree[m], d);
      }
    }
    set_mean_degrees(s);
  }
  return s;
}

/// Formats read from their arrays: every level dense or unique compressed (dense, csr, csc, dcsr,
/// dcsc, csf, sparse_vector and their reorderings).
template <class Levels> inline constexpr bool levels_read_from_arrays_v = false;
template <class... Ls>
inline constexpr bool levels_read_from_arrays_v<boost::mp11::mp_list<Ls...>> =
    sizeof...(Ls) > 0 && ((is_dense_level<Ls> || is_unique_compressed_level<Ls>)&&...);

// Every level's positions form one range, and the leaves (stored entries) below a position range
// form one range too, so a position's entry count is a difference of two mapped boundaries.
template <class T, class Format, bool Owning> struct array_statistics {
  static constexpr std::size_t n = Format::order;
  template <std::size_t K> using level_t = boost::mp11::mp_at_c<typename Format::levels, K>;

  const basic_tensor<T, Format, Owning>& t;
  statistics& s;
  std::array<std::int64_t, n> lo{}, hi{};  // positions of each level: [lo[k], hi[k])

  // boundary b of level K-1's positions -> boundary of level K's
  template <std::size_t K> std::int64_t child(std::int64_t b) const {
    const auto& st = t.template level<K>();
    if constexpr (is_dense_level<level_t<K>>)
      return b * st.extent;
    else if (st.pos.empty())
      return 0;  // a moved-from tensor: no entries
    else
      return static_cast<std::int64_t>(st.pos[static_cast<std::size_t>(b)]);
  }
  template <std::size_t K> std::int64_t leaf(std::int64_t b) const {
    if constexpr (K + 1 == n)
      return b;
    else
      return leaf<K + 1>(child<K + 1>(b));
  }

  void run() {
    std::int64_t plo = 0, phi = 1;  // the root: one parent position
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      // a level below an empty one may have no pos entries to read (views)
      ((lo[K] = phi > plo ? child<K>(plo) : 0, hi[K] = phi > plo ? child<K>(phi) : 0, plo = lo[K],
        phi = hi[K]),
       ...);
      const std::int64_t leaves = hi[n - 1] - lo[n - 1];
      (level_pass<K>(leaves), ...);
    }(std::make_index_sequence<n>{});
    set_mean_degrees(s);
  }

  template <std::size_t K> void level_pass(std::int64_t leaves) {
    constexpr std::size_t mode = Format::modes[K];
    const auto& st = t.template level<K>();
    if constexpr (K + 1 == n) {
      s.nonempty_fibers[K] = hi[K] - lo[K];  // unique levels: one entry per leaf position
      if constexpr (K == 0) {
        s.distinct[mode] = hi[K] - lo[K];
        s.max_degree[mode] = hi[K] > lo[K] ? 1 : 0;
      } else if constexpr (is_dense_level<level_t<K>>) {
        // every parent position holds one entry per coordinate
        const std::int64_t parents = hi[K - 1] - lo[K - 1];
        const bool any = parents > 0 && st.extent > 0;
        s.distinct[mode] = any ? st.extent : 0;
        s.max_degree[mode] = any ? parents : 0;
      } else {
        count_inner<K>(leaves, [&](auto& counter) {
          for (std::int64_t p = lo[K]; p < hi[K]; ++p)
            ++counter[static_cast<std::size_t>(st.crd[p])];
        });
      }
    } else if constexpr (K == 0) {
      // one parent: each coordinate occurs once, its degree is its position's entry count
      std::int64_t nonempty = 0, max = 0, before = hi[K] > lo[K] ? leaf<K>(lo[K]) : 0;
      for (std::int64_t p = lo[K]; p < hi[K]; ++p) {
        const std::int64_t after = leaf<K>(p + 1), w = after - before;
        before = after;
        nonempty += w > 0 ? 1 : 0;
        max = std::max(max, w);
      }
      s.nonempty_fibers[K] = nonempty;
      s.distinct[mode] = nonempty;
      s.max_degree[mode] = max;
    } else {
      count_inner<K>(leaves, [&](auto& counter) {
        using count_t = typename std::remove_cvref_t<decltype(counter)>::value_type;
        std::int64_t nonempty = 0, before = hi[K] > lo[K] ? leaf<K>(lo[K]) : 0;
        auto add = [&](std::int64_t p, std::int64_t coord) {
          const std::int64_t after = leaf<K>(p + 1), w = after - before;
          before = after;
          nonempty += w > 0 ? 1 : 0;
          counter[static_cast<std::size_t>(coord)] += static_cast<count_t>(w);
        };
        if constexpr (is_dense_level<level_t<K>>) {
          for (std::int64_t q = lo[K - 1]; q < hi[K - 1]; ++q)
            for (std::int64_t cell = 0; cell < st.extent; ++cell) add(q * st.extent + cell, cell);
        } else {
          for (std::int64_t p = lo[K]; p < hi[K]; ++p) add(p, static_cast<std::int64_t>(st.crd[p]));
        }
        s.nonempty_fibers[K] = nonempty;
      });
    }
  }

  // Fills a counter per coordinate of level K's mode with `fill`, then reads distinct and max.
  // int32 counters when every count fits: half the memory traffic of int64.
  template <std::size_t K, class Fill> void count_inner(std::int64_t leaves, Fill fill) {
    constexpr std::size_t mode = Format::modes[K];
    const auto extent = static_cast<std::size_t>(s.shape[mode]);
    auto finish = [&](auto& counter) {
      fill(counter);
      std::int64_t distinct = 0, max = 0;
      for (const auto d : counter) {
        distinct += d > 0 ? 1 : 0;
        max = std::max(max, static_cast<std::int64_t>(d));
      }
      s.distinct[mode] = distinct;
      s.max_degree[mode] = max;
    };
    if (leaves <= std::numeric_limits<std::int32_t>::max()) {
      std::vector<std::int32_t> counter(extent, 0);
      finish(counter);
    } else {
      std::vector<std::int64_t> counter(extent, 0);
      finish(counter);
    }
  }
};

}  // namespace detail

/// Gathers `loom::statistics` for `t`. Formats made of dense and unique compressed levels (csr,
/// csc, dcsr, dcsc, csf, sparse and dense vectors and matrices) are read from their arrays:
/// fibre counts and the outermost mode's degrees from the `pos` arrays, the other modes' from one
/// counter per coordinate filled from `crd`, O(positions + sum of extents). Any other format takes
/// one pass over its entries (`detail::gather_statistics_generic`); both give the same result.
template <class T, storage_format Format, bool Owning>
statistics gather_statistics(const basic_tensor<T, Format, Owning>& t) {
  if constexpr (detail::levels_read_from_arrays_v<typename Format::levels>) {
    statistics s = detail::empty_statistics(t.shape(), t.nnz());
    detail::array_statistics<T, Format, Owning>{t, s}.run();
    return s;
  } else {
    return detail::gather_statistics_generic(t);
  }
}

#if LOOM_HEADER_ONLY
namespace detail {

LOOM_DEF statistics empty_statistics(std::span<const std::int64_t> shape, std::int64_t nnz) {
  const std::size_t n = shape.size();
  statistics s;
  s.shape.assign(shape.begin(), shape.end());
  s.nnz = nnz;
  s.nonempty_fibers.assign(n, 0);
  s.distinct.assign(n, 0);
  s.max_degree.assign(n, 0);
  s.mean_degree.assign(n, 0.0);
  return s;
}

LOOM_DEF void set_mean_degrees(statistics& s) {
  for (std::size_t m = 0; m < s.order(); ++m)
    if (s.distinct[m] > 0)
      s.mean_degree[m] = static_cast<double>(s.nnz) / static_cast<double>(s.distinct[m]);
}

}  // namespace detail
#endif  // LOOM_HEADER_ONLY

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_GATHER_STATISTICS_HPP
