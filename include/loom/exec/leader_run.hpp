// Defines the explicit entry points of the skip-policy choice (optimize/): run a kernel with a
// fixed policy per loop, or with the policy chosen at run time among Cap candidates, and explain
// the choice. They work whatever LOOM_MAX_SKIP_CANDIDATES says (that macro only governs the
// plain `out(...) = e`).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_LEADER_RUN_HPP
#define LOOM_EXEC_LEADER_RUN_HPP

#include <loom/exec/evaluate.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/optimize/leader_choice.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace loom::optimize {

/// How many skip candidates the explicit entry points instantiate by default.
inline constexpr std::size_t default_skip_cap = 4;

namespace detail {

// Calls f(plan) with the order plan the evaluator would run for `lhs = rhs` (rhs rewritten).
template <class Lhs, class Rhs, class F>
void with_order_plan(const Lhs& lhs, const Rhs& rhs, F&& f) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {
    boost::mp11::mp_with_index<n>(cached_choice(lhs, rhs), [&](auto c) {
      f(plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>{});
    });
  } else {
    f(plan::order_plan<Lhs, Rhs>{});
  }
}

template <class Lhs, class R, class F>
void with_kernel(const Lhs& lhs, const R& rhs_operand, F&& f) {
  const auto written = expr::as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto rhs = rewrite::for_kernel(written).expr;  // as the evaluator runs it
    with_order_plan(lhs, rhs, [&](auto p) { f(p, rhs); });
  }
}

}  // namespace detail

/// Runs `lhs = rhs` with the skip policies `Skips` (a `loom::stream::skip::per_loop<...>`), e.g.
/// `assign_with_skip<per_loop<skip::lead<1>>>(z(), sum(i, x(i) * y(i)))`. For comparisons and
/// tests: no hoisting of inner sums, and the output must not be an operand.
template <class Skips, class OT, class... Os, class R>
void assign_with_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    loom::detail::execute_plan<decltype(p), Skips>(*lhs.tensor, lhs, k, false);
  });
}

/// Runs `lhs = rhs` as one kernel whose intersections of ordered operands read their policy
/// from `codes` (one per loop, outermost first: `skip::runtime`), e.g. to force merge at the
/// second loop.
template <class OT, class... Os, class R>
void assign_with_runtime_skips(const stream::skip::codes& codes, const expr::access<OT, Os...>& lhs,
                               const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    loom::detail::execute_plan<decltype(p), stream::skip::every_loop<stream::skip::runtime>>(
        *lhs.tensor, lhs, k, false, codes);
  });
}

/// Runs `lhs = rhs` as one `skip::runtime` kernel with the codes chosen from statistics (cached
/// per kernel by the coarse signature): the one-kernel alternative to assign_choosing_skip, at a
/// per-step cost (benchmarks/results/leader.md).
template <class OT, class... Os, class R>
void assign_choosing_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    using P = decltype(p);
    loom::detail::execute_plan<P, stream::skip::every_loop<stream::skip::runtime>>(
        *lhs.tensor, lhs, k, false, cached_runtime_skips<P>(lhs, k));
  });
}

/// The codes assign_choosing_runtime_skips runs `lhs = rhs` with (uncached).
template <class OT, class... Os, class R>
stream::skip::codes plan_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  stream::skip::codes out = stream::skip::default_codes;
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    statistics_cache stats;
    out = runtime_skip_codes(choose_skip<decltype(p), 1>(lhs, k, stats));
  });
  return out;
}

/// The runtime codes' table of `lhs = rhs` in words (see describe_runtime_skips).
template <class OT, class... Os, class R>
std::string explain_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  std::string out;
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    statistics_cache stats;
    out = describe_runtime_skips(choose_skip<decltype(p), 1>(lhs, k, stats));
  });
  return out;
}

/// Runs skip candidate `c` (of `skip_candidates_t<plan, Cap>`; clamped) of `lhs = rhs`.
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
void assign_with_skip_candidate(std::size_t c, const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    using P = decltype(p);
    using candidates = skip_candidates_t<P, Cap>;
    constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
    boost::mp11::mp_with_index<n>(c < n ? c : n - 1, [&](auto s) {
      loom::detail::execute_plan<P, boost::mp11::mp_at_c<candidates, decltype(s)::value>>(
          *lhs.tensor, lhs, k, false);
    });
  });
}

/// Runs `lhs = rhs` with the skip policy chosen at run time among at most Cap candidates
/// (cached per kernel by the coarse statistics signature).
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
void assign_choosing_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    using P = decltype(p);
    using candidates = skip_candidates_t<P, Cap>;
    constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
    const std::size_t chosen = n > 1 ? cached_skip_choice<P, Cap>(lhs, k) : 0;
    boost::mp11::mp_with_index<n>(chosen, [&](auto s) {
      loom::detail::execute_plan<P, boost::mp11::mp_at_c<candidates, decltype(s)::value>>(
          *lhs.tensor, lhs, k, false);
    });
  });
}

/// The skip choice for `lhs = rhs` (every candidate's cost and the per-loop detail), uncached.
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
skip_choice plan_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  skip_choice out;
  detail::with_kernel(lhs, rhs, [&](auto p, const auto& k) {
    statistics_cache stats;
    out = choose_skip<decltype(p), Cap>(lhs, k, stats);
  });
  return out;
}

/// The per-loop skip-policy table of `lhs = rhs` in words (see describe_skip_choice).
template <std::size_t Cap = default_skip_cap, class OT, class... Os, class R>
std::string explain_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  return describe_skip_choice(plan_skip<Cap>(lhs, rhs), Cap);
}

}  // namespace loom::optimize

#endif  // LOOM_EXEC_LEADER_RUN_HPP
