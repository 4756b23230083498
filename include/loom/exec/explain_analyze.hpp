// Defines loom::explain_analyze and loom::explain_analyze_json: runs an assignment and reports
// each kernel's decision next to what it measured (time per phase, threads, estimated and actual
// output entries, the runner-up's cost), as PostgreSQL's and DuckDB's EXPLAIN ANALYZE do (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_EXPLAIN_ANALYZE_HPP
#define LOOM_EXEC_EXPLAIN_ANALYZE_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/clock.hpp>
#include <loom/core/config.hpp>
#include <loom/core/plan_log.hpp>
#include <loom/exec/decompose.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/explain.hpp>
#include <loom/exec/options.hpp>
#include <loom/parallel/settings.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace loom {

/// An assignment run under explain_analyze: the plan as explain() gave it before the run, then
/// one report per kernel the run executed (a hoisted sum, a decomposition's steps and an
/// aggregate each are kernels of their own), in the order they started.
struct analysis {
  std::string kernel;                  // the assignment in index notation
  std::string plan;                    // loom::explain's text, before the run
  std::vector<kernel_report> kernels;  // what each kernel decided and measured
  double seconds = 0;                  // the whole assignment, wall clock
  unsigned threads = 1;                // loom::num_threads() during the run

  /// The plan, then the measured figures per kernel.
  LOOM_DECL std::string text() const;
  /// The same as one JSON object: {"kernel", "plan", "seconds", "threads", "kernels": [...]}.
  LOOM_DECL std::string json() const;
};

namespace detail {
template <class Lhs, class R, class O> analysis analyze(Lhs lhs, const R& rhs, const O& opts) {
  analysis a;
  a.kernel = assignment_text(lhs, expr::as_expr(rhs));
  a.plan = loom::explain(lhs, rhs, opts);
  a.threads = static_cast<unsigned>(loom::num_threads());
  std::vector<kernel_report>* const outer = collected_reports;
  collected_reports = &a.kernels;
  const std::int64_t t0 = detail::monotonic_ns();
  try {
    loom::assign(lhs, rhs, opts);
  } catch (...) {
    collected_reports = outer;
    throw;
  }
  a.seconds = seconds_since(t0);
  collected_reports = outer;
  if (outer != nullptr) append_range(*outer, a.kernels);
  return a;
}
}  // namespace detail

/// Runs `lhs = rhs` under `opts` (as loom::assign does: the output is written) and returns the
/// plan with each kernel's measured figures:
/// `std::puts(loom::explain_analyze(y(i), loom::sum(j, A(i, j) * x(j))).c_str());`
template <class OT, class... Os, class R, options_type O = default_options>
std::string explain_analyze(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  return detail::analyze(lhs, rhs, opts).text();
}

/// explain_analyze's figures as JSON, for tools.
template <class OT, class... Os, class R, options_type O = default_options>
std::string explain_analyze_json(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  return detail::analyze(lhs, rhs, opts).json();
}

/// The figures themselves, for a program that reads them.
template <class OT, class... Os, class R, options_type O = default_options>
analysis analyze(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  return detail::analyze(lhs, rhs, opts);
}

}  // namespace loom

#if LOOM_HEADER_ONLY
#  include <cstdio>

namespace loom {

namespace detail {
inline std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}
inline std::string cost_text(double cost) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", cost);
  return text;
}
}  // namespace detail

LOOM_DEF std::string analysis::text() const {
  using detail::milliseconds;
  std::string s =
      "explain analyze: " + kernel + "\n" + plan + "measured: " + std::to_string(kernels.size()) +
      (kernels.size() == 1 ? " kernel" : " kernels") + " in " + milliseconds(seconds) + ", " +
      std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " available\n";
  double in_kernels = 0;
  for (const kernel_report& r : kernels)
    if (r.depth == 0) in_kernels += r.decide_seconds + r.kernel_seconds + r.assembly_seconds;
  if (seconds - in_kernels > 0.05 * seconds && kernels.size() > 0)
    s += "  outside the kernels (planning a decomposition or aggregate, temporaries): " +
         milliseconds(seconds - in_kernels) + "\n";
  std::size_t n = 0;
  for (const kernel_report& r : kernels) {
    const std::string pad(2 + 2 * r.depth, ' ');
    s += pad + "kernel " + std::to_string(++n) + ": " + r.kernel + "\n";
    if (r.hoisted) {
      s += pad + "  a sum computed first into a temporary (the kernels below): decide " +
           milliseconds(r.decide_seconds) + ", all kernels " + milliseconds(r.kernel_seconds) +
           "\n";
      continue;
    }
    s += pad + "  plan: candidate " + std::to_string(r.candidate) + " of " +
         std::to_string(r.candidates) + ", loops " + r.loop_order;
    if (r.candidates > 1 && !r.candidate_costs.empty())
      s += ", estimated cost " + detail::cost_text(r.candidate_costs[r.candidate]) +
           " (runner-up " + detail::cost_text(r.runner_up_cost()) + ")";
    s += r.cache_hit ? ", remembered\n" : "\n";
    s += pad + "  skip policy: " + r.skip_policy + "; output: " + r.output_format +
         (r.accumulate ? ", +=" : "") + (r.aliased ? ", into a copy (an operand reads it)" : "") +
         "\n";
    s += pad + "  time: decide " + milliseconds(r.decide_seconds) + ", kernel " +
         milliseconds(r.kernel_seconds);
    if (r.actual_entries >= 0) s += ", assembly " + milliseconds(r.assembly_seconds);
    s += "; " + std::to_string(r.threads) + (r.threads == 1 ? " thread\n" : " threads\n");
    if (r.actual_entries >= 0) {
      s += pad + "  output entries: estimated " + std::to_string(r.estimated_entries) +
           ", actual " + std::to_string(r.actual_entries);
      if (r.actual_entries > 0 && r.estimated_entries >= 0)
        s += " (estimate / actual " +
             detail::cost_text(static_cast<double>(r.estimated_entries) /
                               static_cast<double>(r.actual_entries)) +
             ")";
      s += "\n";
    }
    if (counts_work)
      s += pad + "  work: " + std::to_string(r.work.steps) + " steps, " +
           std::to_string(r.work.seeks) + " seeks, " + std::to_string(r.work.probes) + " probes, " +
           std::to_string(r.work.writes) + " writes\n";
  }
  return s;
}

LOOM_DEF std::string analysis::json() const {
  char seconds_text[32];
  std::snprintf(seconds_text, sizeof seconds_text, "%.6g", seconds);
  std::string s = "{\"kernel\":\"" + detail::json_escaped(kernel) + "\",\"plan\":\"" +
                  detail::json_escaped(plan) + "\",\"seconds\":" + seconds_text +
                  ",\"threads\":" + std::to_string(threads) + ",\"kernels\":[";
  for (std::size_t k = 0; k < kernels.size(); ++k) s += (k ? "," : "") + to_json(kernels[k]);
  return s + "]}";
}

}  // namespace loom
#endif  // LOOM_HEADER_ONLY

#endif  // LOOM_EXEC_EXPLAIN_ANALYZE_HPP
