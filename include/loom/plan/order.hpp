// Defines the compile-time choice of the attribute (loop) order and of the operands to transpose
// (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_ORDER_HPP
#define LOOM_PLAN_ORDER_HPP

#include <loom/core/config.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace loom::plan {

using boost::mp11::mp_list;

/// The most candidate plans instantiated per kernel (a runtime optimizer picks among them).
inline constexpr std::size_t max_plan_candidates = limits::plan_candidates;

/// The plan's static facts for `lhs = rhs` (an output access and an expression).
/// `Candidate` >= 0 selects that entry of `plan_candidates<Lhs, Rhs>`; -1 is the static choice.
/// `Forced` (an MP11 list of index types, `loom::order`) fixes the loop order instead.
template <class Lhs, class Rhs, int Candidate = -1, class Forced = void> struct order_plan;

/// The bounded list of plans a runtime optimizer chooses among (the static choice first).
template <class Lhs, class Rhs> struct plan_candidates;

namespace detail {

template <class A> struct access_traits;
template <class T, class... Is> struct access_traits<expr::access<T, Is...>> {
  using tensor_type = std::remove_const_t<T>;
  using format = typename tensor_type::format_type;
  using indices = mp_list<Is...>;
  static constexpr std::size_t order = sizeof...(Is);
  static constexpr bool dense = format::all_dense;
};

// ids of an access's indices, in storage (level) order
template <class Universe, class A> constexpr auto storage_ids() {
  using tr = access_traits<A>;
  std::array<std::size_t, tr::order> by_mode{};
  std::size_t m = 0;
  boost::mp11::mp_for_each<
      boost::mp11::mp_transform<boost::mp11::mp_identity, typename tr::indices>>([&](auto idx) {
    by_mode[m++] = boost::mp11::mp_find<Universe, typename decltype(idx)::type>::value;
  });
  std::array<std::size_t, tr::order> by_level{};
  for (std::size_t lv = 0; lv < tr::order; ++lv) by_level[lv] = by_mode[tr::format::modes[lv]];
  return by_level;
}

inline constexpr std::size_t max_indices = 16;
inline constexpr std::size_t max_accesses = 32;

struct problem {
  std::size_t n = 0;  // indices
  std::size_t accesses = 0;
  std::array<bool, max_accesses> sparse{};  // constrains the order
  std::array<std::array<std::size_t, max_indices>, max_accesses> ids{};
  std::array<std::size_t, max_accesses> length{};
  std::array<bool, max_indices> summed{};
  std::array<std::size_t, max_indices> out_rank{};  // preferred position (free indices)
  std::array<bool, max_indices> dense_only{};       // used by no sparse operand
  std::array<std::array<bool, max_indices>, max_accesses> full{};   // full[a][k]: level k is dense
  std::array<std::array<bool, max_indices>, max_indices> before{};  // before[a][b]: a above b
  bool dense_output = false;
};

struct result {
  std::array<std::size_t, max_indices> order{};  // order[d] = index id at depth d
  std::array<bool, max_accesses> transposed{};
  bool ok = false;
};

// Greedy topological order of the precedence constraints of non-dropped sparse accesses:
// free indices first (so sparse outputs append in order), then the output's order.
constexpr result topo(const problem& p, const std::array<bool, max_accesses>& dropped,
                      std::size_t first = max_indices) {
  result r{};
  std::array<bool, max_indices> placed{};
  for (std::size_t d = 0; d < p.n; ++d) {
    std::size_t best = p.n;
    for (std::size_t c = 0; c < p.n; ++c) {
      if (placed[c] || (d == 0 && first < p.n && c != first)) continue;
      bool available = true;
      for (std::size_t a = 0; a < p.accesses && available; ++a) {
        if (!p.sparse[a] || dropped[a]) continue;
        std::size_t at = p.length[a];  // c's level in a, if a uses c
        for (std::size_t k = 0; k < p.length[a]; ++k)
          if (p.ids[a][k] == c) at = k;
        if (at == p.length[a]) continue;      // a does not use c
        for (std::size_t k = 0; k < at; ++k)  // every index stored above c must be placed
          if (!placed[p.ids[a][k]]) available = false;
      }
      for (std::size_t a = 0; a < p.n && available; ++a)
        if (p.before[a][c] && !placed[a]) available = false;
      if (!available) continue;
      // A sparse output wants its free indices first (in-order append). A dense output is
      // located, so indices only dense operands use go innermost (contiguous, vectorisable).
      auto key = [&](std::size_t x) {
        return std::array<std::size_t, 3>{p.dense_output && p.dense_only[x] ? 1u : 0u,
                                          p.summed[x] ? 1u : 0u, p.out_rank[x]};
      };
      if (best == p.n || key(c) < key(best)) best = c;
    }
    if (best == p.n) return r;  // a cycle
    placed[best] = true;
    r.order[d] = best;
  }
  r.ok = true;
  return r;
}

/// The loop order over `n` indices that keeps every list given to `keep` (index ids, outermost
/// level first), ties broken by id: `topo` with storage orders as the only constraints; `ok` is
/// false when no order keeps them all. decompose orders the loops of its steps with it.
class storage_order {
 public:
  constexpr explicit storage_order(std::size_t n) {
    p_.n = n;
    for (std::size_t x = 0; x < n; ++x) p_.out_rank[x] = x;
  }
  template <std::size_t L> constexpr void keep(const std::array<std::size_t, L>& ids) {
    const std::size_t a = p_.accesses++;
    p_.sparse[a] = true;
    p_.length[a] = L;
    for (std::size_t k = 0; k < L; ++k) p_.ids[a][k] = ids[k];
  }
  constexpr result solve() const { return topo(p_, {}); }

 private:
  problem p_{};
};

constexpr void mark_transposed(const problem& p, result& r) {
  std::array<std::size_t, max_indices> depth{};
  for (std::size_t d = 0; d < p.n; ++d) depth[r.order[d]] = d;
  for (std::size_t a = 0; a < p.accesses; ++a) {
    if (!p.sparse[a]) continue;
    for (std::size_t k = 1; k < p.length[a]; ++k)
      if (depth[p.ids[a][k]] < depth[p.ids[a][k - 1]]) r.transposed[a] = true;
  }
}

constexpr result choose_under(const problem& p, int candidate) {
  std::array<bool, max_accesses> dropped{};
  result r = topo(p, dropped);
  if (!r.ok && candidate >= 0 && static_cast<std::size_t>(candidate) < p.accesses) {
    dropped[static_cast<std::size_t>(candidate)] = true;
    r = topo(p, dropped);
  }
  // otherwise drop operands from the last one back until the constraints are acyclic
  for (std::size_t a = p.accesses; !r.ok && a-- > 0;) {
    if (!p.sparse[a] || dropped[a]) continue;
    dropped[a] = true;
    r = topo(p, dropped);
  }
  if (r.ok) mark_transposed(p, r);
  return r;
}

// The precedence constraints can only contradict each other when one index name is reused in
// different scopes; then they are ignored and lowering reports the sum it cannot reduce.
constexpr result choose(const problem& p, int candidate) {
  result r = choose_under(p, candidate);
  if (r.ok) return r;
  problem relaxed = p;
  relaxed.before = {};
  return choose_under(relaxed, candidate);
}

// A loop below the outermost whose index only full (dense) levels of sparse operands iterate
// visits its whole extent for every outer iteration (csr x csc SpGEMM in the concordant order
// i, j, k walks every column j for every row i). Transposing such an operand once can give a
// nest in which every loop skips (Gustavson's i, k, j): one candidate per such operand, costed
// at run time with its copy (Galley's reformat; Galley).
template <class Add>
constexpr void add_transposing(const problem& q, const result& best, Add& add) {
  for (std::size_t d = 1; d < q.n; ++d) {
    const std::size_t x = best.order[d];
    if (q.dense_only[x]) continue;
    bool skips = false;
    for (std::size_t a = 0; a < q.accesses; ++a)
      for (std::size_t k = 0; k < q.length[a]; ++k)
        skips = skips || (q.sparse[a] && q.ids[a][k] == x && !q.full[a][k]);
    if (skips) continue;
    for (std::size_t a = 0; a < q.accesses; ++a) {
      if (!q.sparse[a] || q.length[a] < 2) continue;
      bool dense_on_x = false;
      for (std::size_t k = 0; k < q.length[a]; ++k) dense_on_x = dense_on_x || q.ids[a][k] == x;
      if (!dense_on_x) continue;
      problem t = q;  // the operand as if stored in the reverse order
      for (std::size_t k = 0; k < q.length[a]; ++k) t.ids[a][k] = q.ids[a][q.length[a] - 1 - k];
      result r = choose_under(t, -1);
      if (!r.ok) continue;
      r.transposed = {};
      mark_transposed(q, r);
      add(r);
    }
  }
}

/// The candidate plans of a kernel, best first by the static preference.
template <std::size_t Cap> struct candidate_list {
  std::array<result, Cap> plans{};
  std::size_t count = 0;
};

constexpr bool same_plan(const problem& p, const result& a, const result& b) {
  for (std::size_t d = 0; d < p.n; ++d)
    if (a.order[d] != b.order[d]) return false;
  for (std::size_t k = 0; k < p.accesses; ++k)
    if (a.transposed[k] != b.transposed[k]) return false;
  return true;
}

// Candidates whose ranking depends on the data: the static choice first; then, when a concordant
// order exists, the greedy completion of every other admissible outermost loop over an index some
// sparse operand stores (an index only dense operands use is never a better outer loop); when none
// exists, the transposition of each sparse operand in turn (Galley).
template <std::size_t Cap> constexpr candidate_list<Cap> enumerate(const problem& p) {
  candidate_list<Cap> out{};
  auto add = [&](const result& r) {
    if (!r.ok || out.count == Cap) return;
    for (std::size_t c = 0; c < out.count; ++c)
      if (same_plan(p, out.plans[c], r)) return;
    out.plans[out.count++] = r;
  };
  problem q = p;
  if (!choose_under(q, -1).ok) q.before = {};  // see choose()
  const result best = choose_under(q, -1);
  add(best);
  bool concordant = true;
  for (std::size_t a = 0; a < p.accesses; ++a) concordant = concordant && !best.transposed[a];
  if (concordant) {
    const std::array<bool, max_accesses> none{};
    for (std::size_t c = 0; c < p.n; ++c) {
      if (p.dense_only[c]) continue;
      result r = topo(q, none, c);
      if (r.ok) mark_transposed(q, r);
      add(r);
    }
    add_transposing(q, best, add);
  } else {
    for (std::size_t a = 0; a < p.accesses; ++a)
      if (p.sparse[a]) add(choose_under(q, static_cast<int>(a)));
  }
  return out;
}

// Precedence pairs mp_list<A, B> (A iterated above B) that let every sum be reduced where a
// non-linear operation consumes it: such a sum is a scalar per value of the operation's free
// indices, so those indices come before every index summed inside it (notes §4.10).
// `Outer` holds the free indices of the enclosing non-linear operations.
template <class E, class Outer> struct precedence {
  using type = mp_list<>;
};
template <class E, class Outer> using precedence_t = typename precedence<E, Outer>::type;

template <class E>
using has_sum = boost::mp11::mp_bool<!boost::mp11::mp_empty<expr::summed_indices_t<E>>::value>;

template <class Outer, class Node>
using widen = expr::detail::set_union<Outer, expr::free_indices_t<Node>>;

template <class I, class E, class Outer> struct precedence<expr::sum<I, E>, Outer> {
  template <class A> using pair_with = mp_list<A, I>;
  using type =
      boost::mp11::mp_append<boost::mp11::mp_transform<pair_with, boost::mp11::mp_remove<Outer, I>>,
                             precedence_t<E, boost::mp11::mp_remove<Outer, I>>>;
};
template <class L, class R, class Outer> struct precedence<expr::add<L, R>, Outer> {
  using type = boost::mp11::mp_append<precedence_t<L, Outer>, precedence_t<R, Outer>>;
};
// sums over the same index on both sides of a product are each reduced (the lifting rule)
template <class L, class R, class Outer> struct precedence<expr::mul<L, R>, Outer> {
  static constexpr bool shared = !boost::mp11::mp_empty<
      boost::mp11::mp_set_intersection<boost::mp11::mp_unique<expr::summed_indices_t<L>>,
                                       boost::mp11::mp_unique<expr::summed_indices_t<R>>>>::value;
  using inner = boost::mp11::mp_if_c<shared, widen<Outer, expr::mul<L, R>>, Outer>;
  using type = boost::mp11::mp_append<precedence_t<L, inner>, precedence_t<R, inner>>;
};
template <class P, class E, class Outer> struct precedence<expr::where<P, E>, Outer> {
  using type = boost::mp11::mp_append<precedence_t<P, widen<Outer, expr::where<P, E>>>,
                                      precedence_t<E, Outer>>;
};
template <class I, class E, class Outer> struct precedence<expr::expand<I, E>, Outer> {
  using type = precedence_t<E, Outer>;
};
template <class F, class E, class Outer> struct precedence<expr::map<F, E>, Outer> {
  using type =
      precedence_t<E,
                   boost::mp11::mp_if_c<fn::is_linear_v<F>, Outer, widen<Outer, expr::map<F, E>>>>;
};
// a constant operand of a binary map has no free index to order
template <class F, class A, class B, class Outer> struct precedence<expr::map<F, A, B>, Outer> {
  template <class X>
  using scope = boost::mp11::mp_if_c<boost::mp11::mp_empty<expr::free_indices_t<X>>::value, Outer,
                                     widen<Outer, expr::map<F, A, B>>>;
  using type = boost::mp11::mp_append<precedence_t<A, scope<A>>, precedence_t<B, scope<B>>>;
};

template <class Lhs> struct output_indices;
template <class T, class... Is> struct output_indices<expr::access<T, Is...>> {
  using type = mp_list<Is...>;
};

}  // namespace detail

/// Every index of `lhs = rhs`: the output's first, then the right-hand side's, by first
/// appearance. The universe of each of its candidate plans (and of its extents).
template <class Lhs, class Rhs>
using assignment_universe = boost::mp11::mp_unique<
    boost::mp11::mp_append<typename detail::output_indices<Lhs>::type, expr::all_indices_t<Rhs>>>;

namespace detail {
// The plan of an order the user fixed: the loop order given, every operand it does not suit
// transposed (`ok` is false when it breaks a precedence constraint).
template <std::size_t N>
constexpr result forced(const problem& p, const std::array<std::size_t, N>& ids) {
  result r{};
  for (std::size_t d = 0; d < N; ++d) r.order[d] = ids[d];
  r.ok = true;
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = a + 1; b < N; ++b)
      if (p.before[ids[b]][ids[a]]) r.ok = false;
  if (r.ok) mark_transposed(p, r);
  return r;
}
}  // namespace detail

template <class OT, class... Os, class Rhs, int Candidate, class Forced>
struct order_plan<expr::access<OT, Os...>, Rhs, Candidate, Forced> {
  using lhs_type = expr::access<OT, Os...>;
  using out_format = typename std::remove_const_t<OT>::format_type;
  using universe = assignment_universe<lhs_type, Rhs>;
  using accesses = expr::accesses_t<Rhs>;
  static constexpr std::size_t index_count = boost::mp11::mp_size<universe>::value;
  static constexpr std::size_t access_count = boost::mp11::mp_size<accesses>::value;
  static_assert(index_count <= detail::max_indices,
                "loom: more than 16 index variables in one kernel is not supported yet");
  static_assert(access_count <= detail::max_accesses,
                "loom: more than 32 accesses in one kernel is not supported yet");

  static constexpr detail::problem problem = [] {
    detail::problem p{};
    p.n = index_count;
    p.accesses = access_count;
    std::size_t a = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, accesses>>(
        [&](auto acc) {
          using A = typename decltype(acc)::type;
          using tr = detail::access_traits<A>;
          p.sparse[a] = !tr::dense;
          constexpr auto ids = detail::storage_ids<universe, A>();
          for (std::size_t q = 0; q < ids.size(); ++q) p.ids[a][q] = ids[q];
          p.length[a] = ids.size();
          std::size_t lv = 0;
          boost::mp11::mp_for_each<
              boost::mp11::mp_transform<boost::mp11::mp_identity, typename tr::format::levels>>(
              [&](auto l) { p.full[a][lv++] = decltype(l)::type::properties.full; });
          ++a;
        });
    for (std::size_t c = 0; c < p.n; ++c) {
      p.summed[c] = c >= sizeof...(Os);
      p.out_rank[c] = c;
      p.dense_only[c] = true;
      for (std::size_t b = 0; b < p.accesses; ++b)
        if (p.sparse[b])
          for (std::size_t q = 0; q < p.length[b]; ++q)
            if (p.ids[b][q] == c) p.dense_only[c] = false;
    }
    boost::mp11::mp_for_each<detail::precedence_t<Rhs, mp_list<>>>([&](auto pair) {
      using pair_type = decltype(pair);
      constexpr std::size_t above =
          boost::mp11::mp_find<universe, boost::mp11::mp_first<pair_type>>::value;
      constexpr std::size_t below =
          boost::mp11::mp_find<universe, boost::mp11::mp_second<pair_type>>::value;
      if (above != below) p.before[above][below] = true;
    });
    p.dense_output = out_format::written_in_place;
    // prefer the output's storage order among its indices
    constexpr auto out_ids = detail::storage_ids<universe, lhs_type>();
    for (std::size_t q = 0; q < out_ids.size(); ++q) p.out_rank[out_ids[q]] = q;
    return p;
  }();
  static constexpr detail::result chosen = [] {
    if constexpr (!std::is_void_v<Forced>) {
      static_assert(
          boost::mp11::mp_size<Forced>::value == index_count &&
              boost::mp11::mp_is_set<Forced>::value &&
              boost::mp11::mp_empty<boost::mp11::mp_set_difference<universe, Forced>>::value,
          "loom::order: list every index of the assignment exactly once (the output's "
          "and the summed ones)");
      constexpr auto ids = []<class... Is>(mp_list<Is...>) {
        return std::array<std::size_t, sizeof...(Is)>{boost::mp11::mp_find<universe, Is>::value...};
      }(Forced{});
      constexpr detail::result r = detail::forced(problem, ids);
      static_assert(r.ok,
                    "loom::order: this order iterates an index summed inside a non-linear "
                    "operation (map, integer /, where, a product of two sums over one index) "
                    "outside that operation's free indices; the sum cannot be reduced there");
      return r;
    } else if constexpr (Candidate < 0) {
      return detail::choose(problem, -1);
    } else {
      return plan_candidates<lhs_type, Rhs>::list.plans[Candidate];
    }
  }();
  static_assert(chosen.ok, "loom internal error: no loop order found; please report");

  template <class D> using index_at = boost::mp11::mp_at_c<universe, chosen.order[D::value]>;
  /// the loop order, outermost first
  using order = boost::mp11::mp_transform<index_at, boost::mp11::mp_iota_c<index_count>>;
  static constexpr std::size_t free_count = sizeof...(Os);

  /// whether the free indices come first and in the output's storage order: then a sparse
  /// output is appended in order; otherwise it goes through a workspace
  static constexpr bool output_in_order = [] {
    constexpr auto out_ids = detail::storage_ids<universe, lhs_type>();
    for (std::size_t q = 0; q < out_ids.size(); ++q)
      if (chosen.order[q] != out_ids[q]) return false;
    return true;
  }();
  /// how many leading output levels the outer loops fix in order (a workspace's row)
  static constexpr std::size_t output_prefix = [] {
    constexpr auto out_ids = detail::storage_ids<universe, lhs_type>();
    std::size_t q = 0;
    while (q < out_ids.size() && chosen.order[q] == out_ids[q]) ++q;
    return q;
  }();
  static constexpr bool any_transposed = [] {
    for (std::size_t a = 0; a < access_count; ++a)
      if (chosen.transposed[a]) return true;
    return false;
  }();
};

template <class Lhs, class Rhs> struct plan_candidates {
  static constexpr auto list =
      detail::enumerate<max_plan_candidates>(order_plan<Lhs, Rhs>::problem);
  static constexpr std::size_t count = list.count;
};

}  // namespace loom::plan

#endif  // LOOM_PLAN_ORDER_HPP
