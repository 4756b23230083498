// Defines the implementation-algebra (IA) plan nodes as empty types (the TRA
// paper): leaf, bcast, shuf, lfilter, lmap, lagg, ljoin, ldup; partition tags; and the
// partition each node's output has (propagation, which the paper leaves out) (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_NODES_HPP
#define LOOM_TRA_IA_NODES_HPP

#include <loom/tra/key_functions.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace loom::tra::ia {

/// A list of key positions (join keys, group-by keys, partition dimensions).
template <std::size_t... D> struct dims {
  static constexpr std::array<std::size_t, sizeof...(D)> values{D...};
  static constexpr std::size_t size = sizeof...(D);
};

// Partition tags: the paper's D, with its ∅ split in two (notes §3.1).
/// Tuples placed by a hash of the key positions D (D non-empty).
template <class D> struct partitioned {};
/// Every site holds every tuple (the paper's D = ∅ after BCAST).
struct replicated {};
/// All tuples on site 0 (what Σ<> needs; the paper has no symbol for it).
struct single {};
/// Placed with no known rule (an input read as it comes, or after a key map that moves D).
struct arbitrary {};

/// Identity key map and identity tile map (the paper's "_").
struct same_key {
  template <class K> K operator()(const K& k) const { return k; }
};
struct same_tile {
  template <class X> X operator()(const X& t) const { return t; }
};

/// f ∘ g for key maps or tile maps (R1-2).
template <class F, class G> struct compose {
  template <class X> auto operator()(const X& x) const { return F{}(G{}(x)); }
};
template <class F, class G>
  requires requires { F::out_arity; }
struct compose<F, G> {
  static constexpr std::size_t out_arity = F::out_arity;
  template <class X> auto operator()(const X& x) const { return F{}(G{}(x)); }
  template <class B> static constexpr auto bounds(const B& b) { return F::bounds(G::bounds(b)); }
};

/// A predicate over another key shape: P applied to `Adapt(key)` (R1-5, R1-6 push predicates
/// through aggregation and join by rebuilding the key P expects).
template <class F> constexpr std::string_view name_or_f() {
  if constexpr (requires { F::name; })
    return F::name;
  else
    return "f";
}
template <class P, class Adapt> struct pred_on {
  static constexpr std::string_view name = name_or_f<P>();
  template <class K> bool operator()(const K& k) const { return P{}(Adapt{}(k)); }
};

/// The I-th input of the plan, of key-arity K, placed as Partition.
template <std::size_t I, std::size_t K, class Partition = arbitrary> struct leaf {};
/// BCAST: every tuple to every site.
template <class C> struct bcast {};
/// SHUF<D>: repartition by the positions D (dims<> gathers on one site).
template <class D, class C> struct shuf {};
/// σᴸ: per-site filter on keys.
template <class F, class C> struct lfilter {};
/// λᴸ(keyMap, tileMap): per-site map (one-to-one here; ldup is the one-to-many case).
template <class KeyMap, class TileMap, class C> struct lmap {};
/// Σᴸ(gbk, op): per-site aggregation.
template <class Gbk, class Op, class C> struct lagg {};
/// Σᴸ(gbk, op) keeping the site as a last key position: the pre-aggregation of a combiner
/// (R2-5). Partial sums of one group from different sites stay distinct tuples, so a later SHUF
/// and Σᴸ merge them; the paper's relations are sets and could not hold them otherwise.
template <class Gbk, class Op, class C> struct lpartial {};
/// ⋈ᴸ(jkL, jkR, op): per-site join of tuples on the same site.
template <class JL, class JR, class Op, class L, class R> struct ljoin {};
/// λᴸ(insert_dim<P>, duplicate(n)) with n = bound `Dim` of input `From` (notes §4.3, UT-6).
template <std::size_t P, std::size_t From, std::size_t Dim, class C> struct ldup {};

// partition_t<Node>: where the output of Node lives ------------------------------------------
namespace detail {

template <class Node> struct partition_of {
  using type = arbitrary;
};
template <std::size_t I, std::size_t K, class P> struct partition_of<leaf<I, K, P>> {
  using type = P;
};
template <class C> struct partition_of<bcast<C>> {
  using type = replicated;
};
template <class C> struct partition_of<shuf<dims<>, C>> {
  using type = single;
};
template <std::size_t... D, class C>
  requires(sizeof...(D) > 0)
struct partition_of<shuf<dims<D...>, C>> {
  using type = partitioned<dims<D...>>;
};
template <class F, class C> struct partition_of<lfilter<F, C>> : partition_of<C> {};
template <class A, class C> struct partition_of<lmap<same_key, A, C>> : partition_of<C> {};

// Renumber D through a projection: position d of the input becomes the index of d in Gbk, or
// the partition is lost when some d is projected away.
template <class D, class Gbk> struct renumber {
  static constexpr bool ok = [] {
    for (std::size_t d : D::values) {
      bool found = false;
      for (std::size_t g : Gbk::values) found = found || g == d;
      if (!found) return false;
    }
    return D::size > 0;
  }();
  template <std::size_t N> static constexpr std::size_t at() {
    for (std::size_t g = 0; g < Gbk::size; ++g)
      if (Gbk::values[g] == D::values[N]) return g;
    return 0;
  }
  using type = decltype([]<std::size_t... N>(std::index_sequence<N...>) {
    return dims<at<N>()...>{};
  }(std::make_index_sequence<D::size>{}));
};

template <class P, class Gbk> struct through_projection {
  using type = arbitrary;
};
template <class Gbk> struct through_projection<replicated, Gbk> {
  using type = replicated;
};
template <class Gbk> struct through_projection<single, Gbk> {
  using type = single;
};
template <class D, class Gbk>
  requires renumber<D, Gbk>::ok
struct through_projection<partitioned<D>, Gbk> {
  using type = partitioned<typename renumber<D, Gbk>::type>;
};
template <class Gbk, class Op, class C> struct partition_of<lagg<Gbk, Op, C>> {
  using type = typename through_projection<typename partition_of<C>::type, Gbk>::type;
};
template <class Gbk, class Op, class C>
struct partition_of<lpartial<Gbk, Op, C>> : partition_of<lagg<Gbk, Op, C>> {};

// arity_v<Node>: the key-arity of a node's output (all static, notes §8.2 item 2).
template <class Node> struct arity;
template <std::size_t I, std::size_t K, class P>
struct arity<leaf<I, K, P>> : std::integral_constant<std::size_t, K> {};
template <class C> struct arity<bcast<C>> : arity<C> {};
template <class D, class C> struct arity<shuf<D, C>> : arity<C> {};
template <class F, class C> struct arity<lfilter<F, C>> : arity<C> {};
template <class A, class C> struct arity<lmap<same_key, A, C>> : arity<C> {};
template <class KM, class A, class C>
  requires requires { KM::out_arity; }
struct arity<lmap<KM, A, C>> : std::integral_constant<std::size_t, KM::out_arity> {};
template <class Gbk, class Op, class C>
struct arity<lagg<Gbk, Op, C>> : std::integral_constant<std::size_t, Gbk::size> {};
template <class Gbk, class Op, class C>
struct arity<lpartial<Gbk, Op, C>> : std::integral_constant<std::size_t, Gbk::size + 1> {};
template <class JL, class JR, class Op, class L, class R>
struct arity<ljoin<JL, JR, Op, L, R>>
    : std::integral_constant<std::size_t, arity<L>::value + arity<R>::value - JL::size> {};
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct arity<ldup<P, From, Dim, C>> : std::integral_constant<std::size_t, arity<C>::value + 1> {};

// ⋈ᴸ output key [L∖JL, JL, R∖JR]: the output position of left position p / right position q.
template <std::size_t K, class J> constexpr bool in_dims(std::size_t p) {
  for (std::size_t d : J::values)
    if (d == p) return true;
  return false;
}
template <std::size_t K, class J>
constexpr std::size_t rest_rank(std::size_t p) {  // rank of p among the positions not in J
  std::size_t r = 0;
  for (std::size_t d = 0; d < p; ++d) r += in_dims<K, J>(d) ? 0 : 1;
  return r;
}
template <std::size_t K, class J> constexpr std::size_t join_rank(std::size_t p) {
  for (std::size_t j = 0; j < J::size; ++j)
    if (J::values[j] == p) return j;
  return 0;
}
template <std::size_t KL, std::size_t KR, class JL, class JR, bool Left, class D>
struct join_positions {
  static constexpr std::size_t g = JL::size;
  static constexpr std::size_t map(std::size_t p) {
    if constexpr (Left) {
      return in_dims<KL, JL>(p) ? KL - g + join_rank<KL, JL>(p) : rest_rank<KL, JL>(p);
    } else {
      return in_dims<KR, JR>(p) ? KL - g + join_rank<KR, JR>(p) : KL + rest_rank<KR, JR>(p);
    }
  }
  using type = decltype([]<std::size_t... N>(std::index_sequence<N...>) {
    return dims<map(D::values[N])...>{};
  }(std::make_index_sequence<D::size>{}));
};

// A join is complete on each site when one side is replicated (its output then lives where the
// other side does) or both sides are partitioned on matching join keys (notes §8.2 item 12).
template <class JL, class JR, class PL, class PR, std::size_t KL, std::size_t KR>
struct join_partition {
  using type = arbitrary;
};
template <class JL, class JR, class PR, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, replicated, PR, KL, KR> {
  using type = PR;
};
template <class JL, class JR, class D, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, replicated, partitioned<D>, KL, KR> {
  using type = partitioned<typename join_positions<KL, KR, JL, JR, false, D>::type>;
};
template <class JL, class JR, class D, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, partitioned<D>, replicated, KL, KR> {
  using type = partitioned<typename join_positions<KL, KR, JL, JR, true, D>::type>;
};
template <class JL, class JR, std::size_t KL, std::size_t KR>
struct join_partition<JL, JR, replicated, replicated, KL, KR> {
  using type = replicated;
};
// Both sides partitioned on matched join positions: DL ⊆ JL and DR is DL's image in JR (the
// same partition function then sends matching tuples to the same site).
template <class JL, class JR, class DL, class DR> constexpr bool co_partitioned() {
  if (DL::size != DR::size || DL::size == 0) return false;
  for (std::size_t n = 0; n < DL::size; ++n) {
    bool found = false;
    for (std::size_t j = 0; j < JL::size; ++j)
      if (JL::values[j] == DL::values[n]) found = found || JR::values[j] == DR::values[n];
    if (!found) return false;
  }
  return true;
}
template <class JL, class JR, class DL, class DR, std::size_t KL, std::size_t KR>
  requires(co_partitioned<JL, JR, DL, DR>())
struct join_partition<JL, JR, partitioned<DL>, partitioned<DR>, KL, KR> {
  using type = partitioned<typename join_positions<KL, KR, JL, JR, true, DL>::type>;
};
template <class JL, class JR, class Op, class L, class R>
struct partition_of<ljoin<JL, JR, Op, L, R>> {
  using type = typename join_partition<JL, JR, typename partition_of<L>::type,
                                       typename partition_of<R>::type, arity<L>::value,
                                       arity<R>::value>::type;
};

/// Is the join complete (every matching pair meets on some site)? (notes §3.2 gap (c))
template <class PL, class PR, class JL, class JR>
struct join_complete
    : std::bool_constant<std::is_same_v<PL, replicated> || std::is_same_v<PR, replicated> ||
                         (std::is_same_v<PL, single> && std::is_same_v<PR, single>)> {};
template <class DL, class DR, class JL, class JR>
struct join_complete<partitioned<DL>, partitioned<DR>, JL, JR>
    : std::bool_constant<co_partitioned<JL, JR, DL, DR>()> {};
/// Is a local aggregation complete (each group on one site)? ∅ != D ⊆ gbk, single, or replicated.
template <class P, class Gbk> struct agg_complete : std::false_type {};
template <class Gbk> struct agg_complete<single, Gbk> : std::true_type {};
template <class Gbk> struct agg_complete<replicated, Gbk> : std::true_type {};
template <class D, class Gbk>
struct agg_complete<partitioned<D>, Gbk> : std::bool_constant<renumber<D, Gbk>::ok> {};
}  // namespace detail

/// Where the output of plan node `Node` lives.
template <class Node> using partition_t = typename detail::partition_of<Node>::type;
/// The key-arity of the output of plan node `Node`.
template <class Node> inline constexpr std::size_t arity_v = detail::arity<Node>::value;

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_NODES_HPP
