// Defines the runtime choice of the skip policy per loop (optimize/choice/): which operand of each
// intersection leads and how the others catch up (leapfrog, merge, lead first / last), among the
// variants instantiated at compile time, costed from statistics after Galley's physical model
// (Galley), cached by a coarse signature, and explained.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_SKIP_CHOICE_HPP
#define LOOM_OPTIMIZE_CHOICE_SKIP_CHOICE_HPP

#include <loom/core/config.hpp>
#include <loom/core/debug.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/format_name.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/choice/skip_candidates.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// One loop's policy costs (indexed by skip_code, standard last) and what they were made of.
struct loop_skip_costs {
  std::size_t depth = 0;
  std::string index;
  double outer = 1;                   // estimated iterations of the loops outside
  std::vector<std::string> operands;  // labels, in expression order
  std::vector<double> fiber;          // mean stored entries per fiber of each operand's level
  std::array<double, 5> per_fiber{};  // cost of one fiber's intersection, by skip_code
  skip_code standard_is = skip_code::standard;
};

/// Every candidate's estimated cost, the chosen one, and the per-loop detail for explain.
struct skip_choice {
  std::vector<double> cost;
  std::size_t chosen = 0;
  std::vector<loop_skip_costs> loops;
  std::vector<detail::skip_alternative> candidates;  // #0 is standard everywhere
};

namespace detail {

/// Cost of intersecting one fiber per operand (sizes n, probe facts) under policy c.
LOOM_DECL double fiber_cost(skip_code c, const std::vector<double>& n,
                            const std::vector<coiterated>& ops, double extent,
                            const skip_cost_constants& k);

template <class Tensor> std::string skip_label(const Tensor& t, std::size_t k) {
  const std::string name = t.name().empty() ? "operand #" + std::to_string(k) : t.name();
  return name + " [" + format_name<typename Tensor::format_type>() + "]";
}

// Mean stored coordinates per parent at the level of `o` (statistics of the original tensor;
// a transposed copy is estimated from its mode's distinct count and mean degrees).
LOOM_DECL double mean_fiber(const statistics& s, const coiterated& o, std::size_t order,
                            const std::vector<std::size_t>& modes_by_level);

}  // namespace detail

/// Costs every skip candidate of plan P for `lhs = rhs` (rhs already rewritten, as the
/// evaluator runs it) and picks the cheapest; ties keep the static policy.
template <class Plan, std::size_t Cap, class Lhs, class Rhs>
skip_choice choose_skip(const Lhs& lhs, const Rhs& rhs, statistics_cache& cache,
                        const skip_cost_constants& k = {}) {
  static_assert(std::is_same_v<typename detail::plan_rhs<Plan>::type, Rhs>,
                "loom internal error: choose_skip with another kernel's plan; please report");
  constexpr auto table = detail::analyse<Plan>();
  constexpr auto alts = detail::alternatives<Plan, Cap>();
  skip_choice out;
  for (std::size_t c = 0; c < alts.count; ++c) out.candidates.push_back(alts.at[c]);
  std::vector<std::string> names;
  boost::mp11::mp_for_each<typename Plan::order>(
      [&](auto idx) { names.emplace_back(decltype(idx)::name); });

  // per access ordinal: statistics, label, extents
  std::vector<const statistics*> stats(Plan::access_count, nullptr);
  std::vector<std::string> labels(Plan::access_count);
  std::vector<std::vector<std::int64_t>> extents(Plan::access_count);
  expr::for_each_access(rhs, [&](const auto& a, std::size_t ord) {
    using tensor_t = std::remove_cvref_t<decltype(*a.tensor)>;
    labels[ord] = detail::skip_label(*a.tensor, ord);
    for (std::size_t m = 0; m < tensor_t::order; ++m) extents[ord].push_back(a.tensor->extent(m));
    if constexpr (tensor_t::order > 0 && !tensor_t::format_type::all_dense)
      stats[ord] = &cache.get(*a.tensor);
  });

  bool any_loop = false;
  for (std::size_t d = 0; d < Plan::index_count; ++d) any_loop = any_loop || table.count[d] >= 2;
  loop_order_query q;
  if (any_loop) q = describe(lhs, rhs, cache);
  for (std::size_t d = 0; d < Plan::index_count; ++d) {
    if (table.count[d] < 2) continue;
    loop_skip_costs l;
    l.depth = d;
    l.index = names[d];
    l.standard_is = detail::standard_equivalent(table, d);
    if (d > 0) l.outer = q.iterations(std::vector<std::string>(names.begin(), names.begin() + d));
    std::vector<detail::coiterated> ops(table.at[d].begin(), table.at[d].begin() + table.count[d]);
    double extent = 1;
    for (const auto& o : ops) {
      l.operands.push_back(labels[o.access]);
      l.fiber.push_back(detail::mean_fiber(*stats[o.access], o, extents[o.access].size(), {}));
      extent = static_cast<double>(extents[o.access][o.mode]);
    }
    for (std::size_t c = 0; c < 5; ++c)
      l.per_fiber[c] = detail::fiber_cost(static_cast<skip_code>(c), l.fiber, ops, extent, k);
    out.loops.push_back(std::move(l));
  }
  for (std::size_t c = 0; c < alts.count; ++c) {
    double total = 0;
    for (const auto& l : out.loops) {
      const skip_code code =
          c > 0 && alts.at[c].depth == l.depth ? alts.at[c].code : skip_code::standard;
      total += l.outer * l.per_fiber[static_cast<std::size_t>(code)];
    }
    out.cost.push_back(total);
    if (total < out.cost[out.chosen]) out.chosen = c;
  }
  return out;
}

namespace detail {
// a plan_cache key of its own per order plan and candidate count (the index means another
// candidate under another count)
template <class Plan, std::size_t Cap> struct skip_purpose {};
}  // namespace detail

/// The skip candidate to run for plan P of `lhs = rhs`: cached by the coarse signature (per
/// thread, per plan), else costed from statistics. The environment variable LOOM_DEBUG_PLAN logs
/// the choice.
template <class Plan, std::size_t Cap, class Lhs, class Rhs>
std::size_t cached_skip_choice(const Lhs& lhs, const Rhs& rhs) {
  using cache_t = plan_cache<Lhs, Rhs, detail::skip_purpose<Plan, Cap>>;
  return cache_t::local().find_or(detail::coarse_signature(rhs), [&](statistics_cache& stats) {
    const skip_choice c = choose_skip<Plan, Cap>(lhs, rhs, stats);
    if (loom::debug_plan())
      loom::detail::debug_choice("loom: skip policy chosen at run time: candidate", c.chosen,
                                 c.cost);
    return c.chosen;
  });
}

namespace detail {
// "  loop j: A [csr] 1989 per fiber, x [sparse_vector] 20 per fiber; 2000 outer iterations"
LOOM_DECL void describe_loop_operands(std::ostream& s, const loop_skip_costs& l);
}  // namespace detail

// The runtime skip policy (opt-in: one kernel per plan, `skip::runtime` at every loop) ----------

/// Whether plan P has a loop where the runtime policy has something to choose: two or more
/// co-iterated operands, none random-access (there, every policy is one `mul_stream`).
template <class Plan>
inline constexpr bool has_runtime_skip_loop = [] {
  constexpr auto t = detail::analyse<Plan>();
  for (std::size_t d = 0; d < Plan::index_count; ++d)
    if (t.count[d] >= 2 && detail::standard_equivalent(t, d) == skip_code::leapfrog) return true;
  return false;
}();

/// The code of each loop from its costs: the cheapest policy where the runtime policy chooses
/// (ties keep leapfrog, the static table's choice), leapfrog elsewhere (where it is unused).
LOOM_DECL stream::skip::codes runtime_skip_codes(const skip_choice& c);

namespace detail {
template <class Plan> struct runtime_skip_purpose {};

// Two bits per loop: the plan cache stores one integer per choice.
LOOM_DECL std::size_t pack_codes(const stream::skip::codes& c);
LOOM_DECL stream::skip::codes unpack_codes(std::size_t v);
/// LOOM_DEBUG_PLAN's line for the codes of the first `loops` loops.
LOOM_DECL void debug_skip_codes(const stream::skip::codes& codes, std::size_t loops);
}  // namespace detail

/// The codes that plan P's `skip::runtime` intersections run with for `lhs = rhs`: cached by
/// the coarse signature (per thread, per plan), else costed from statistics. LOOM_DEBUG_PLAN
/// logs the choice.
template <class Plan, class Lhs, class Rhs>
stream::skip::codes cached_runtime_skips(const Lhs& lhs, const Rhs& rhs) {
  using cache_t = plan_cache<Lhs, Rhs, detail::runtime_skip_purpose<Plan>>;
  return detail::unpack_codes(
      cache_t::local().find_or(detail::coarse_signature(rhs), [&](statistics_cache& stats) {
        const stream::skip::codes codes = runtime_skip_codes(choose_skip<Plan, 1>(lhs, rhs, stats));
        if (loom::debug_plan()) detail::debug_skip_codes(codes, Plan::index_count);
        return detail::pack_codes(codes);
      }));
}

/// The runtime policy's choice in words: each loop where it chooses, its operands' mean fiber
/// sizes, the estimated cost of each policy and the one chosen (*).
LOOM_DECL std::string describe_runtime_skips(const skip_choice& c);

/// The per-loop table of a skip choice in words: each loop with two or more co-iterated
/// operands, their mean fiber sizes, every policy's estimated cost (instantiated or not), and
/// the chosen candidate.
LOOM_DECL std::string describe_skip_choice(const skip_choice& c, std::size_t cap);

#if LOOM_HEADER_ONLY
namespace detail {

LOOM_DEF double fiber_cost(skip_code c, const std::vector<double>& n,
                           const std::vector<coiterated>& ops, double extent,
                           const skip_cost_constants& k) {
  const std::size_t m = n.size();
  auto gallop = [&](double target, double over) {  // seeks into `target` entries, `over` times
    return over * k.seek * (1 + std::log2(1 + target / std::max(over, 1.0)));
  };
  auto step_cost = [&](std::size_t o) {
    return n[o] * k.step + (ops[o].scans ? extent * k.bitmap_word : 0.0);
  };
  auto lead = [&](std::size_t leader) {
    double cost = step_cost(leader);
    for (std::size_t o = 0; o < m; ++o) {
      if (o == leader) continue;
      if (ops[o].locatable)
        cost += n[leader] * (ops[o].scans ? k.other_locate : k.hashed_locate);
      else
        cost += gallop(n[o], n[leader]);
    }
    return cost;
  };
  double lo = n[0];
  for (double x : n) lo = std::min(lo, x);
  switch (c) {
    case skip_code::merge: {
      double s = 0;
      for (std::size_t o = 0; o < m; ++o) s += step_cost(o);
      return s;
    }
    case skip_code::leapfrog: {  // every operand seeks about once per entry of the smallest
      double s = 0;
      for (std::size_t o = 0; o < m; ++o) s += gallop(n[o], lo);
      return s;
    }
    case skip_code::lead_first:
      return lead(0);
    case skip_code::lead_last:
      return lead(m - 1);
    default: {  // the static table: the first non-locatable operand leads, the rest probe
      bool any = false;
      for (const auto& o : ops) any = any || o.locatable;
      if (!any) return fiber_cost(skip_code::leapfrog, n, ops, extent, k);
      std::size_t leader = 0;
      while (leader < m && ops[leader].locatable) ++leader;
      return lead(leader == m ? 0 : leader);
    }
  }
}

LOOM_DEF double mean_fiber(const statistics& s, const coiterated& o, std::size_t order,
                           const std::vector<std::size_t>& modes_by_level) {
  if (s.nnz == 0) return 0;
  if (!o.transposed) {
    const double here = static_cast<double>(s.nonempty_fibers[o.level]);
    const double above = o.level == 0 ? 1.0 : static_cast<double>(s.nonempty_fibers[o.level - 1]);
    return above > 0 ? here / above : 0;
  }
  if (o.level == 0) return static_cast<double>(s.distinct[o.mode]);
  (void)order, (void)modes_by_level;
  // order 2: the entries per coordinate of the other mode; higher orders: the same, roughly
  double other = 1;
  for (std::size_t m = 0; m < s.distinct.size(); ++m)
    if (m != o.mode) other = std::max(other, static_cast<double>(s.distinct[m]));
  return static_cast<double>(s.nnz) / other;
}

LOOM_DEF void describe_loop_operands(std::ostream& s, const loop_skip_costs& l) {
  s << "  loop " << l.index << ":";
  for (std::size_t o = 0; o < l.operands.size(); ++o)
    s << (o ? "," : "") << " " << l.operands[o] << " "
      << static_cast<std::int64_t>(l.fiber[o] + 0.5) << " per fiber";
  s << "; " << static_cast<std::int64_t>(l.outer + 0.5) << " outer iterations\n";
}

LOOM_DEF std::size_t pack_codes(const stream::skip::codes& c) {
  std::uint64_t v = 0;
  for (std::size_t d = 0; d < c.size(); ++d)
    v |= std::uint64_t{static_cast<std::uint8_t>(c[d]) & 3u} << (2 * d);
  return static_cast<std::size_t>(v);
}

LOOM_DEF stream::skip::codes unpack_codes(std::size_t v) {
  stream::skip::codes c{};
  for (std::size_t d = 0; d < c.size(); ++d) c[d] = static_cast<skip_code>((v >> (2 * d)) & 3u);
  return c;
}

LOOM_DEF void debug_skip_codes(const stream::skip::codes& codes, std::size_t loops) {
  std::string line = "loom: skip policy chosen at run time:";
  for (std::size_t d = 0; d < loops; ++d) (line += ' ') += skip_code_name(codes[d]);
  loom::detail::debug_line({line, " (by loop)"});
}

}  // namespace detail

LOOM_DEF stream::skip::codes runtime_skip_codes(const skip_choice& c) {
  stream::skip::codes codes = stream::skip::default_codes;
  for (const auto& l : c.loops) {
    if (l.standard_is != skip_code::leapfrog) continue;  // depth < max_indices <= max_loops
    skip_code best = skip_code::leapfrog;
    for (skip_code code : {skip_code::merge, skip_code::lead_first, skip_code::lead_last})
      if (l.per_fiber[static_cast<std::size_t>(code)] < l.per_fiber[static_cast<std::size_t>(best)])
        best = code;
    codes[l.depth] = best;
  }
  return codes;
}

LOOM_DEF std::string describe_runtime_skips(const skip_choice& c) {
  std::ostringstream s;
  const stream::skip::codes codes = runtime_skip_codes(c);
  bool any = false;
  for (const auto& l : c.loops) {
    if (l.standard_is != skip_code::leapfrog) continue;
    if (!any) s << "skip policy per loop (chosen at run time from statistics, one kernel):\n";
    any = true;
    detail::describe_loop_operands(s, l);
    for (skip_code code :
         {skip_code::leapfrog, skip_code::merge, skip_code::lead_first, skip_code::lead_last}) {
      s << "    " << (codes[l.depth] == code ? "* " : "  ") << skip_code_name(code);
      if (code == skip_code::lead_first) s << " (" << l.operands.front() << " iterates)";
      if (code == skip_code::lead_last) s << " (" << l.operands.back() << " iterates)";
      s << ": estimated cost "
        << static_cast<std::int64_t>(l.outer * l.per_fiber[static_cast<std::size_t>(code)] + 0.5)
        << "\n";
    }
  }
  return s.str();
}

LOOM_DEF std::string describe_skip_choice(const skip_choice& c, std::size_t cap) {
  std::ostringstream s;
  if (c.loops.empty()) {
    s << "skip policy: no loop co-iterates two or more sparse operands (nothing to choose)\n";
    return s.str();
  }
  s << "skip policy per loop (" << c.candidates.size() << " candidates instantiated, at most "
    << cap << "; loom::opt::skip_candidates<N>):\n";
  for (const auto& l : c.loops) {
    detail::describe_loop_operands(s, l);
    for (skip_code code : {skip_code::standard, skip_code::leapfrog, skip_code::merge,
                           skip_code::lead_first, skip_code::lead_last}) {
      std::ptrdiff_t cand = -1;
      if (code == skip_code::standard) cand = 0;
      for (std::size_t k = 1; k < c.candidates.size(); ++k)
        if (c.candidates[k].depth == l.depth && c.candidates[k].code == code)
          cand = static_cast<std::ptrdiff_t>(k);
      const bool chosen = cand >= 0 && static_cast<std::size_t>(cand) == c.chosen;
      s << "    " << (chosen ? "* " : "  ") << skip_code_name(code);
      if (code == skip_code::standard && l.standard_is != skip_code::standard)
        s << " (= " << skip_code_name(l.standard_is) << ")";
      if (code == skip_code::lead_first) s << " (" << l.operands.front() << " iterates)";
      if (code == skip_code::lead_last) s << " (" << l.operands.back() << " iterates)";
      s << ": estimated cost "
        << static_cast<std::int64_t>(l.outer * l.per_fiber[static_cast<std::size_t>(code)] + 0.5);
      if (cand < 0)
        s << (code == l.standard_is ? " (same as standard)" : " (not instantiated)");
      else
        s << " (candidate #" << cand << ")";
      s << "\n";
    }
  }
  s << "chosen: skip candidate #" << c.chosen;
  if (c.chosen == 0) s << " (standard at every loop)";
  for (const auto& l : c.loops)
    if (c.chosen > 0 && l.depth == c.candidates[c.chosen].depth)
      s << " (" << skip_code_name(c.candidates[c.chosen].code) << " at loop " << l.index << ")";
  s << "\n";
  return s.str();
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_SKIP_CHOICE_HPP
