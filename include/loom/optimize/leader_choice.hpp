// Defines the runtime choice of the skip policy per loop (optimize/): which operand of each
// intersection leads and how the others catch up (leapfrog, merge, lead first / last), among the
// variants instantiated at compile time, costed from statistics after Galley's physical model
// (notes 001 §4.4), cached by a coarse signature, and explained.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_LEADER_CHOICE_HPP
#define LOOM_OPTIMIZE_LEADER_CHOICE_HPP

#include <loom/core/config.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/format_name.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/optimize/statistics_cache.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::optimize {

/// Per-entry costs of co-iterating one fiber (Galley's constants, notes 001 §4.1, as ratios:
/// a sequential step is the unit; a galloping seek over a gap g costs `seek * (1 + log2(1+g))`).
struct skip_cost_constants {
  double step = 1.0;  // advance one stored entry
  double seek = 1.0;  // per comparison level of a galloping search
  double hashed_locate = 2.0;
  double other_locate = 1.0;      // bitmap bit test, banded range check
  double bitmap_word = 1.0 / 64;  // a bitmap leader scans its extent a word at a time
};

/// Policy codes in candidate order (`standard` is the combinators' static table); the same codes
/// that a `skip::runtime` intersection reads from its kernel's context.
using skip_code = stream::skip::code;

inline const char* skip_code_name(skip_code c) {
  switch (c) {
    case skip_code::leapfrog:
      return "leapfrog";
    case skip_code::merge:
      return "merge";
    case skip_code::lead_first:
      return "lead first";
    case skip_code::lead_last:
      return "lead last";
    default:
      return "standard";
  }
}

namespace detail {

inline constexpr std::size_t max_coiterated = 8;  // operands per loop the analysis keeps

/// One operand that an intersection at a loop iterates or probes (not a full level: those are
/// always located).
struct coiterated {
  std::size_t access = 0;  // ordinal in accesses_t (the lowering's numbering)
  std::size_t mode = 0;    // the tensor's mode for the loop's index
  std::size_t level = 0;   // storage level of that mode in the tensor the kernel reads
  bool locatable = false;  // hashed, bitmap, banded: O(1) probe
  bool scans = false;      // bitmap: iteration scans the extent a word at a time
  bool transposed = false;
};

template <std::size_t Depths> struct loop_table {
  std::array<std::array<coiterated, max_coiterated>, Depths> at{};
  std::array<std::size_t, Depths> count{};
};

template <class E>
inline constexpr std::size_t access_count_v = boost::mp11::mp_size<expr::accesses_t<E>>::value;

// The accesses reached from the root through products only (sum and expand are transparent):
// the factors that the kernel's mul_op intersects, by ordinal. Operands under +, map or where
// are co-iterated by other streams and are not costed here.
template <class E, std::size_t K> struct factors {
  using type = boost::mp11::mp_list<>;
};
template <class T, class... Is, std::size_t K> struct factors<expr::access<T, Is...>, K> {
  using type = boost::mp11::mp_list<boost::mp11::mp_size_t<K>>;
};
template <class L, class R, std::size_t K> struct factors<expr::mul<L, R>, K> {
  using type = boost::mp11::mp_append<typename factors<L, K>::type,
                                      typename factors<R, K + access_count_v<L>>::type>;
};
template <class I, class E, std::size_t K> struct factors<expr::sum<I, E>, K> : factors<E, K> {};
template <class I, class E, std::size_t K> struct factors<expr::expand<I, E>, K> : factors<E, K> {};

template <class Plan, class A> struct access_info;
template <class Plan, class T, class... Is> struct access_info<Plan, expr::access<T, Is...>> {
  using format = typename std::remove_const_t<T>::format_type;
  static constexpr std::size_t order = sizeof...(Is);
  static constexpr std::array<std::size_t, sizeof...(Is)> depth_of_mode{
      boost::mp11::mp_find<typename Plan::order, Is>::value...};
};

template <class Plan> struct plan_rhs;
template <class Lhs, class Rhs, int C, class F> struct plan_rhs<plan::order_plan<Lhs, Rhs, C, F>> {
  using type = Rhs;
};

/// The co-iterated operands of every loop of plan P.
template <class Plan> constexpr auto analyse() {
  using rhs = typename plan_rhs<Plan>::type;
  loop_table<Plan::index_count> t{};
  boost::mp11::mp_for_each<typename factors<rhs, 0>::type>([&](auto k) {
    constexpr std::size_t K = decltype(k)::value;
    using A = boost::mp11::mp_at_c<typename Plan::accesses, K>;
    using info = access_info<Plan, A>;
    using F = typename info::format;
    if constexpr (info::order > 0 && !F::all_dense) {
      constexpr bool transposed = Plan::chosen.transposed[K];
      // the copy stores modes by depth, in the levels plan/transposed_format.hpp gives it
      using read = std::conditional_t<transposed, plan::transposed_format<typename Plan::order, A>,
                                      std::type_identity<F>>;
      for (std::size_t m = 0; m < info::order; ++m) {
        std::size_t level = F::level_of_mode[m];
        if (transposed) {
          level = 0;
          for (std::size_t o = 0; o < info::order; ++o)
            if (info::depth_of_mode[o] < info::depth_of_mode[m]) ++level;
        }
        const level_properties p = read::type::properties[level];
        if (p.full) continue;
        const std::size_t d = info::depth_of_mode[m];
        if (t.count[d] == max_coiterated) continue;
        t.at[d][t.count[d]++] =
            coiterated{K, m, level, p.random_access, p.random_access && p.padded, transposed};
      }
    }
  });
  return t;
}

/// What the static table of combinators.hpp does at a loop, as a code (`standard` when it
/// mixes policies, i.e. more than two operands with a random-access one).
template <std::size_t Depths>
constexpr skip_code standard_equivalent(const loop_table<Depths>& t, std::size_t d) {
  const std::size_t n = t.count[d];
  bool any = false;
  for (std::size_t o = 0; o < n; ++o) any = any || t.at[d][o].locatable;
  if (!any) return skip_code::leapfrog;
  if (n == 2) return t.at[d][1].locatable ? skip_code::lead_first : skip_code::lead_last;
  return skip_code::standard;
}

struct skip_alternative {
  std::size_t depth = 0;
  skip_code code = skip_code::standard;
};

template <std::size_t Depths> struct alternative_list {
  std::array<skip_alternative, 4 * Depths + 1> at{};
  std::size_t count = 0;  // including #0, the static policy
};

/// #0 the static policy; then, loop by loop (outermost first) wherever two or more operands
/// are co-iterated, each other policy at that loop alone; cut at Cap.
template <class Plan, std::size_t Cap> constexpr auto alternatives() {
  constexpr auto t = analyse<Plan>();
  alternative_list<Plan::index_count> l{};
  l.count = 1;
  for (std::size_t d = 0; d < Plan::index_count; ++d) {
    if (t.count[d] < 2) continue;
    const skip_code same = standard_equivalent(t, d);
    for (skip_code c :
         {skip_code::merge, skip_code::lead_first, skip_code::lead_last, skip_code::leapfrog}) {
      if (c == same || l.count >= Cap) continue;
      l.at[l.count++] = {d, c};
    }
  }
  return l;
}

template <skip_code C> struct policy_type;
template <> struct policy_type<skip_code::leapfrog> {
  using type = stream::skip::leapfrog;
};
template <> struct policy_type<skip_code::merge> {
  using type = stream::skip::merge;
};
template <> struct policy_type<skip_code::lead_first> {
  using type = stream::skip::lead<0>;
};
template <> struct policy_type<skip_code::lead_last> {
  using type = stream::skip::lead<1>;
};

template <class Plan, std::size_t Cap> struct candidate_at {
  template <class C> struct fn {
    static constexpr auto alt = alternatives<Plan, Cap>().at[C::value];
    using type = boost::mp11::mp_push_back<
        boost::mp11::mp_rename<
            boost::mp11::mp_repeat_c<boost::mp11::mp_list<stream::skip::standard>, alt.depth>,
            stream::skip::per_loop>,
        typename policy_type<alt.code>::type>;
  };
  template <class C> using f = typename fn<C>::type;
};

template <class Plan, std::size_t Cap> struct skip_candidates_impl {
  static constexpr std::size_t count = alternatives<Plan, Cap>().count;
  using type = boost::mp11::mp_push_front<
      boost::mp11::mp_transform_q<boost::mp11::mp_quote<candidate_at<Plan, Cap>::template f>,
                                  boost::mp11::mp_drop_c<boost::mp11::mp_iota_c<count>, 1>>,
      stream::skip::per_loop<>>;
};

}  // namespace detail

/// The skip-policy variants instantiated for plan P (a `loom::plan::order_plan`): #0 the static
/// policy (`per_loop<>`), then one other policy at one loop each, at most Cap in all.
template <class Plan, std::size_t Cap>
using skip_candidates_t = typename detail::skip_candidates_impl<Plan, Cap>::type;

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
inline double fiber_cost(skip_code c, const std::vector<double>& n,
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
    double c = step_cost(leader);
    for (std::size_t o = 0; o < m; ++o) {
      if (o == leader) continue;
      if (ops[o].locatable)
        c += n[leader] * (ops[o].scans ? k.other_locate : k.hashed_locate);
      else
        c += gallop(n[o], n[leader]);
    }
    return c;
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

template <class Tensor> std::string skip_label(const Tensor& t, std::size_t k) {
  const std::string name = t.name().empty() ? "operand #" + std::to_string(k) : t.name();
  return name + " [" + format_name<typename Tensor::format_type>() + "]";
}

// Mean stored coordinates per parent at the level of `o` (statistics of the original tensor;
// a transposed copy is estimated from its mode's distinct count and mean degrees).
inline double mean_fiber(const statistics& s, const coiterated& o, std::size_t order,
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
      [&](auto i) { names.emplace_back(decltype(i)::name); });

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
/// thread, per plan), else costed from statistics. The environment variable LOOM_DEBUG_PLAN logs the choice.
template <class Plan, std::size_t Cap, class Lhs, class Rhs>
std::size_t cached_skip_choice(const Lhs& lhs, const Rhs& rhs) {
  using cache_t = plan_cache<Lhs, Rhs, detail::skip_purpose<Plan, Cap>>;
  return cache_t::local().find_or(detail::coarse_signature(rhs), [&](statistics_cache& stats) {
    const skip_choice c = choose_skip<Plan, Cap>(lhs, rhs, stats);
    if (loom::debug_plan()) {
      std::clog << "loom: skip policy chosen at run time: candidate " << c.chosen << " of "
                << c.cost.size() << " (estimated costs:";
      for (double x : c.cost) std::clog << " " << x;
      std::clog << ")\n";
    }
    return c.chosen;
  });
}

namespace detail {
// "  loop j: A [csr] 1989 per fiber, x [sparse_vector] 20 per fiber; 2000 outer iterations"
inline void describe_loop_operands(std::ostream& s, const loop_skip_costs& l) {
  s << "  loop " << l.index << ":";
  for (std::size_t o = 0; o < l.operands.size(); ++o)
    s << (o ? "," : "") << " " << l.operands[o] << " "
      << static_cast<std::int64_t>(l.fiber[o] + 0.5) << " per fiber";
  s << "; " << static_cast<std::int64_t>(l.outer + 0.5) << " outer iterations\n";
}
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
inline stream::skip::codes runtime_skip_codes(const skip_choice& c) {
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

namespace detail {
template <class Plan> struct runtime_skip_purpose {};

// Two bits per loop: the plan cache stores one integer per choice.
inline std::size_t pack_codes(const stream::skip::codes& c) {
  std::uint64_t v = 0;
  for (std::size_t d = 0; d < c.size(); ++d)
    v |= std::uint64_t{static_cast<std::uint8_t>(c[d]) & 3u} << (2 * d);
  return static_cast<std::size_t>(v);
}
inline stream::skip::codes unpack_codes(std::size_t v) {
  stream::skip::codes c{};
  for (std::size_t d = 0; d < c.size(); ++d) c[d] = static_cast<skip_code>((v >> (2 * d)) & 3u);
  return c;
}
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
        if (loom::debug_plan()) {
          std::clog << "loom: skip policy chosen at run time:";
          for (std::size_t d = 0; d < Plan::index_count; ++d)
            std::clog << " " << skip_code_name(codes[d]);
          std::clog << " (by loop)\n";
        }
        return detail::pack_codes(codes);
      }));
}

/// The runtime policy's choice in words: each loop where it chooses, its operands' mean fiber
/// sizes, the estimated cost of each policy and the one chosen (*).
inline std::string describe_runtime_skips(const skip_choice& c) {
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

/// The per-loop table of a skip choice in words: each loop with two or more co-iterated
/// operands, their mean fiber sizes, every policy's estimated cost (instantiated or not), and
/// the chosen candidate.
inline std::string describe_skip_choice(const skip_choice& c, std::size_t cap) {
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

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_LEADER_CHOICE_HPP
