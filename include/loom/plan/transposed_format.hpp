// Defines loom::plan::transposed_format<Order, A>: the format of the copy an operand is read
// through when the loop order is not concordant with it (plan/). The evaluator binds it
// (exec/evaluate.hpp), explain() names it and the skip costing reads its levels.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_TRANSPOSED_FORMAT_HPP
#define LOOM_PLAN_TRANSPOSED_FORMAT_HPP

#include <loom/core/combinatorics.hpp>
#include <loom/expr/access.hpp>
#include <loom/format/format.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace loom::plan {

namespace detail {
// F's levels when every one of them can hold the entries in another mode order; else general
// sorted levels: dense first where F's first level is full (a row per coordinate, as F had),
// compressed below.
template <class Levels> struct permuted_levels {
  using type = Levels;
};
template <class L0, class... Ls>
  requires(!(level_is_permutable_v<L0> && ... && level_is_permutable_v<Ls>))
struct permuted_levels<boost::mp11::mp_list<L0, Ls...>> {
  using type = boost::mp11::mp_list<std::conditional_t<L0::properties.full, dense, compressed>,
                                    std::conditional_t<true, compressed, Ls>...>;
};
}  // namespace detail

/// The format of operand A's copy under loop order `Order` (a list of index types): its modes
/// re-ordered by the depth of their index; the same levels, unless one of them is not
/// permutable (`level_is_permutable_v`: a storage mapping's loops), then general sorted levels
/// (`general`), the mapping materialised once per call in the loop order.
template <class Order, class A> struct transposed_format;
template <class Order, class T, class... Is>
struct transposed_format<Order, expr::access<T, Is...>> {
  using original = typename std::remove_const_t<T>::format_type;
  using levels = typename detail::permuted_levels<typename original::levels>::type;
  /// true when the copy does not keep the original's levels
  static constexpr bool general = !std::is_same_v<levels, typename original::levels>;
  static constexpr std::array<std::size_t, sizeof...(Is)> modes = loom::detail::positions_by_key(
      std::array<std::size_t, sizeof...(Is)>{boost::mp11::mp_find<Order, Is>::value...});
  template <class Seq> struct make;
  template <std::size_t... Ks> struct make<std::index_sequence<Ks...>> {
    using type = format_spec<levels, modes[Ks]...>;
  };
  using type = typename make<std::make_index_sequence<sizeof...(Is)>>::type;
};

}  // namespace loom::plan

#endif  // LOOM_PLAN_TRANSPOSED_FORMAT_HPP
