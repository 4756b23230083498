// Defines loom::relational::detail::key_levels: the levels of a keyed relation built from its
// rows sorted by key, one pass over the distinct keys for dense and compressed levels, the
// levels' assemble hooks otherwise (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_KEY_LEVELS_HPP
#define LOOM_RELATIONAL_KEY_LEVELS_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/format/format.hpp>
#include <loom/format/levels/level_base.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loom::relational::detail {

/// The distinct keys of the sorted rows: distinct key u is the sorted rows [runs[u], runs[u+1]),
/// and differs from key u - 1 first at level first_level[u] (0 for u = 0).
template <class Index> struct key_runs {
  std::vector<Index> runs;
  std::vector<std::uint8_t> first_level;

  template <class Sorted> key_runs(const Sorted& rows, std::size_t order) {
    const std::size_t n = rows.size();
    runs.reserve(n + 1);
    first_level.reserve(n);
    if (n > 0) {
      runs.push_back(0);
      first_level.push_back(0);
    }
    for (std::size_t e = 1; e < n; ++e) {
      const std::size_t d = rows.first_difference(e);
      if (d < order) {
        runs.push_back(static_cast<Index>(e));
        first_level.push_back(static_cast<std::uint8_t>(d));
      }
    }
    runs.push_back(static_cast<Index>(n));
  }
  std::size_t distinct() const { return runs.size() - 1; }
};

/// Whether every level of `Format` is dense or unique compressed: key_levels then builds them in
/// one pass over the distinct keys, without the per-level arrays of the assemble hooks.
template <class Format>
inline constexpr bool dense_or_compressed_v = [] {
  return []<class... Ls>(boost::mp11::mp_list<Ls...>) {
    return sizeof...(Ls) > 0 && ((loom::detail::is_dense_level<Ls> ||
                                  loom::detail::is_unique_compressed_level<Ls>)&&...);
  }(typename Format::levels{});
}();

/// The levels of `Format` over the distinct keys, as from_coo builds them (the same arrays, and
/// the same errors in the same order); `position[u]` is the value position of distinct key u,
/// left empty when the positions are 0, 1, 2, ... (a compressed last level).
template <class Format, class LevelStorages, class Sorted, class Index>
LevelStorages key_levels(const std::array<std::int64_t, Format::order>& shape, const Sorted& rows,
                         const key_runs<Index>& runs, std::vector<std::int64_t>& position,
                         std::int64_t& positions) {
  constexpr std::size_t N = Format::order;
  LevelStorages levels{};
  const std::size_t distinct = runs.distinct();
  auto static_extent_check = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
    using level = boost::mp11::mp_at_c<typename Format::levels, K>;
    if constexpr (level::static_extent != dynamic_extent) {
      constexpr std::size_t mode = Format::modes[K];
      if (shape[mode] != static_cast<std::int64_t>(level::static_extent))
        throw shape_error("loom: mode " + std::to_string(mode) + " has extent " +
                          std::to_string(shape[mode]) + " but its dense level is fixed at " +
                          std::to_string(level::static_extent));
    }
  };
  auto each_level = [&](auto f) {
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (f(std::integral_constant<std::size_t, Ks>{}), ...);
    }(std::make_index_sequence<N>{});
  };
  if constexpr (dense_or_compressed_v<Format>) {
    // a compressed level K has one position per distinct key prefix [0, K]
    std::array<std::int64_t, N> fresh{};  // fresh[d]: distinct keys first differing at level d
    for (const std::uint8_t d : runs.first_level) ++fresh[d];
    std::int64_t c = 0, parent_count = 1;
    each_level([&]<std::size_t K>(std::integral_constant<std::size_t, K> k) {
      using level = boost::mp11::mp_at_c<typename Format::levels, K>;
      constexpr std::size_t mode = Format::modes[K];
      const std::int64_t extent = shape[mode];
      c += fresh[K];  // positions of a compressed level K
      static_extent_check(k);
      auto& st = std::get<K>(levels);
      if constexpr (loom::detail::is_dense_level<level>) {  // dense_level::assemble's checks
        st.extent = extent;
        if (extent != 0 && parent_count > INT64_MAX / extent)
          throw overflow_error("loom: the dense level of mode " + std::to_string(mode) +
                               " would hold more than 2^63 positions");
        parent_count *= extent;
      } else {  // compressed_level::assemble's checks
        if (extent > 0)
          loom::detail::check_fits<typename level::crd_type>(
              extent - 1, "largest coordinate of mode " + std::to_string(mode));
        loom::detail::check_fits<typename level::pos_type>(c, "number of positions");
        st.crd.resize(static_cast<std::size_t>(c));
        st.pos.assign(static_cast<std::size_t>(parent_count) + 1, typename level::pos_type(0));
        parent_count = c;
      }
    });
    using last_level = boost::mp11::mp_at_c<typename Format::levels, N - 1>;
    constexpr bool last_compressed = loom::detail::is_unique_compressed_level<last_level>;
    if (!last_compressed) position.resize(distinct);
    std::array<std::int64_t, N + 1> at{};  // at[K + 1]: the position of the current key at K
    std::array<std::int64_t, N> next{};
    for (std::size_t u = 0; u < distinct; ++u) {
      const std::size_t d = runs.first_level[u], e = runs.runs[u];
      each_level([&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        if (K < d) return;
        using level = boost::mp11::mp_at_c<typename Format::levels, K>;
        auto& st = std::get<K>(levels);
        const std::int64_t i = rows.key(K, e);
        if constexpr (loom::detail::is_dense_level<level>) {
          at[K + 1] = at[K] * st.extent + i;
        } else {
          const std::int64_t p = next[K]++;
          st.crd[static_cast<std::size_t>(p)] = static_cast<typename level::crd_type>(i);
          ++st.pos[static_cast<std::size_t>(at[K]) + 1];
          at[K + 1] = p;
        }
      });
      if (!last_compressed) position[u] = at[N];
    }
    each_level([&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      using level = boost::mp11::mp_at_c<typename Format::levels, K>;
      if constexpr (!loom::detail::is_dense_level<level>) {
        auto& pos = std::get<K>(levels).pos;
        for (std::size_t p = 1; p < pos.size(); ++p) pos[p] += pos[p - 1];
      }
    });
    positions = parent_count;
    return levels;
  } else {  // any other level: its assemble hook, level by level, as in from_coo
    std::vector<std::int64_t> parent(distinct, 0), current(distinct, 0), coord(distinct, 0);
    std::int64_t parent_count = 1;
    each_level([&]<std::size_t K>(std::integral_constant<std::size_t, K> k) {
      using level = boost::mp11::mp_at_c<typename Format::levels, K>;
      static_extent_check(k);
      for (std::size_t u = 0; u < distinct; ++u) coord[u] = rows.key(K, runs.runs[u]);
      const level_build in{Format::modes[K], shape[Format::modes[K]], parent_count, parent, coord};
      parent_count = level::assemble(std::get<K>(levels), in, std::span<std::int64_t>(current));
      std::swap(parent, current);
    });
    position = std::move(parent);
    positions = parent_count;
    return levels;
  }
}

}  // namespace loom::relational::detail

#endif  // LOOM_RELATIONAL_KEY_LEVELS_HPP
