// Defines rewrite_t<Plan, Rules>: applies IA rules bottom-up to a fixpoint (depth-bounded), the
// way loom's rules are matched: `rule_applies_to<R, E>` is `R::apply(e)` resolving (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_REWRITE_HPP
#define LOOM_TRA_IA_REWRITE_HPP

#include <loom/tra/ia/nodes.hpp>

#include <boost/mp11/list.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace loom::tra::ia {

/// Rule R matches plan node E (overload resolution on R::apply is the pattern match).
template <class R, class E>
concept rule_applies_to = requires(E e) { R::apply(e); };

template <class R, class E> using apply_rule_t = decltype(R::apply(std::declval<E>()));

namespace detail {
template <class E, class Rules> struct rewrite_once_impl {
  using type = E;
  static constexpr bool changed = false;
};
template <class E, class R, class... Rs>
struct rewrite_once_impl<E, boost::mp11::mp_list<R, Rs...>>
    : rewrite_once_impl<E, boost::mp11::mp_list<Rs...>> {};
template <class E, class R, class... Rs>
  requires rule_applies_to<R, E>
struct rewrite_once_impl<E, boost::mp11::mp_list<R, Rs...>> {
  using type = apply_rule_t<R, E>;
  static constexpr bool changed = true;
};

template <class E, class Rules, std::size_t Fuel> struct rewrite_impl;

// children first, then the root, then again on a changed root (Fuel bounds the depth)
template <class E, class Rules, std::size_t Fuel> struct rewrite_children {
  using type = E;
};
template <class C, class Rules, std::size_t Fuel> struct rewrite_children<bcast<C>, Rules, Fuel> {
  using type = bcast<typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class D, class C, class Rules, std::size_t Fuel>
struct rewrite_children<shuf<D, C>, Rules, Fuel> {
  using type = shuf<D, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class F, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lfilter<F, C>, Rules, Fuel> {
  using type = lfilter<F, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class K, class A, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lmap<K, A, C>, Rules, Fuel> {
  using type = lmap<K, A, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class G, class Op, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lagg<G, Op, C>, Rules, Fuel> {
  using type = lagg<G, Op, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class G, class Op, class C, class Rules, std::size_t Fuel>
struct rewrite_children<lpartial<G, Op, C>, Rules, Fuel> {
  using type = lpartial<G, Op, typename rewrite_impl<C, Rules, Fuel>::type>;
};
template <class JL, class JR, class Op, class L, class R, class Rules, std::size_t Fuel>
struct rewrite_children<ljoin<JL, JR, Op, L, R>, Rules, Fuel> {
  using type = ljoin<JL, JR, Op, typename rewrite_impl<L, Rules, Fuel>::type,
                     typename rewrite_impl<R, Rules, Fuel>::type>;
};
template <std::size_t P, std::size_t From, std::size_t Dim, class C, class Rules, std::size_t Fuel>
struct rewrite_children<ldup<P, From, Dim, C>, Rules, Fuel> {
  using type = ldup<P, From, Dim, typename rewrite_impl<C, Rules, Fuel>::type>;
};

template <class E, class Rules> struct rewrite_impl<E, Rules, 0> {
  using type = E;  // out of fuel: stop (a rule set that cycles is cut here)
};
template <bool Changed, class Next, class Inner, class Rules, std::size_t Fuel>
struct continue_if {  // not changed: a fixpoint (only the taken branch is instantiated)
  using type = Inner;
};
template <class Next, class Inner, class Rules, std::size_t Fuel>
struct continue_if<true, Next, Inner, Rules, Fuel> {
  using type = typename rewrite_impl<Next, Rules, Fuel>::type;
};
template <class E, class Rules, std::size_t Fuel> struct rewrite_impl {
  using inner = typename rewrite_children<E, Rules, Fuel - 1>::type;
  using once = rewrite_once_impl<inner, Rules>;
  using type =
      typename continue_if<once::changed, typename once::type, inner, Rules, Fuel - 1>::type;
};
}  // namespace detail

/// The plan after applying `Rules` (an mp_list, order = priority) bottom-up to a fixpoint.
template <class Plan, class Rules, std::size_t Fuel = 16>
using rewrite_t = typename detail::rewrite_impl<Plan, Rules, Fuel>::type;

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_REWRITE_HPP
