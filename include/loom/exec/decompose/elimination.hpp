// Defines the elimination side of loom::decompose (exec/decompose/): a sum-product flattened into
// summed indices and factors (expr/sum_product.hpp), what eliminating one index makes, the loop
// order concordant with the operands' storage (plan/order.hpp), and the candidate elimination
// prefixes (exact, from core/combinatorics.hpp, or greedy min-fill).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECOMPOSE_ELIMINATION_HPP
#define LOOM_EXEC_DECOMPOSE_ELIMINATION_HPP

#include <loom/core/combinatorics.hpp>
#include <loom/core/config.hpp>
#include <loom/core/elimination.hpp>
#include <loom/exec/options.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/sum_product.hpp>
#include <loom/expr/traits.hpp>
#include <loom/plan/order.hpp>

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

// The option that changes which kernels `decompose` instantiates: mixing dense and other formats
// per step is a variant per mix, a tag (opt::format_per_step), off unless given. Sorted, bitmap
// and hashed intermediates share one kernel (an adaptive level whose kind is set at run time), so
// every format is compiled in.
template <bool PerStep> struct intermediate_flags {
  static constexpr bool per_step = PerStep;
};
template <class O> using flags_of = intermediate_flags<O::format_per_step>;

// A candidate's format assignment, as one number: two bits per elimination step, step t's
// intermediate_format in bits 2t and 2t + 1. `uniform_code` gives every step the same format.
inline constexpr std::size_t max_coded_steps = 16;
constexpr intermediate_format format_at(std::size_t code, std::size_t step) {
  return static_cast<intermediate_format>(step < max_coded_steps ? code >> 2 * step & 3u : 0u);
}
// The part of a code that changes the kernels: its dense steps (the others, sorted, bitmap or
// hashed, share the adaptive level's kernel and are read from the full code at run time).
constexpr std::size_t dense_part(std::size_t code) {
  std::size_t out = 0;
  for (std::size_t t = 0; t < max_coded_steps; ++t)
    if (format_at(code, t) == intermediate_format::dense)
      out |= static_cast<std::size_t>(intermediate_format::dense) << 2 * t;
  return out;
}
constexpr std::size_t uniform_code(intermediate_format f) {
  std::size_t code = 0;
  for (std::size_t t = 0; t < max_coded_steps; ++t) code |= static_cast<std::size_t>(f) << 2 * t;
  return code;
}

// A sum-product: sum(s1, sum(s2, ... A * B * ...)) flattened into summed indices and factors
// (expr/sum_product.hpp, shared with la); decompose takes those whose factors are all accesses.
template <class E> using flatten = expr::sum_product<E>;

// The accesses of a flattened product, left to right, as a tuple of access values.
template <class E> constexpr auto collect(const E& e) {
  return expr::factors_of(flatten<E>::body_of(e));
}

template <class A> struct tensor_of_access_impl;
template <class T, class... Is> struct tensor_of_access_impl<expr::access<T, Is...>> {
  using type = std::remove_const_t<T>;
};
template <class A> using tensor_of_access = typename tensor_of_access_impl<A>::type;

template <class A> struct indices_of;
template <class T, class... Is> struct indices_of<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

// The elimination prefixes of a sum-product over the summed indices L: one index eliminated, then
// two, ... up to all (the indices after the prefix are summed in one fused kernel; the fused kernel
// of all of L is candidate 0). Full orders stay candidates: their last kernel is pointwise over
// intermediates, which may be shared. Shortest first, generated only up to Cap.
template <class L, std::size_t Cap>
using elimination_prefixes = loom::detail::ordered_prefixes<L, Cap>;

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

// A loop order over the indices of All that keeps every list of Stored (the planner's routine,
// plan/order.hpp), and whether one exists.
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
template <class All, class... Stored> constexpr auto concordant_order(mp_list<Stored...>) {
  constexpr std::size_t n = mp_size<All>::value;
  static_assert(n <= plan::detail::max_indices && sizeof...(Stored) <= plan::detail::max_accesses,
                "loom::decompose: a step has more indices or operands than the planner orders");
  plan::detail::storage_order order(n);
  (..., order.keep([]<class... Xs>(mp_list<Xs...>) {
    return std::array<std::size_t, sizeof...(Xs)>{mp_find<All, Xs>::value...};
  }(Stored{})));
  const plan::detail::result r = order.solve();
  loop_order<n> out;
  out.concordant = r.ok;
  for (std::size_t t = 0; t < n; ++t) out.positions[t] = r.ok ? r.order[t] : t;
  return out;
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
// such in the written order); core/elimination.hpp, shared with la.
template <class Factors, class Summed> struct greedy_order {
  using all = mp_unique<
      mp_append<Summed, mp_apply<mp_append,
                                 mp_push_front<mp_transform<factor_indices, Factors>, mp_list<>>>>>;
  static constexpr std::size_t n = mp_size<Summed>::value;
  static_assert(mp_size<all>::value <= 64 && mp_size<Factors>::value <= max_elimination_factors,
                "loom::decompose: a program has more than 64 indices or factors");
  static constexpr std::array<std::size_t, n> positions = [] {
    std::array<id_set, mp_size<Factors>::value> sets{};
    std::size_t f = 0;
    mp_for_each<Factors>([&](auto factor) {
      mp_for_each<factor_indices<decltype(factor)>>(
          [&](auto idx) { sets[f] |= id_set{1} << mp_find<all, decltype(idx)>::value; });
      ++f;
    });
    std::array<std::size_t, n> summed{}, order{};
    std::size_t k = 0;
    mp_for_each<Summed>([&](auto idx) { summed[k++] = mp_find<all, decltype(idx)>::value; });
    greedy_elimination(
        sets.data(), sets.size(), summed.data(), n, order.data(),
        [](id_set span, std::size_t id) { return index_count(span & ~(id_set{1} << id)); });
    return order;
  }();
  template <class K> using at = mp_at_c<all, positions[K::value]>;
  using type = mp_transform<at, mp_iota_c<n>>;
};

// The candidates: every prefix when there are at most Cap (exact search, small programs); else the
// prefixes of the greedy order first, then the shortest others, up to Cap.
template <class Factors, class Summed, std::size_t Cap> struct candidate_prefixes {
  static constexpr std::size_t n = mp_size<Summed>::value;
  static constexpr bool exact = loom::detail::ordered_prefix_count(n) <= Cap;
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
