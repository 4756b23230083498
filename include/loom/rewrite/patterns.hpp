// Defines the small predicates rule side conditions share: which indices a subexpression uses,
// whether a node is a static constant (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_PATTERNS_HPP
#define LOOM_REWRITE_PATTERNS_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/rewrite/constants.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <type_traits>

namespace loom::rewrite {

/// Whether index I is free in E.
template <class E, class I>
inline constexpr bool uses_v = boost::mp11::mp_contains<expr::free_indices_t<E>, I>::value;

/// Whether index I occurs in E at all (free or bound by a sum inside it).
template <class E, class I>
inline constexpr bool mentions_v =
    uses_v<E, I> || boost::mp11::mp_contains<expr::summed_indices_t<E>, I>::value;

/// Whether E is one of the static constants.
template <class E>
inline constexpr bool is_constant_v = std::is_same_v<E, zero> || std::is_same_v<E, one>;

template <class E> struct is_literal : std::false_type {};
template <class T> struct is_literal<expr::literal<T>> : std::true_type {};

/// Index variables ordered by name (the canonical order of a block of sums).
template <class I, class J> inline constexpr bool index_before_v = I::name < J::name;

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_PATTERNS_HPP
