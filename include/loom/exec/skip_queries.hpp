// Defines loom::plan_skip and plan_runtime_skips (exec/): what `loom::assign` would choose
// under `opt::skip_candidates<Cap>` or `opt::runtime_skips`, as data for tests and tools.
// Running and explaining go through loom::assign and loom::explain with those options.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_SKIP_QUERIES_HPP
#define LOOM_EXEC_SKIP_QUERIES_HPP

#include <loom/exec/decision.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/optimize/choice/skip_choice.hpp>
#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/stream/skip.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace loom {

namespace detail {

// f(plan, kernel) with the plan loom::assign would run `lhs = rhs_operand` with.
template <class Lhs, class R, class F>
void with_skip_kernel(const Lhs& lhs, const R& rhs_operand, F&& f) {
  const auto written = expr::as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto rhs = rewrite::for_kernel(written).expr;  // as the evaluator runs it
    decide_fused(lhs, rhs, std::false_type{}, default_options{}).with_plan([&](auto p) {
      f(typename decltype(p)::type{}, rhs);
    });
  }
}

}  // namespace detail

/// The codes `loom::assign(lhs, rhs, loom::options<loom::opt::runtime_skips>{})` runs with
/// (uncached).
template <class OT, class... Os, class R>
stream::skip::codes plan_runtime_skips(const expr::access<OT, Os...>& lhs, const R& rhs) {
  stream::skip::codes out = stream::skip::default_codes;
  detail::with_skip_kernel(lhs, rhs, [&](auto p, const auto& kern) {
    statistics_cache stats;
    out = optimize::runtime_skip_codes(optimize::choose_skip<decltype(p), 1>(lhs, kern, stats));
  });
  return out;
}

/// The skip choice of `loom::assign(lhs, rhs, loom::options<loom::opt::skip_candidates<Cap>>{})`
/// (every candidate's cost and the per-loop detail), uncached.
template <std::size_t Cap = limits::skip_candidates, class OT, class... Os, class R>
optimize::skip_choice plan_skip(const expr::access<OT, Os...>& lhs, const R& rhs) {
  optimize::skip_choice out;
  detail::with_skip_kernel(lhs, rhs, [&](auto p, const auto& kern) {
    statistics_cache stats;
    out = optimize::choose_skip<decltype(p), Cap>(lhs, kern, stats);
  });
  return out;
}

}  // namespace loom

#endif  // LOOM_EXEC_SKIP_QUERIES_HPP
