// Defines the lambda-composition rules R1-1 .. R1-7 over IA plans (the TRA paper §4.1, with its
// corrected conditions). Each rule's `apply` overloads are the pattern (parameter) and the
// replacement (trailing return type); `requires` holds the side condition.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RULES_LAMBDA_COMPOSITION_HPP
#define LOOM_TRA_RULES_LAMBDA_COMPOSITION_HPP

#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/kernels.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace loom::tra::rules {
using namespace loom::tra::ia;

/// R1-1  σᴸ(f1, σᴸ(f2, R))  ==>  σᴸ(f1 ∧ f2, R)   (unconditional)
struct merge_filters {
  static constexpr std::string_view name = "R1-1 merge_filters";
  template <class F1, class F2, class C>
  static auto apply(lfilter<F1, lfilter<F2, C>>) -> lfilter<and_<F1, F2>, C>;
};

/// R1-2  λᴸ(k1, a1, λᴸ(k2, a2, R))  ==>  λᴸ(k1∘k2, a1∘a2, R)   (one-to-one maps)
struct merge_maps {
  static constexpr std::string_view name = "R1-2 merge_maps";
  template <class K1, class A1, class K2, class A2, class C>
  static auto apply(lmap<K1, A1, lmap<K2, A2, C>>) -> lmap<
      std::conditional_t<std::is_same_v<K1, same_key>, K2,
                         std::conditional_t<std::is_same_v<K2, same_key>, K1, compose<K1, K2>>>,
      std::conditional_t<std::is_same_v<A1, same_tile>, A2,
                         std::conditional_t<std::is_same_v<A2, same_tile>, A1, compose<A1, A2>>>,
      C>;
};

/// R1-3  σᴸ(f, λᴸ(id, a, R))  ==>  λᴸ(id, a, σᴸ(f, R))   if the key map is the identity
/// (the profitable direction: filter before paying for the map)
struct filter_before_map {
  static constexpr std::string_view name = "R1-3 filter_before_map";
  template <class F, class A, class C>
  static auto apply(lfilter<F, lmap<same_key, A, C>>) -> lmap<same_key, A, lfilter<F, C>>;
};

/// R1-4  λᴸ(id, a, Σᴸ(g, op, R))  ==>  Σᴸ(g, op, λᴸ(id, a, R))   if a distributes over op
/// (a(op(x, y)) = op(a(x), a(y))) and the key map is the identity. The non-distributive form
/// (a as a finaliser) is not a rewrite here: applying a at every fold step would be wrong.
struct map_into_aggregation {
  static constexpr std::string_view name = "R1-4 map_into_aggregation";
  template <class A, class G, class Op, class C>
    requires distributes_over<A, Op>
  static auto apply(lmap<same_key, A, lagg<G, Op, C>>) -> lagg<G, Op, lmap<same_key, A, C>>;
};

namespace detail {
// Rebuilds the aggregated key from an input key: the projection onto gbk.
template <class G> struct project_gbk {
  template <class K> auto operator()(const K& k) const {
    std::array<std::int64_t, G::size> o{};
    for (std::size_t n = 0; n < G::size; ++n) o[n] = k[G::values[n]];
    return o;
  }
};
// Rebuilds the join-key segment of a join's output key from one side's key: positions JSide go
// to output positions [Skip, Skip + |J|); other positions are left 0 (the predicate must not
// read them: checked by the rule's condition).
template <class JSide, std::size_t Skip, std::size_t KO> struct join_key_as_output {
  template <class K> auto operator()(const K& k) const {
    std::array<std::int64_t, KO> o{};
    for (std::size_t n = 0; n < JSide::size; ++n) o[Skip + n] = k[JSide::values[n]];
    return o;
  }
};
template <std::size_t Skip, std::size_t G> constexpr std::array<std::size_t, G> segment() {
  std::array<std::size_t, G> a{};
  for (std::size_t n = 0; n < G; ++n) a[n] = Skip + n;
  return a;
}
}  // namespace detail

/// R1-5  σᴸ(f, Σᴸ(g, op, R))  ==>  Σᴸ(g, op, σᴸ(f∘Π_g, R))   (predicate pushdown below the
/// aggregation; sound because f sees only the output key, which is Π_g of every input key)
struct filter_into_aggregation {
  static constexpr std::string_view name = "R1-5 filter_into_aggregation";
  template <class F, class G, class Op, class C>
  static auto apply(lfilter<F, lagg<G, Op, C>>)
      -> lagg<G, Op, lfilter<pred_on<F, detail::project_gbk<G>>, C>>;
};

/// R1-6  σᴸ(f, ⋈ᴸ(jl, jr, op, L, R))  ==>  ⋈ᴸ(jl, jr, op, σᴸ(f', L), σᴸ(f', R))   if f reads
/// only the join-key positions of the output (then it can be decided on either side first)
struct filter_into_join {
  static constexpr std::string_view name = "R1-6 filter_into_join";
  template <class F, class JL, class JR, class Op, class L, class R,
            std::size_t Skip = arity_v<L> - JL::size,
            std::size_t KO = arity_v<ljoin<JL, JR, Op, L, R>>>
    requires(reads_only<F>(detail::segment<Skip, JL::size>()))
  static auto apply(lfilter<F, ljoin<JL, JR, Op, L, R>>)
      -> ljoin<JL, JR, Op, lfilter<pred_on<F, detail::join_key_as_output<JL, Skip, KO>>, L>,
               lfilter<pred_on<F, detail::join_key_as_output<JR, Skip, KO>>, R>>;
};

/// R1-7  λᴸ(k, a, ⋈ᴸ(jl, jr, op, L, R))  ==>  λᴸ(k, id, ⋈ᴸ(jl, jr, op, λᴸ(id, a, L), λᴸ(id, a, R)))
/// if a distributes over op (the special case: map each input, then combine; diag over add).
struct map_into_join {
  static constexpr std::string_view name = "R1-7 map_into_join";
  template <class KM, class A, class JL, class JR, class Op, class L, class R>
    requires distributes_over<A, Op>
  static auto apply(lmap<KM, A, ljoin<JL, JR, Op, L, R>>)
      -> lmap<KM, same_tile, ljoin<JL, JR, Op, lmap<same_key, A, L>, lmap<same_key, A, R>>>;
};

}  // namespace loom::tra::rules

#endif  // LOOM_TRA_RULES_LAMBDA_COMPOSITION_HPP
