// Defines domain-free combinatorics over MP11 type lists (core/): the ordered selections of K
// elements and the prefixes of every elimination order, counted and capped. decompose
// enumerates its candidate elimination prefixes with them (exec/decompose/elimination.hpp); and
// positions_by_key, the order of a few positions by a key, for compile-time tables.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_COMBINATORICS_HPP
#define LOOM_CORE_COMBINATORICS_HPP

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

namespace loom::detail {

/// The ordered selections of K distinct elements of the list L, as a list of lists, in
/// lexicographic order of positions (the permutations of L when K is its size).
template <class L, std::size_t K> struct ordered_selections {
  template <class X> struct prepend {
    template <class P> using fn = boost::mp11::mp_push_front<P, X>;
  };
  template <class X>
  using starting_with = boost::mp11::mp_transform_q<
      prepend<X>, typename ordered_selections<boost::mp11::mp_remove<L, X>, K - 1>::type>;
  using type =
      boost::mp11::mp_apply<boost::mp11::mp_append,
                            boost::mp11::mp_push_front<boost::mp11::mp_transform<starting_with, L>,
                                                       boost::mp11::mp_list<>>>;
};
template <class L> struct ordered_selections<L, 0> {
  using type = boost::mp11::mp_list<boost::mp11::mp_list<>>;
};

/// How many ordered selections of 1, 2, ..., n elements n distinct elements have:
/// n + n(n-1) + ... + n!.
constexpr std::size_t ordered_prefix_count(std::size_t n) {
  std::size_t total = 0, term = 1;
  for (std::size_t k = 0; k < n; ++k) total += term *= n - k;
  return total;
}

/// The ordered selections of 1 element of L, then of 2, ... (every prefix of every order of L),
/// shortest first, at most Cap of them; the longer selections are not generated once Cap are.
template <class L, std::size_t Cap, std::size_t K = 1, class Acc = boost::mp11::mp_list<>>
struct ordered_prefixes {
  using type = boost::mp11::mp_take_c<Acc, std::min(Cap, boost::mp11::mp_size<Acc>::value)>;
};
template <class L, std::size_t Cap, std::size_t K, class Acc>
  requires(K <= boost::mp11::mp_size<L>::value && boost::mp11::mp_size<Acc>::value < Cap)
struct ordered_prefixes<L, Cap, K, Acc> {
  using type = typename ordered_prefixes<
      L, Cap, K + 1, boost::mp11::mp_append<Acc, typename ordered_selections<L, K>::type>>::type;
};

/// The positions 0..N-1 ordered by `key[position]`, ties in position order: the order of a
/// tensor's modes by the depth of their loops. An insertion sort, for the handful of modes of a
/// compile-time table (a std::sort with a lambda was one more instantiation per access type).
template <std::size_t N>
constexpr std::array<std::size_t, N> positions_by_key(const std::array<std::size_t, N>& key) {
  std::array<std::size_t, N> m{};
  for (std::size_t k = 0; k < N; ++k) m[k] = k;
  for (std::size_t k = 1; k < N; ++k)
    for (std::size_t j = k; j > 0 && key[m[j]] < key[m[j - 1]]; --j) std::swap(m[j], m[j - 1]);
  return m;
}

}  // namespace loom::detail

#endif  // LOOM_CORE_COMBINATORICS_HPP
