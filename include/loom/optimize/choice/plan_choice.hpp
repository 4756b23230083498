// Defines the cost of a kernel's instantiated candidate plans: Galley's loop-order cost from
// sparsity estimates, and the cheapest candidate (optimize/choice/); plan_cache.hpp remembers
// the choice per coarse statistics signature.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_PLAN_CHOICE_HPP
#define LOOM_OPTIMIZE_CHOICE_PLAN_CHOICE_HPP

#include <loom/core/config.hpp>
#include <loom/core/unpack.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/optimize/statistics/chain_bound_estimator.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>
#include <loom/plan/order.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// Galley's physical cost constants (Galley §4.1, from Galley.jl): per iteration of a sparse
/// and of a dense level, per output write in and out of order, per copied entry of a transposed
/// sparse operand.
struct cost_constants {
  double sparse_read = 1.0;
  double dense_read = 0.2;
  double sequential_write = 5.0;
  double random_write = 10.0;
  double sparse_reformat = 60.0;
  /// per iteration that adds into a dense output's memory (a summed loop above the output's
  /// deepest loop), where a summed loop below it adds in a register (loom's, not Galley's)
  double dense_accumulate = 0.3;
  /// per entry of a level iterated in no stored order (a hash map, sorted on demand): two reads,
  /// the coordinate and the position (loom's, not Galley's)
  double unordered_read = 2.0;
};

/// What the cost of one loop order needs to know, by runtime index names. Operands are split as
/// in Galley (Galley): conjunctive ones (their fill annihilates every operation above
/// them) restrict the iterations, disjunctive ones (under a + or a map with f(0) != 0) add to them.
struct loop_order_query {
  std::vector<chain_bound_estimator> conjunctive;
  std::vector<chain_bound_estimator> disjunctive;
  std::vector<std::string> output;  // free indices, in the output's storage order
  /// per index name: the summed access factor of the operand levels iterating it
  std::map<std::string, double> factor;
  /// index names some operand iterates through a level that skips absent coordinates; a loop
  /// over any other index visits its whole extent for every outer iteration
  std::map<std::string, bool> skips;
  /// every index with its extent (indices no operand uses are counted loops)
  index_set extents;
  bool dense_output = false;

  loop_order_query() = default;
  loop_order_query(const loop_order_query&) = default;
  loop_order_query(loop_order_query&&) = default;
  loop_order_query& operator=(const loop_order_query&) = default;
  loop_order_query& operator=(loop_order_query&&) = default;
  // out of line: its maps' and estimators' teardown is 3 KB a kernel when inlined
  LOOM_INLINE ~loop_order_query();

  /// Estimated distinct values of the index names `v` that the loops over `v` visit: the join of
  /// the operands that use some index of `v`, projected on `v`.
  LOOM_DECL double iterations(const std::vector<std::string>& v) const;
};

/// The shortest mean fiber over x, below the indices `above`, of the conjunctive operands that
/// use x: every visited tuple of `above` pays at least that much to intersect (a merge walks,
/// a leapfrog searches, the shortest fiber), even when the intersection comes out empty;
/// Galley's join estimate alone counts only the matches. 0 when no operand bounds it.
LOOM_DECL double shortest_fiber(const loop_order_query& q, const std::vector<std::string>& above,
                                const std::string& x);

/// The cost of one loop order (outermost first) plus the copies it forces (Galley):
/// the iterations of every prefix times the access factor of its innermost index, plus output
/// writes (sequential when the free indices lead the order), plus `reformat`. A loop visits at
/// least the shortest fiber of its operands per outer iteration (`shortest_fiber`). A loop over an
/// index that no operand iterates through a sparse level visits its whole extent (Galley's
/// estimate assumes every loop skips; loom's dense levels do not).
LOOM_DECL double loop_order_cost(const loop_order_query& q, const std::vector<std::string>& order,
                                 double reformat = 0, const cost_constants& c = {});

template <class Node> inline constexpr char node_type_tag = 0;

/// A sum of the right-hand side that a query treats as one operand over its free indices, as if
/// computed first into a temporary (rewrite/hoist.hpp): its own accesses are left out.
struct replaced_sum {
  const void* node = nullptr;     // the sum node inside the expression
  const void* type = nullptr;     // &node_type_tag<its type> (a parent may share its address)
  std::vector<std::string> free;  // its free indices
  std::size_t first_access = 0;   // ordinal of its first access (for_each_access order)
  std::size_t access_count = 0;
  bool dense = true;  // the temporary is dense (located) or sparse (iterated)
};

/// Costs of every candidate plan of a kernel and the chosen one.
struct plan_choice {
  std::vector<double> cost;
  std::size_t chosen = 0;
};

namespace detail {

template <class... Is> std::vector<std::string> names_of(boost::mp11::mp_list<Is...>) {
  return {std::string(Is::name)...};
}

/// The extent of an index by name, 1 when unknown (a class, not a std::function of a lambda:
/// one definition for every kernel rather than one instantiation each).
struct extent_fn {
  const index_set* extents;
  std::int64_t operator()(const std::string& n) const {
    for (const index_extent& x : *extents)
      if (x.name == n) return x.extent;
    return 1;
  }
};

/// Starts the loop-order query of a kernel writing `output` (dense or not): its extents are
/// those the accesses report (`from_rhs`, the first report of a name wins), then the output's
/// (`given`) for names no access has, ordered by name. Not a template: kernels build no map.
LOOM_DECL void start_query(loop_order_query& q, std::vector<std::string> output, bool dense_output,
                           index_set from_rhs, const index_set& given);

/// Counts the sum `replaced` as one operand of `q` (its temporary read densely or not).
LOOM_DECL void note_replaced(loop_order_query& q, const replaced_sum& replaced);

LOOM_DECL chain_bound_estimator full_over(const std::vector<std::string>& names,
                                          const extent_fn& extent);

// Sorts the operands of a node into the query's conjunctive and disjunctive lists: below a +
// (or a map with f(0) != 0, which also covers its whole domain) an operand's fill no longer
// annihilates the operation above it (Galley).
struct collector {
  loop_order_query* q;
  const extent_fn* extent;
  statistics_cache* cache;
  const replaced_sum* replaced = nullptr;  // a sum costed as one operand (computed first)

  void add(chain_bound_estimator e, bool disjunctive) const {
    (disjunctive ? q->disjunctive : q->conjunctive).push_back(std::move(e));
  }
  template <class T, class... Is>
  void operator()(const expr::access<T, Is...>& a, bool disjunctive) const {
    if constexpr (sizeof...(Is) > 0) {
      std::vector<std::string> names{std::string(Is::name)...};
      if constexpr (std::remove_const_t<T>::format_type::all_dense)
        add(full_over(names, *extent), disjunctive);
      else
        add(chain_bound_estimator(cache->get(*a.tensor), names), disjunctive);
    }
  }
  template <class T> void operator()(const expr::literal<T>&, bool) const {}
  template <class L, class R> void operator()(const expr::add<L, R>& e, bool) const {
    (*this)(e.lhs, true);
    (*this)(e.rhs, true);
  }
  template <class L, class R> void operator()(const expr::mul<L, R>& e, bool disjunctive) const {
    (*this)(e.lhs, disjunctive);
    (*this)(e.rhs, disjunctive);
  }
  template <class P, class E> void operator()(const expr::where<P, E>& e, bool disjunctive) const {
    (*this)(e.pred, disjunctive);
    (*this)(e.body, disjunctive);
  }
  template <class I, class E> void operator()(const expr::sum<I, E>& e, bool disjunctive) const {
    if (replaced != nullptr && static_cast<const void*>(&e) == replaced->node &&
        static_cast<const void*>(&node_type_tag<expr::sum<I, E>>) == replaced->type) {
      add(full_over(replaced->free, *extent), disjunctive);  // an upper bound on its entries
      return;
    }
    (*this)(e.body, disjunctive);
  }
  template <class I, class E> void operator()(const expr::expand<I, E>& e, bool disjunctive) const {
    (*this)(e.body, disjunctive);
  }
  template <class F, class... Es>
  void operator()(const expr::map<F, Es...>& e, bool disjunctive) const {
    constexpr bool dense = !fn::is_zero_preserving_v<F>;
    const auto names = names_of(expr::free_indices_t<expr::map<F, Es...>>{});
    if (dense && !names.empty()) add(full_over(names, *extent), true);
    loom::detail::unpack([&](const auto&... x) { (..., (*this)(x, disjunctive || dense)); },
                         e.args);
  }
};

}  // namespace detail

namespace detail {
/// Adds the read cost of `count` modes (`names`, `dense`) of one operand to `q`.
LOOM_DECL void note_reads(loop_order_query& q, const std::string_view* names, const bool* dense,
                          const bool* unordered, std::size_t count);
}  // namespace detail

template <class F> constexpr level_properties properties_of_level(std::size_t level) {
  level_properties p{};
  std::size_t k = 0;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, typename F::levels>>(
      [&](auto l) {
        if (k++ == level) p = decltype(l)::type::properties;
      });
  return p;
}
template <class F> constexpr bool level_is_full(std::size_t level) {
  return properties_of_level<F>(level).full;
}

/// The loop-order query of a kernel writing `output` (its free indices in storage order) from
/// `rhs`; `extents` holds the output's extents (those of `rhs`'s accesses take precedence). With
/// `replaced`, that sum of `rhs` counts as one operand (rhs costed with the sum computed first).
template <class Rhs>
loop_order_query describe_rhs(std::vector<std::string> output, bool dense_output,
                              const index_set& extents, const Rhs& rhs, statistics_cache& cache,
                              const replaced_sum* replaced = nullptr) {
  index_set from_rhs;
  // loops over constexpr tables of the modes rather than a lambda per mode: compile time
  expr::for_each_access(rhs,
                        [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
                          if constexpr (sizeof...(Is) > 0) {
                            static constexpr std::string_view names[] = {Is::name...};
                            for (std::size_t m = 0; m < sizeof...(Is); ++m)
                              from_rhs.push_back({std::string(names[m]), a.tensor->extent(m)});
                          }
                          (void)a;
                        });
  loop_order_query q;
  detail::start_query(q, std::move(output), dense_output, std::move(from_rhs), extents);
  const detail::extent_fn extent{&q.extents};
  detail::collector{&q, &extent, &cache, replaced}(rhs, false);
  // per level: a dense level is cheap to walk or locate, any other costs a read per entry
  expr::for_each_access(
      rhs, [&]<class T, class... Is>(const expr::access<T, Is...>&, std::size_t operand) {
        if (replaced != nullptr && operand >= replaced->first_access &&
            operand < replaced->first_access + replaced->access_count)
          return;
        using F = typename std::remove_const_t<T>::format_type;
        if constexpr (sizeof...(Is) > 0) {
          static constexpr std::string_view names[] = {Is::name...};
          static constexpr auto dense = [] {
            std::array<bool, sizeof...(Is)> d{};
            for (std::size_t m = 0; m < d.size(); ++m)
              d[m] = F::all_dense || level_is_full<F>(F::level_of_mode[m]);
            return d;
          }();
          static constexpr auto unordered = [] {
            std::array<bool, sizeof...(Is)> u{};
            for (std::size_t m = 0; m < u.size(); ++m)
              u[m] = !properties_of_level<F>(F::level_of_mode[m]).ordered;
            return u;
          }();
          detail::note_reads(q, names, dense.data(), unordered.data(), sizeof...(Is));
        }
      });
  if (replaced != nullptr) detail::note_replaced(q, *replaced);
  return q;
}

/// The loop-order query of `lhs = rhs` under runtime statistics (see `describe_rhs`).
template <class Lhs, class Rhs>
loop_order_query describe(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache,
                          const replaced_sum* replaced = nullptr) {
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  index_set extents;
  const auto by_mode = detail::names_of(expr::free_indices_t<Lhs>{});
  if constexpr (out_t::order > 0)
    for (std::size_t m = 0; m < by_mode.size(); ++m)
      extents.push_back({by_mode[m], lhs.tensor->extent(m)});
  std::vector<std::string> output;
  for (std::size_t level = 0; level < by_mode.size(); ++level)
    output.push_back(by_mode[out_t::format_type::modes[level]]);
  return describe_rhs(std::move(output), out_t::format_type::written_in_place, extents, rhs, cache,
                      replaced);
}

/// Order (by name) and copy cost of candidate C of `lhs = rhs`.
template <class Lhs, class Rhs, std::size_t C>
double candidate_cost(const Lhs& lhs, const Rhs& rhs, const loop_order_query& q,
                      const cost_constants& k = {}) {
  using P = plan::order_plan<Lhs, Rhs, static_cast<int>(C)>;
  std::vector<std::string> order;
  boost::mp11::mp_for_each<typename P::order>(
      [&](auto idx) { order.emplace_back(decltype(idx)::name); });
  double reformat = 0;
  expr::for_each_access(rhs, [&](const auto& a, std::size_t ordinal) {
    if (P::chosen.transposed[ordinal])
      reformat += static_cast<double>(a.tensor->nnz()) * k.sparse_reformat;
  });
  (void)lhs;
  return loop_order_cost(q, order, reformat, k);
}

/// Every candidate's estimated cost and the cheapest (ties keep the static preference).
template <class Lhs, class Rhs>
plan_choice choose_plan(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  const loop_order_query q = describe(lhs, rhs, cache);
  plan_choice out;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto c) {
    out.cost.push_back(candidate_cost<Lhs, Rhs, decltype(c)::value>(lhs, rhs, q));
    if (out.cost.back() < out.cost[out.chosen]) out.chosen = c;
  });
  return out;
}

#if LOOM_HEADER_ONLY
LOOM_INLINE loop_order_query::~loop_order_query() = default;

LOOM_DEF double loop_order_query::iterations(const std::vector<std::string>& v) const {
  auto touches = [&](const chain_bound_estimator& e) {
    for (const auto& x : e.indices())
      if (std::find(v.begin(), v.end(), x.name) != v.end()) return true;
    return false;
  };
  std::vector<chain_bound_estimator> join;
  for (const auto& e : conjunctive)
    if (touches(e)) join.push_back(e);
  std::vector<chain_bound_estimator> any;
  for (const auto& e : disjunctive)
    if (touches(e)) any.push_back(e);
  if (!any.empty())
    join.push_back(any.size() == 1 ? any[0] : chain_bound_estimator::disjunction(any));
  index_set uncovered;  // counted loops
  for (const auto& name : v) {
    bool covered = false;
    for (const auto& e : join) covered = covered || loom::detail::has_index(e.indices(), name);
    if (!covered)
      for (const auto& x : extents)
        if (x.name == name) uncovered.push_back(x);
  }
  if (!uncovered.empty()) join.push_back(chain_bound_estimator::full(std::move(uncovered)));
  if (join.empty()) return 1;
  const chain_bound_estimator all =
      join.size() == 1 ? join[0] : chain_bound_estimator::conjunction(join);
  std::vector<std::string> rest;
  for (const auto& x : all.indices())
    if (std::find(v.begin(), v.end(), x.name) == v.end()) rest.push_back(x.name);
  return all.aggregate(rest).estimate();
}

LOOM_DEF double shortest_fiber(const loop_order_query& q, const std::vector<std::string>& above,
                               const std::string& x) {
  double best = -1;
  for (const auto& e : q.conjunctive) {
    if (!loom::detail::has_index(e.indices(), x)) continue;
    std::vector<std::string> without_x, without_both;  // indices to aggregate away
    for (const auto& i : e.indices()) {
      const bool is_above = std::find(above.begin(), above.end(), i.name) != above.end();
      if (!is_above && i.name != x) without_x.push_back(i.name);
      if (!is_above) without_both.push_back(i.name);
    }
    const double child = e.aggregate(without_x).estimate();
    const double parent =
        without_both.size() == e.indices().size() ? 1.0 : e.aggregate(without_both).estimate();
    const double fiber = child / std::max(1.0, parent);
    best = best < 0 ? fiber : std::min(best, fiber);
  }
  return best < 0 ? 0 : best;
}

LOOM_DEF double loop_order_cost(const loop_order_query& q, const std::vector<std::string>& order,
                                double reformat, const cost_constants& c) {
  double cost = reformat;
  std::vector<std::string> prefix;
  double visited = 1;         // iterations of the loops so far
  bool summed_above = false;  // a summed loop encloses the current one
  double scattered = 0;       // iterations of the deepest output loop with a summed loop above
  for (const std::string& name : order) {
    const bool is_free = std::find(q.output.begin(), q.output.end(), name) != q.output.end();
    prefix.push_back(name);
    double extent = 1;
    for (const auto& x : q.extents)
      if (x.name == name) extent = static_cast<double>(x.extent);
    const auto skip = q.skips.find(name);
    const std::vector<std::string> above(prefix.begin(), prefix.end() - 1);
    const double walked = std::max(q.iterations(prefix), visited * shortest_fiber(q, above, name));
    visited = skip != q.skips.end() && skip->second ? std::min(walked, visited * extent)
                                                    : visited * extent;
    const auto f = q.factor.find(name);
    cost += visited * (f == q.factor.end() ? c.dense_read : f->second);
    if (is_free && summed_above) scattered = visited;
    summed_above = summed_above || !is_free;
  }
  if (q.dense_output) cost += scattered * c.dense_accumulate;
  if (!q.dense_output) {
    bool in_order = true;  // free indices first, in the output's storage order
    for (std::size_t d = 0; d < q.output.size() && d < order.size(); ++d)
      in_order = in_order && order[d] == q.output[d];
    cost += q.iterations(q.output) * (in_order ? c.sequential_write : c.random_write);
  }
  return cost;
}

namespace detail {

LOOM_DEF chain_bound_estimator full_over(const std::vector<std::string>& names,
                                         const extent_fn& extent) {
  index_set s;
  for (const std::string& n : names) s.push_back({n, extent(n)});
  return chain_bound_estimator::full(std::move(s));
}

LOOM_DEF void start_query(loop_order_query& q, std::vector<std::string> output, bool dense_output,
                          index_set from_rhs, const index_set& given) {
  q.output = std::move(output);
  q.dense_output = dense_output;
  index_set all;
  const auto add = [&](index_extent x) {
    if (!loom::detail::has_index(all, x.name)) all.push_back(std::move(x));
  };
  for (index_extent& x : from_rhs) add(std::move(x));
  for (const index_extent& x : given) add(x);
  std::sort(all.begin(), all.end(),
            [](const index_extent& a, const index_extent& b) { return a.name < b.name; });
  q.extents = std::move(all);
}

LOOM_DEF void note_replaced(loop_order_query& q, const replaced_sum& replaced) {
  for (const std::string& name : replaced.free) {
    q.factor[name] += replaced.dense ? cost_constants{}.dense_read : cost_constants{}.sparse_read;
    q.skips[name] = q.skips[name] || !replaced.dense;
  }
}

LOOM_DEF void note_reads(loop_order_query& q, const std::string_view* names, const bool* dense,
                         const bool* unordered, std::size_t count) {
  for (std::size_t m = 0; m < count; ++m) {
    const std::string name(names[m]);
    q.factor[name] += dense[m]       ? cost_constants{}.dense_read
                      : unordered[m] ? cost_constants{}.unordered_read
                                     : cost_constants{}.sparse_read;
    q.skips[name] = q.skips[name] || !dense[m];
  }
}

}  // namespace detail
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_PLAN_CHOICE_HPP
