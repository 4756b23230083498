// Defines loom::format, a list of levels plus a mode order, and the standard aliases (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_FORMAT_HPP
#define LOOM_FORMAT_FORMAT_HPP

#include <loom/format/levels/adaptive.hpp>
#include <loom/format/levels/banded.hpp>
#include <loom/format/levels/bitmap.hpp>
#include <loom/format/levels/compressed.hpp>
#include <loom/format/levels/dense.hpp>
#include <loom/format/levels/hashed.hpp>
#include <loom/format/levels/level.hpp>
#include <loom/format/levels/singleton.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <utility>

namespace loom {

namespace detail {
template <class... Levels> constexpr bool levels_are_well_formed() {
  constexpr std::array<level_properties, sizeof...(Levels)> props{Levels::properties...};
  for (std::size_t k = 0; k < props.size(); ++k) {
    // a segmented (singleton) level iterates a range handed out by a non-unique parent
    if (props[k].segmented && (k == 0 || props[k - 1].unique)) return false;
    // below a non-unique level, only singleton levels may follow
    if (k > 0 && !props[k - 1].unique && !props[k].segmented) return false;
  }
  return true;
}
// level kinds, for code that depends on a level's layout (in-place outputs, statistics): keyed
// by the declared layout, so that a user-defined level declaring one is read the same way
template <class Level>
inline constexpr bool is_dense_level =
    layout_of<Level> == level_layout::dense && Level::properties.full;
template <class Level>
inline constexpr bool is_unique_compressed_level =
    layout_of<Level> == level_layout::compressed && Level::properties.unique;
template <class Level>
inline constexpr bool is_bitmap_level = layout_of<Level> == level_layout::bitmap;
// dense levels over one innermost bitmap: every cell has its value slot and its presence bit
// at the same row-major position
template <class... Levels> constexpr bool dense_over_bitmap() {
  constexpr std::size_t n = sizeof...(Levels);
  if constexpr (n == 0) {
    return false;
  } else {
    constexpr std::array<bool, n> full{Levels::properties.full...};
    constexpr std::array<bool, n> bitmap{is_bitmap_level<Levels>...};
    for (std::size_t k = 0; k + 1 < n; ++k)
      if (!full[k]) return false;
    return bitmap[n - 1];
  }
}
}  // namespace detail

/// A storage format: `Levels` from the outermost to the innermost, level k storing mode
/// `Modes[k]`. Use `format<L...>` (identity order) and `format<L...>::ordered<M...>`.
template <class LevelList, std::size_t... Modes> struct format_spec;

template <class... Levels, std::size_t... Modes>
struct format_spec<boost::mp11::mp_list<Levels...>, Modes...> {
  static_assert(sizeof...(Levels) == sizeof...(Modes),
                "loom::format: give one mode per level in ordered<...>");
  static_assert((level_type<Levels> && ...),
                "loom::format: every level must model loom::level_type (properties, name, "
                "static_extent, storage<Owning>, assemble, iterate); see docs/levels.md");
  static constexpr std::size_t order = sizeof...(Levels);
  using levels = boost::mp11::mp_list<Levels...>;
  /// modes[k] is the logical mode stored at level k.
  static constexpr std::array<std::size_t, order> modes{Modes...};
  /// levels_of_mode[m] is the level that stores logical mode m.
  static constexpr std::array<std::size_t, order> level_of_mode = [] {
    std::array<std::size_t, order> inverse{};
    for (std::size_t m = 0; m < order; ++m) inverse[modes[m]] = m;
    return inverse;
  }();
  static_assert(
      [] {
        std::array<bool, order> seen{};
        for (std::size_t m : modes) {
          if (m >= order || seen[m]) return false;
          seen[m] = true;
        }
        return true;
      }(),
      "loom::format::ordered: the mode order must be a permutation of 0..N-1");
  static_assert(detail::levels_are_well_formed<Levels...>(),
                "loom::format: a singleton level must follow a non-unique level, and only "
                "singleton levels may follow a non-unique level");
  static constexpr std::array<level_properties, order> properties{Levels::properties...};
  static constexpr bool all_dense = (Levels::properties.full && ...);
  /// Dense levels over an innermost bitmap (`format<bitmap>`, `format<dense, bitmap>`): an
  /// output in it is written in place, like a dense one, setting the presence bit of each cell.
  static constexpr bool dense_over_bitmap = detail::dense_over_bitmap<Levels...>();
  /// Outputs in this format are located and accumulated in place (no entries collected).
  static constexpr bool written_in_place = all_dense || dense_over_bitmap;

  template <std::size_t... NewModes> using ordered = format_spec<levels, NewModes...>;
};

namespace detail {
template <class List, class Seq> struct identity_format;
template <class... Levels, std::size_t... Is>
struct identity_format<boost::mp11::mp_list<Levels...>, std::index_sequence<Is...>> {
  using type = format_spec<boost::mp11::mp_list<Levels...>, Is...>;
};
template <std::size_t N, class... Levels> struct repeat_levels {
  using type = boost::mp11::mp_repeat_c<boost::mp11::mp_list<Levels...>, N>;
};
}  // namespace detail

/// `format<Levels...>`: levels in logical mode order; `format<...>::ordered<M...>` permutes.
template <class... Levels>
using format = typename detail::identity_format<boost::mp11::mp_list<Levels...>,
                                                std::index_sequence_for<Levels...>>::type;

/// Satisfied by `format<...>` and `format<...>::ordered<...>`.
template <class F>
concept storage_format = requires {
  F::order;
  F::modes;
  typename F::levels;
};

using dense_vector = format<dense>;
using sparse_vector = format<compressed>;
using dense_matrix = format<dense, dense>;
using csr = format<dense, compressed>;
using csc = format<dense, compressed>::ordered<1, 0>;
using dcsr = format<compressed, compressed>;
using dcsc = format<compressed, compressed>::ordered<1, 0>;
using coo = format<compressed_nonunique, singleton>;

namespace detail {
template <std::size_t N> struct coo_levels {
  using type = boost::mp11::mp_append<
      boost::mp11::mp_list<compressed_nonunique>,
      boost::mp11::mp_repeat_c<boost::mp11::mp_list<singleton_nonunique>, N - 2>,
      boost::mp11::mp_list<singleton>>;
};
template <class List> struct format_from_list;
template <class... Levels> struct format_from_list<boost::mp11::mp_list<Levels...>> {
  using type = format<Levels...>;
};
}  // namespace detail

/// Compressed sparse fiber: N compressed levels.
template <std::size_t N>
using csf = typename detail::format_from_list<
    boost::mp11::mp_repeat_c<boost::mp11::mp_list<compressed>, N>>::type;

/// N-dimensional coordinate format (N >= 2).
template <std::size_t N>
  requires(N >= 2)
using coo_n = typename detail::format_from_list<typename detail::coo_levels<N>::type>::type;

/// An N-dimensional all-dense format.
template <std::size_t N>
using dense_n = typename detail::format_from_list<
    boost::mp11::mp_repeat_c<boost::mp11::mp_list<dense>, N>>::type;

}  // namespace loom

#endif  // LOOM_FORMAT_FORMAT_HPP
