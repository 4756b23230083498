// Defines the repartition rules R2-1 .. R2-7 over IA plans (the TRA paper §4.1, with the corrected
// conditions: R2-4 reads the input's existing partition, R2-5 needs an associative and
// commutative op and shuffles on renumbered positions, R2-7 needs a complete join) (tra/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RULES_REPARTITION_HPP
#define LOOM_TRA_RULES_REPARTITION_HPP

#include <loom/tra/ia/nodes.hpp>

#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra::rules {
using namespace loom::tra::ia;

/// R2-1  SHUF(p2, SHUF(p1, R))  ==>  SHUF(p2, R)   (and a BCAST under a SHUF is dropped too)
struct collapse_shuffles {
  static constexpr std::string_view name = "R2-1 collapse_shuffles";
  template <class D2, class D1, class C> static auto apply(shuf<D2, shuf<D1, C>>) -> shuf<D2, C>;
};

/// R2-2  σᴸ(f, BCAST(R)) ==> BCAST(σᴸ(f, R));  σᴸ(f, SHUF(p, R)) ==> SHUF(p, σᴸ(f, R))
/// (filter before moving data)
struct filter_before_move {
  static constexpr std::string_view name = "R2-2 filter_before_move";
  template <class F, class C> static auto apply(lfilter<F, bcast<C>>) -> bcast<lfilter<F, C>>;
  template <class F, class D, class C>
  static auto apply(lfilter<F, shuf<D, C>>) -> shuf<D, lfilter<F, C>>;
};

/// R2-3  λᴸ(id, a, BCAST(R)) ==> BCAST(λᴸ(id, a, R)); the same under SHUF(p) — only when the
/// key map is the identity, so p means the same positions before and after the map.
struct map_before_move {
  static constexpr std::string_view name = "R2-3 map_before_move";
  template <class A, class C>
    requires(!std::is_same_v<A, same_tile>)
  static auto apply(lmap<same_key, A, bcast<C>>) -> bcast<lmap<same_key, A, C>>;
  template <class A, class D, class C>
    requires(!std::is_same_v<A, same_tile>)
  static auto apply(lmap<same_key, A, shuf<D, C>>) -> shuf<D, lmap<same_key, A, C>>;
};

/// λᴸ(id, id, R) ==> R (what R1-2 and R1-7 leave behind).
struct drop_identity_map {
  static constexpr std::string_view name = "drop_identity_map";
  template <class C> static auto apply(lmap<same_key, same_tile, C>) -> C;
};

/// R2-4  Σᴸ(g, op, SHUF(p, R))  ==>  Σᴸ(g, op, R)   if R is already partitioned on a non-empty
/// D ⊆ g (then every group already lives on one site).
struct skip_shuffle_before_aggregation {
  static constexpr std::string_view name = "R2-4 skip_shuffle_before_aggregation";
  template <class G, class Op, class D, class C>
    requires ia::detail::agg_complete<partition_t<C>, G>::value &&
             (!std::is_same_v<partition_t<C>, replicated>)
  static auto apply(lagg<G, Op, shuf<D, C>>) -> lagg<G, Op, C>;
};

namespace detail {
template <class Seq> struct iota_dims_impl;
template <std::size_t... I> struct iota_dims_impl<std::index_sequence<I...>> {
  using type = dims<I...>;
};
template <std::size_t N>
using iota_dims = typename iota_dims_impl<std::make_index_sequence<N>>::type;
template <class C> inline constexpr bool is_lagg = false;
template <class G, class Op, class C> inline constexpr bool is_lagg<lagg<G, Op, C>> = true;
template <class G, class Op, class C> inline constexpr bool is_lagg<lpartial<G, Op, C>> = true;
}  // namespace detail

/// R2-5  Σᴸ(g, op, SHUF(p, R))  ==>  Σᴸ(0..|g|-1, op, SHUF(p', Σᴸ⁺(g, op, R)))   (a combiner;
/// Σᴸ⁺ = lpartial keeps the site in the key so partial sums of one group stay distinct)
/// if op is associative and commutative, p ⊆ g (p' is p renumbered into g's positions), and the
/// input is not already grouped (else R2-4 applies) nor already pre-aggregated.
struct two_phase_aggregation {
  static constexpr std::string_view name = "R2-5 two_phase_aggregation";
  template <class G, class Op, class D, class C>
    requires Op::associative && Op::commutative && ia::detail::renumber<D, G>::ok &&
             (!ia::detail::agg_complete<partition_t<C>, G>::value) && (!detail::is_lagg<C>)
  static auto apply(lagg<G, Op, shuf<D, C>>)
      -> lagg<detail::iota_dims<G::size>, Op,
              shuf<typename ia::detail::renumber<D, G>::type, lpartial<G, Op, C>>>;
};

/// R2-6  ⋈ᴸ(BCAST L, R) == ⋈ᴸ(L, BCAST R) == ⋈ᴸ(SHUF(jl) L, SHUF(jr) R): alternatives, not a
/// simplification; plan enumeration uses these two (never the fixpoint driver).
struct broadcast_other_side {
  static constexpr std::string_view name = "R2-6 broadcast_other_side";
  template <class JL, class JR, class Op, class L, class R>
  static auto apply(ljoin<JL, JR, Op, bcast<L>, R>) -> ljoin<JL, JR, Op, L, bcast<R>>;
};
struct shuffle_join {
  static constexpr std::string_view name = "R2-6 shuffle_join";
  template <class JL, class JR, class Op, class L, class R>
  static auto apply(ljoin<JL, JR, Op, bcast<L>, R>) -> ljoin<JL, JR, Op, shuf<JL, L>, shuf<JR, R>>;
};

/// R2-7  SHUF(p, ⋈ᴸ(jl, jr, op, BCAST L, R))  ==>  ⋈ᴸ(jl, jr, op, SHUF(jl, L), SHUF(jr, R))   if p
/// is the join-key segment of the output (the left-hand join is complete: one side broadcast).
struct co_partitioned_join {
  static constexpr std::string_view name = "R2-7 co_partitioned_join";
  template <class D, class JL, class JR, class Op, class L, class R>
    requires std::is_same_v<D, typename ia::detail::join_positions<arity_v<bcast<L>>, arity_v<R>,
                                                                   JL, JR, true, JL>::type>
  static auto apply(shuf<D, ljoin<JL, JR, Op, bcast<L>, R>>)
      -> ljoin<JL, JR, Op, shuf<JL, L>, shuf<JR, R>>;
};

}  // namespace loom::tra::rules

#endif  // LOOM_TRA_RULES_REPARTITION_HPP
