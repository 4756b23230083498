// Defines loom::kernel_report and loom::set_plan_log: what one kernel decided and measured when it
// ran (the plan chosen, the estimates, time per phase, threads), handed to a user's callback, to
// loom::explain_analyze and to the LOOM_DEBUG_PLAN log. Off by default: a kernel then reads one
// flag and builds no report (core vocabulary: no template, no kernel type).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_PLAN_LOG_HPP
#define LOOM_CORE_PLAN_LOG_HPP

#include <loom/core/clock.hpp>
#include <loom/core/config.hpp>
#include <loom/core/work_counters.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace loom {

/// One kernel run: the decision it ran and what it measured.
struct kernel_report {
  std::string kernel;         // the kernel in index notation, "y(i) = sum(j, A(i,j) * x(j))"
  std::string loop_order;     // the loops, outermost first: "i,j"
  std::size_t candidate = 0;  // the plan run, among `candidates` instantiated
  std::size_t candidates = 1;
  std::vector<double> candidate_costs;  // the cost model's estimate per candidate (none: one)
  bool cache_hit = false;               // the plan choice among candidates was remembered
  std::string skip_policy;              // how intersections co-iterate: "static table", ...
  bool accumulate = false;              // `+=`
  bool hoisted = false;                 // a sum was computed first, into a temporary
  bool aliased = false;                 // an operand reads the output: written into a copy
  std::string output_format;            // "csr", "dense_vector", ...
  std::int64_t estimated_entries = -1;  // a sparse output's entries as estimated (reserved)
  std::int64_t actual_entries = -1;     // ... and as written; -1 for dense outputs
  unsigned threads = 1;                 // threads the outer loop ran on
  double decide_seconds = 0;            // statistics and planning
  double kernel_seconds = 0;            // the loops
  double assembly_seconds = 0;          // a sparse output's levels built from its entries
  work_counts work;                     // with LOOM_WORK_COUNTERS: the kernel's work
  std::size_t depth = 0;                // 1 for a kernel run inside another's (a hoisted sum)

  /// The runner-up's estimated cost (the cheapest candidate not run), or -1 with one candidate.
  double runner_up_cost() const {
    double best = -1;
    for (std::size_t c = 0; c < candidate_costs.size(); ++c)
      if (c != candidate && (best < 0 || candidate_costs[c] < best)) best = candidate_costs[c];
    return best;
  }
};

/// A callback given each kernel's report after it ran.
using plan_log = std::function<void(const kernel_report&)>;

/// Sets the callback every kernel's report goes to, on every thread; an empty one turns the log
/// off. The callback runs on the thread that ran the kernel, so it must be thread-safe when
/// kernels run concurrently. The environment variable LOOM_DEBUG_PLAN (set to anything) logs one
/// line per kernel to stderr while no callback is set.
LOOM_DECL void set_plan_log(plan_log log);

/// One line: "loom: y(i) = sum(j, A(i,j) * x(j)): candidate 0 of 2 (order i,j) ...".
LOOM_DECL std::string to_line(const kernel_report& r);
/// The report as a JSON object.
LOOM_DECL std::string to_json(const kernel_report& r);

namespace detail {

struct plan_log_state {
  std::atomic<bool> on{false};
  std::shared_ptr<const plan_log> log;  // read and written under `lock`
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
};
inline plan_log_state& plan_log_storage() {
  static plan_log_state state;
  return state;
}

/// The reports explain_analyze collects on this thread (null: none).
inline thread_local std::vector<kernel_report>* collected_reports = nullptr;
/// How deep the kernel being run is nested in another (a hoisted sum's kernel: 1).
inline thread_local std::size_t report_depth = 0;
/// The report of the kernel running on this thread, filled in by the writers (threads, entries).
inline thread_local kernel_report* current_report = nullptr;

/// Whether a kernel should build its report: a callback set, explain_analyze collecting, or
/// LOOM_DEBUG_PLAN.
inline bool plan_log_active() {
  return collected_reports != nullptr || plan_log_storage().on.load(std::memory_order_relaxed) ||
         debug_plan();
}

/// The bookkeeping around one reported kernel run, compiled once for every kernel: the kernel
/// whose report was current, explain_analyze's slot for this one (kept in the order the kernels
/// start, so a kernel comes before those it runs inside), the work counters and the clock.
struct report_scope {
  kernel_report* outer = nullptr;
  std::vector<kernel_report>* collected = nullptr;
  std::size_t slot = 0;
  work_counts before;
  std::int64_t start_ns = 0;  // monotonic_ns()
};
/// Makes `r` the current report (the writers fill in threads and entries) and starts the clock.
LOOM_DECL report_scope open_report(kernel_report& r);
/// Stops the clock, restores the outer report, and hands `r` to explain_analyze's collector and
/// to the callback or the LOOM_DEBUG_PLAN line.
LOOM_DECL void close_report(kernel_report& r, const report_scope& scope);
/// The kernel threw: restores the outer report only.
LOOM_DECL void abandon_report(const report_scope& scope);

}  // namespace detail
}  // namespace loom

#if LOOM_HEADER_ONLY
#  include <cstdio>
#  include <utility>

namespace loom {

namespace detail {
inline void lock_plan_log(plan_log_state& s) {
  while (s.lock.test_and_set(std::memory_order_acquire)) {
  }
}

inline std::string json_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

inline std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}
}  // namespace detail

LOOM_DEF void set_plan_log(plan_log log) {
  auto& s = detail::plan_log_storage();
  auto held = log ? std::make_shared<const plan_log>(std::move(log)) : nullptr;
  detail::lock_plan_log(s);
  s.log.swap(held);
  s.on.store(s.log != nullptr, std::memory_order_relaxed);
  s.lock.clear(std::memory_order_release);
}  // `held` (the old callback) is destroyed outside the lock

LOOM_DEF std::string to_line(const kernel_report& r) {
  std::string line = "loom: " + r.kernel + ": candidate " + std::to_string(r.candidate) + " of " +
                     std::to_string(r.candidates) + " (order " + r.loop_order + ")";
  if (r.hoisted) line = "loom: " + r.kernel + ": a sum hoisted (its kernel logged first)";
  if (r.cache_hit) line += ", cached";
  line += ", " + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads");
  line += ", decide " + detail::number_text(r.decide_seconds * 1e3) + " ms, kernel " +
          detail::number_text(r.kernel_seconds * 1e3) + " ms";
  if (r.assembly_seconds > 0)
    line += ", assembly " + detail::number_text(r.assembly_seconds * 1e3) + " ms";
  if (r.actual_entries >= 0)
    line += ", entries " + std::to_string(r.actual_entries) + " (estimated " +
            std::to_string(r.estimated_entries) + ")";
  return line;
}

LOOM_DEF std::string to_json(const kernel_report& r) {
  using detail::number_text;
  std::string costs;
  for (const double c : r.candidate_costs) costs += (costs.empty() ? "" : ",") + number_text(c);
  const auto flag = [](bool b) { return b ? std::string("true") : std::string("false"); };
  std::string json =
      "{\"kernel\":\"" + detail::json_escaped(r.kernel) + "\",\"loop_order\":\"" +
      detail::json_escaped(r.loop_order) + "\",\"candidate\":" + std::to_string(r.candidate) +
      ",\"candidates\":" + std::to_string(r.candidates) + ",\"candidate_costs\":[" + costs +
      "],\"runner_up_cost\":" + number_text(r.runner_up_cost()) +
      ",\"cache_hit\":" + flag(r.cache_hit) + ",\"skip_policy\":\"" +
      detail::json_escaped(r.skip_policy) + "\",\"accumulate\":" + flag(r.accumulate) +
      ",\"hoisted\":" + flag(r.hoisted) + ",\"aliased\":" + flag(r.aliased) +
      ",\"output_format\":\"" + detail::json_escaped(r.output_format) +
      "\",\"estimated_entries\":" + std::to_string(r.estimated_entries) +
      ",\"actual_entries\":" + std::to_string(r.actual_entries) +
      ",\"threads\":" + std::to_string(r.threads) +
      ",\"seconds\":{\"decide\":" + number_text(r.decide_seconds) +
      ",\"kernel\":" + number_text(r.kernel_seconds) +
      ",\"assembly\":" + number_text(r.assembly_seconds) + "}";
  if (counts_work)
    json += ",\"work\":{\"steps\":" + std::to_string(r.work.steps) +
            ",\"seeks\":" + std::to_string(r.work.seeks) +
            ",\"probes\":" + std::to_string(r.work.probes) +
            ",\"writes\":" + std::to_string(r.work.writes) + "}";
  return json + ",\"depth\":" + std::to_string(r.depth) + "}";
}

LOOM_DEF detail::report_scope detail::open_report(kernel_report& r) {
  report_scope scope;
  scope.outer = current_report;
  scope.collected = collected_reports;
  r.depth = report_depth;
  if (scope.collected != nullptr) {
    scope.slot = scope.collected->size();
    scope.collected->emplace_back();
  }
  current_report = &r;
  ++report_depth;
  scope.before = work_counters();
  scope.start_ns = monotonic_ns();
  return scope;
}

LOOM_DEF void detail::abandon_report(const report_scope& scope) {
  current_report = scope.outer;
  --report_depth;
}

LOOM_DEF void detail::close_report(kernel_report& r, const report_scope& scope) {
  r.kernel_seconds = seconds_since(scope.start_ns) - r.assembly_seconds;
  const work_counts after = work_counters();
  const work_counts& before = scope.before;
  r.work = {after.steps - before.steps, after.seeks - before.seeks, after.probes - before.probes,
            after.writes - before.writes, after.vector_loops - before.vector_loops};
  current_report = scope.outer;
  --report_depth;
  if (scope.collected != nullptr) (*scope.collected)[scope.slot] = r;
  auto& s = plan_log_storage();
  if (s.on.load(std::memory_order_relaxed)) {
    lock_plan_log(s);
    const std::shared_ptr<const plan_log> log = s.log;
    s.lock.clear(std::memory_order_release);
    if (log) (*log)(r);
  } else if (debug_plan()) {
    const std::string line = to_line(r) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
}

}  // namespace loom
#endif  // LOOM_HEADER_ONLY

#endif  // LOOM_CORE_PLAN_LOG_HPP
