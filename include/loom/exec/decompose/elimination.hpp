// Defines the elimination side of loom::decompose (exec/decompose/): a sum-product flattened into
// summed indices and factors, what eliminating one index makes, the loop order concordant with
// the operands' storage, and the candidate elimination prefixes (exact, or greedy min-fill).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECOMPOSE_ELIMINATION_HPP
#define LOOM_EXEC_DECOMPOSE_ELIMINATION_HPP

#include <loom/core/config.hpp>
#include <loom/exec/options.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace loom {

/// The most elimination prefixes `decompose` instantiates per program (plus the fused kernel).
inline constexpr std::size_t max_elimination_orders = limits::elimination_orders;
/// The most cells `decompose` stores densely in one intermediate (a dense one- or two-index
/// intermediate is chosen when cheaper than a sorted sparse one and not larger than this).
inline constexpr std::int64_t max_dense_intermediate_cells = limits::dense_intermediate_cells;

namespace detail::ve {

using namespace boost::mp11;

// The options that change which kernels `decompose` instantiates: bitmap and hashed
// intermediates are a variant of every candidate (+70% compile time on the decompose tests for
// bitmap, docs/optimizer.md), a format per step a variant per mix of formats; so they are tags
// (opt::bitmap_intermediates, ...), off unless given.
template <bool Bitmap, bool Hashed, bool PerStep> struct intermediate_flags {
  static constexpr bool per_step = PerStep;
  static constexpr bool compiles(intermediate_format f) {
    return f == intermediate_format::bitmap   ? Bitmap
           : f == intermediate_format::hashed ? Hashed
                                              : true;
  }
};
template <class O>
using flags_of =
    intermediate_flags<O::bitmap_intermediates, O::hashed_intermediates, O::format_per_step>;

// A candidate's format assignment, as one number: two bits per elimination step, step t's
// intermediate_format in bits 2t and 2t + 1. `uniform_code` gives every step the same format.
inline constexpr std::size_t max_coded_steps = 16;
constexpr intermediate_format format_at(std::size_t code, std::size_t step) {
  return static_cast<intermediate_format>(step < max_coded_steps ? code >> 2 * step & 3u : 0u);
}
constexpr std::size_t uniform_code(intermediate_format f) {
  std::size_t code = 0;
  for (std::size_t t = 0; t < max_coded_steps; ++t) code |= static_cast<std::size_t>(f) << 2 * t;
  return code;
}

// A sum-product: sum(s1, sum(s2, ... A * B * ...)) flattened into summed indices and factors.
template <class E> struct flatten {
  static constexpr bool ok = false;
  using summed = mp_list<>;
  using factors = mp_list<>;
};
template <class T, class... Is> struct flatten<expr::access<T, Is...>> {
  static constexpr bool ok = sizeof...(Is) > 0;
  using summed = mp_list<>;
  using factors = mp_list<expr::access<T, Is...>>;
};
template <class L, class R> struct flatten<expr::mul<L, R>> {
  static constexpr bool ok = flatten<L>::ok && flatten<R>::ok &&
                             mp_empty<typename flatten<L>::summed>::value &&
                             mp_empty<typename flatten<R>::summed>::value;
  using summed = mp_list<>;
  using factors = mp_append<typename flatten<L>::factors, typename flatten<R>::factors>;
};
template <class I, class E> struct flatten<expr::sum<I, E>> {
  static constexpr bool ok = flatten<E>::ok && !mp_contains<typename flatten<E>::summed, I>::value;
  using summed = mp_push_front<typename flatten<E>::summed, I>;
  using factors = typename flatten<E>::factors;
};

// The accesses of a flattened product, left to right, as a tuple of access values.
template <class T, class... Is> auto collect(const expr::access<T, Is...>& a) {
  return std::tuple{a};
}
template <class L, class R> auto collect(const expr::mul<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class I, class E> auto collect(const expr::sum<I, E>& e) { return collect(e.body); }

template <class A> struct tensor_of_access_impl;
template <class T, class... Is> struct tensor_of_access_impl<expr::access<T, Is...>> {
  using type = std::remove_const_t<T>;
};
template <class A> using tensor_of_access = typename tensor_of_access_impl<A>::type;

template <class A> struct indices_of;
template <class T, class... Is> struct indices_of<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

// The ordered selections of K distinct elements of a list (the permutations when K is its size).
template <class L, std::size_t K> struct selections {
  template <class X> struct prepend {
    template <class P> using fn = mp_push_front<P, X>;
  };
  template <class X>
  using starting_with =
      mp_transform_q<prepend<X>, typename selections<mp_remove<L, X>, K - 1>::type>;
  using type = mp_apply<mp_append, mp_push_front<mp_transform<starting_with, L>, mp_list<>>>;
};
template <class L> struct selections<L, 0> {
  using type = mp_list<mp_list<>>;
};

// The elimination prefixes of a sum-product over the summed indices L: one index eliminated, then
// two, ... up to all (the indices after the prefix are summed in one fused kernel; the fused kernel
// of all of L is candidate 0). Full orders stay candidates: their last kernel is pointwise over
// intermediates, which may be shared. Shortest first, generated only up to Cap.
template <class L, std::size_t Cap, std::size_t K = 1, class Acc = mp_list<>>
struct elimination_prefixes {
  using type = mp_take_c<Acc, std::min(Cap, mp_size<Acc>::value)>;
};
template <class L, std::size_t Cap, std::size_t K, class Acc>
  requires(K <= mp_size<L>::value && mp_size<Acc>::value < Cap)
struct elimination_prefixes<L, Cap, K, Acc> {
  using type = typename elimination_prefixes<L, Cap, K + 1,
                                             mp_append<Acc, typename selections<L, K>::type>>::type;
};

// A factor: mp_list<id, indices>; ids below the input count are inputs, the rest intermediates.
template <class F> using factor_id = mp_first<F>;
template <class F> using factor_indices = mp_second<F>;
template <class S> struct uses {
  template <class F> using fn = mp_contains<factor_indices<F>, S>;
};

// Eliminating S: the factors using S become one intermediate over their other indices.
template <class Factors, class S, class Id> struct eliminate {
  using in = mp_copy_if_q<Factors, uses<S>>;
  static_assert(!mp_empty<in>::value, "loom::decompose: a summed index is used by no factor");
  using indices = mp_remove<
      mp_unique<mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, in>, mp_list<>>>>,
      S>;
};

// The indices of factor F in the order its storage nests them (inputs: their format's level
// order; intermediates: as made).
template <class Tensors, class F, bool Input = (factor_id<F>::value < mp_size<Tensors>::value)>
struct stored_indices {
  using type = factor_indices<F>;
};
template <class Tensors, class F> struct stored_indices<Tensors, F, true> {
  using format = typename std::remove_cvref_t<mp_at<Tensors, factor_id<F>>>::format_type;
  template <class K> using at_level = mp_at_c<factor_indices<F>, format::modes[K::value]>;
  using type = mp_transform<at_level, mp_iota_c<format::order>>;
};

// A loop order over the indices of All that keeps every list of Stored where it can (Kahn's
// algorithm, ties and cycles broken by the order of All), and whether it keeps all of them.
template <std::size_t N> struct loop_order {
  std::array<std::size_t, N> positions{};
  bool concordant = true;
};
// before[a][b]: index a of All comes right before b in one of the lists of Stored.
template <class All, class... Stored> constexpr auto storage_precedence(mp_list<Stored...>) {
  constexpr std::size_t n = mp_size<All>::value;
  std::array<std::array<bool, n>, n> before{};
  (..., [&]<class... Xs>(mp_list<Xs...>) {
    constexpr std::array<std::size_t, sizeof...(Xs)> p{mp_find<All, Xs>::value...};
    for (std::size_t t = 0; t + 1 < p.size(); ++t) before[p[t]][p[t + 1]] = true;
  }(Stored{}));
  return before;
}
template <class All, class... Stored> constexpr auto concordant_order(mp_list<Stored...> stored) {
  constexpr std::size_t n = mp_size<All>::value;
  const auto before = storage_precedence<All>(stored);  // before[a][b]: a must come before b
  loop_order<n> result;
  std::array<bool, n> placed{};
  for (std::size_t t = 0; t < n; ++t) {
    std::size_t pick = n;
    for (std::size_t c = 0; c < n && pick == n; ++c) {
      if (placed[c]) continue;
      bool free = true;
      for (std::size_t q = 0; q < n; ++q) free = free && (placed[q] || !before[q][c]);
      if (free) pick = c;
    }
    if (pick == n) result.concordant = false;
    for (std::size_t c = 0; c < n && pick == n; ++c)  // a cycle: the first one left
      if (!placed[c]) pick = c;
    placed[pick] = true;
    result.positions[t] = pick;
  }
  return result;
}
// Whether one loop order keeps every list of Stored (no cycle in their precedences).
template <class All, class... Stored> constexpr bool concordant_exists(mp_list<Stored...> stored) {
  return concordant_order<All>(stored).concordant;
}

// The indices of the intermediate that eliminating S makes, in the order of a loop nest
// concordant with the step's operands, so that the step writes it in order (appended, or one
// workspace row at a time) instead of collecting and sorting its entries.
template <class Tensors, class Factors, class S> struct concordant_made {
  using e = eliminate<Factors, S, mp_size_t<0>>;
  using all = mp_unique<
      mp_apply<mp_append, mp_push_front<mp_transform<factor_indices, typename e::in>, mp_list<>>>>;
  template <class F> using stored = typename stored_indices<Tensors, F>::type;
  static constexpr auto positions =
      concordant_order<all>(mp_transform<stored, typename e::in>{}).positions;
  template <class K> using at = mp_at_c<all, positions[K::value]>;
  using type = mp_remove<mp_transform<at, mp_iota<mp_size<all>>>, S>;
};
template <class Tensors, class Factors, class S>
using concordant_made_t = typename concordant_made<Tensors, Factors, S>::type;

// A greedy elimination order (the min-fill rule of variable elimination, on the program's
// structure): each time, the summed index whose intermediate has the fewest indices (the first
// such in the written order).
template <class Factors, class Summed, class Order = mp_list<>> struct greedy_order {
  template <class S> using arity = mp_size<typename eliminate<Factors, S, mp_size_t<0>>::indices>;
  using arities = mp_transform<arity, Summed>;
  using best = mp_at<Summed, mp_find<arities, mp_min_element<arities, mp_less>>>;
  using made = mp_list<mp_size_t<0>, typename eliminate<Factors, best, mp_size_t<0>>::indices>;
  using type = typename greedy_order<mp_push_back<mp_remove_if_q<Factors, uses<best>>, made>,
                                     mp_remove<Summed, best>, mp_push_back<Order, best>>::type;
};
template <class Factors, class Order> struct greedy_order<Factors, mp_list<>, Order> {
  using type = Order;
};

// How many elimination prefixes n summed indices have: n + n(n-1) + ... + n!.
constexpr std::size_t prefix_count(std::size_t n) {
  std::size_t total = 0, term = 1;
  for (std::size_t k = 0; k < n; ++k) total += term *= n - k;
  return total;
}

// The candidates: every prefix when there are at most Cap (exact search, small programs); else the
// prefixes of the greedy order first, then the shortest others, up to Cap.
template <class Factors, class Summed, std::size_t Cap> struct candidate_prefixes {
  static constexpr std::size_t n = mp_size<Summed>::value;
  static constexpr bool exact = prefix_count(n) <= Cap;
  using greedy = typename greedy_order<Factors, Summed>::type;
  template <class K> using greedy_prefix = mp_take<greedy, mp_size_t<K::value + 1>>;
  using greedy_prefixes = mp_transform<greedy_prefix, mp_iota_c<n>>;
  using shortest = typename elimination_prefixes<Summed, Cap + n>::type;
  using merged = mp_unique<mp_append<greedy_prefixes, shortest>>;
  using type = mp_if_c<exact, shortest, mp_take_c<merged, std::min(Cap, mp_size<merged>::value)>>;
};

}  // namespace detail::ve
}  // namespace loom

#endif  // LOOM_EXEC_DECOMPOSE_ELIMINATION_HPP
