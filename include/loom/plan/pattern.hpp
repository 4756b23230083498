// Defines loom::plan::pattern_of: whether a kernel's sparse output has the pattern of one of its
// operands (SDDMM, a scaling, a product with dense factors), so that the output copies that
// operand's positions and coordinates and computes values only (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_PATTERN_HPP
#define LOOM_PLAN_PATTERN_HPP

#include <loom/expr/access.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>

namespace loom::plan {

namespace detail {
struct pattern_walk {
  bool ok = true;            // only products, sums over non-output indices, literals
  std::size_t matches = 0;   // accesses that carry the output's pattern
  std::size_t accesses = 0;  // accesses seen (the next one's ordinal)
  std::size_t ordinal = 0;   // the matching access's ordinal
};

template <class Out, class OutIndices, class E> struct pattern_node {
  static constexpr void walk(pattern_walk& w) { w.ok = false; }
};
template <class Out, class OutIndices, class V>
struct pattern_node<Out, OutIndices, expr::literal<V>> {
  static constexpr void walk(pattern_walk&) {}
};
// the output's tensor type read with the output's indices in order: the pattern's operand; an
// all-dense operand: a factor located at each entry; any other operand may drop entries
template <class Out, class OutIndices, class T, class... Is>
struct pattern_node<Out, OutIndices, expr::access<T, Is...>> {
  static constexpr void walk(pattern_walk& w) {
    using tensor_t = std::remove_const_t<T>;
    if constexpr (std::is_same_v<tensor_t, Out> &&
                  std::is_same_v<boost::mp11::mp_list<Is...>, OutIndices>) {
      ++w.matches;
      w.ordinal = w.accesses;
    } else if constexpr (!tensor_t::format_type::all_dense) {
      w.ok = false;
    }
    ++w.accesses;
  }
};
template <class Out, class OutIndices, class L, class R>
struct pattern_node<Out, OutIndices, expr::mul<L, R>> {
  static constexpr void walk(pattern_walk& w) {
    pattern_node<Out, OutIndices, L>::walk(w);
    pattern_node<Out, OutIndices, R>::walk(w);
  }
};
template <class Out, class OutIndices, class I, class E>
struct pattern_node<Out, OutIndices, expr::sum<I, E>> {
  static constexpr void walk(pattern_walk& w) {
    if constexpr (boost::mp11::mp_contains<OutIndices, I>::value) w.ok = false;
    pattern_node<Out, OutIndices, E>::walk(w);
  }
};
}  // namespace detail

/// For `lhs = rhs` with a sparse owning output: whether the output's pattern is exactly that of
/// one operand (`shares`), and that operand's ordinal among the accesses (`ordinal`). True when
/// rhs is a product of that operand, read with the output's indices in order and stored in the
/// output's very type, with all-dense operands and literals, summed over other indices only:
/// every entry of the operand yields one output entry (the caller checks the count), in order.
template <class Lhs, class Rhs> struct pattern_of {
 private:
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(std::declval<Lhs>().tensor)>>;
  static constexpr detail::pattern_walk w = [] {
    detail::pattern_walk x;
    detail::pattern_node<out_t, expr::free_indices_t<Lhs>, Rhs>::walk(x);
    return x;
  }();

 public:
  static constexpr bool shares =
      !out_t::format_type::all_dense && out_t::owning && w.ok && w.matches == 1;
  static constexpr std::size_t ordinal = w.ordinal;
};

}  // namespace loom::plan

#endif  // LOOM_PLAN_PATTERN_HPP
