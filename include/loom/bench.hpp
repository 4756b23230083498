// Defines loom::bench: times a kernel against alternatives in interleaved rounds and reports
// medians, ratios to the first entry and the load average (standalone: of loom it includes only
// the clock, so it is cheap to include next to any kernel, loom's or not).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCH_HPP
#define LOOM_BENCH_HPP

#include <loom/core/clock.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if !defined(__GNUC__) && !defined(__clang__)
#  include <atomic>  // the fallback of clobber_memory
#endif

/// Timing kernels the way BENCHMARKS.md is made: every alternative runs in the same process, in
/// interleaved rounds (round r times each entry once, starting at entry r mod n, so that no entry
/// always runs after the same neighbour), each sample repeats the call until it lasts at least
/// `options::min_time`, and the report gives the median time per call, the ratio of each median to
/// the first entry's, and the 1-minute load average before and after.
///
/// **Example** (examples/benchmarking/main.cpp):
/// ```cpp
/// const auto r = loom::bench::compare("SpMV", {{"hand", [&] { hand_spmv(A, x, y); }},
///                                              {"loom csr", [&] { y(i) = spmv_expr; }}},
///                                     {.rounds = 7, .min_time = 0.002});
/// std::fputs(r.markdown().c_str(), stdout);
/// ```
namespace loom::bench {

namespace detail {
inline const void* volatile sink = nullptr;  // the fallback escape of do_not_optimize
}  // namespace detail

/// Makes the compiler assume that `value` is read here: a result computed only to be timed is
/// not optimised away. Pass the result (or the output a kernel writes) at the end of the callable.
template <class T> inline void do_not_optimize(const T& value) {
#if defined(__GNUC__) || defined(__clang__)
  __asm__ __volatile__("" : : "g"(&value) : "memory");
#else
  detail::sink = &value;
#endif
}

/// Makes the compiler assume that all memory is read and written here.
inline void clobber_memory() {
#if defined(__GNUC__) || defined(__clang__)
  __asm__ __volatile__("" : : : "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

/// One alternative: a name (the table's row) and a callable that runs the kernel once.
struct entry {
  std::string name;
  std::function<void()> run;
};

/// How `compare` times. Designated initializers: `{.rounds = 11, .min_time = 0.01}`.
struct options {
  /// Interleaved rounds; each gives one sample per entry, and the median is over these.
  int rounds = 7;
  /// Seconds: a sample repeats the call until it takes at least this long (calibrated once per
  /// entry before the first round), so that short kernels are not timed at the clock's resolution.
  double min_time = 0.002;
  /// Untimed calls of each entry before calibration: caches, allocations, plans.
  int warmup = 1;
  /// The 1-minute load average above which `result::quiet()` is false: another process competed
  /// for the cores, and the ratios may be noise (1.5 suits loom's 2-core CI machine).
  double max_load = 1.5;
  /// Seconds on a monotonic clock; empty: CLOCK_MONOTONIC (std::chrono::steady_clock off POSIX).
  /// Tests pass a fake clock.
  std::function<double()> clock = {};
  /// The current 1-minute load average, negative when unknown; empty: the first field of
  /// /proc/loadavg.
  std::function<double()> load_average = {};
};

/// The timings of one entry; times are seconds per call.
struct entry_result {
  std::string name;
  std::vector<double> samples;  // one per round, in round order
  long long calls_per_sample = 1;
  double median = 0;
  double ratio = 1;  // median / the first entry's median
  double min() const {
    return samples.empty() ? 0 : *std::min_element(samples.begin(), samples.end());
  }
  double max() const {
    return samples.empty() ? 0 : *std::max_element(samples.begin(), samples.end());
  }
};

/// What `compare` measured. `markdown()` renders it as a table.
struct result {
  std::string name;
  std::vector<entry_result> entries;  // in the order given; entries[0] is the baseline
  double load_before = -1;            // 1-minute load average, negative when unknown
  double load_after = -1;
  double max_load = 1.5;
  int rounds = 0;

  /// Whether the load average stayed at or below `max_load` (true when it is unknown).
  bool quiet() const { return std::max(load_before, load_after) <= max_load; }
  /// The entry of that name, or nullptr.
  const entry_result* find(std::string_view entry_name) const {
    for (const entry_result& e : entries)
      if (e.name == entry_name) return &e;
    return nullptr;
  }
  /// A Markdown table (entry, median per call, ratio to the baseline, min-max over the rounds),
  /// then one line with the method and the load average, and a warning when not `quiet()`.
  std::string markdown() const;
};

/// The median of `v` (the mean of the two middle values when their number is even; 0 when empty).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  const double upper = v[h];
  if (v.size() % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h)) + upper) / 2;
}

/// The 1-minute load average from /proc/loadavg, or -1 where there is none.
inline double load_average() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return -1;
  double load = -1;
  if (std::fscanf(f, "%lf", &load) != 1) load = -1;
  std::fclose(f);
  return load;
}

/// `seconds` in a unit chosen for it, three significant digits: "812 ns", "12.5 µs", "3.04 ms".
inline std::string format_time(double seconds) {
  const char* unit = "s";
  double v = seconds;
  if (seconds < 1e-6) {
    unit = "ns";
    v = seconds * 1e9;
  } else if (seconds < 1e-3) {
    unit = "µs";
    v = seconds * 1e6;
  } else if (seconds < 1) {
    unit = "ms";
    v = seconds * 1e3;
  }
  char text[48];
  std::snprintf(text, sizeof text,
                v < 9.995   ? "%.2f %s"
                : v < 99.95 ? "%.1f %s"
                            : "%.0f %s",
                v, unit);
  return text;
}

/// Fills in each entry's median and its ratio to entries[0] from the samples.
inline void summarize(result& r) {
  for (entry_result& e : r.entries) e.median = median(e.samples);
  if (r.entries.empty()) return;
  const double base = r.entries.front().median;
  for (entry_result& e : r.entries)
    e.ratio = base > 0 ? e.median / base
                       : (e.median == 0 ? 1.0 : std::numeric_limits<double>::infinity());
}

inline std::string result::markdown() const {
  std::string out;
  char line[512];
  const std::string base = entries.empty() ? std::string("baseline") : entries.front().name;
  out += "| " + (name.empty() ? std::string("entry") : name) + " | median per call | vs " + base +
         " | min–max over rounds |\n|---|---:|---:|---:|\n";
  for (const entry_result& e : entries) {
    std::snprintf(line, sizeof line, "| %s | %s | %.2f× | %s–%s |\n", e.name.c_str(),
                  format_time(e.median).c_str(), e.ratio, format_time(e.min()).c_str(),
                  format_time(e.max()).c_str());
    out += line;
  }
  long long lo = 0, hi = 0;
  for (const entry_result& e : entries) {
    lo = lo == 0 ? e.calls_per_sample : std::min(lo, e.calls_per_sample);
    hi = std::max(hi, e.calls_per_sample);
  }
  char calls[64];
  if (lo == hi)
    std::snprintf(calls, sizeof calls, "%lld call%s", lo, lo == 1 ? "" : "s");
  else
    std::snprintf(calls, sizeof calls, "%lld–%lld calls", lo, hi);
  char load[96];
  if (load_before < 0 && load_after < 0)
    std::snprintf(load, sizeof load, "load average unknown");
  else
    std::snprintf(load, sizeof load, "load average (1 min) %.2f before, %.2f after", load_before,
                  load_after);
  std::snprintf(line, sizeof line,
                "\n%d interleaved rounds of %s per entry, medians per call; %s.\n", rounds, calls,
                load);
  out += line;
  if (!quiet()) {
    std::snprintf(line, sizeof line,
                  "**Warning**: the load average exceeded %.2f: other processes competed for the "
                  "cores, and the ratios may be noise.\n",
                  max_load);
    out += line;
  }
  return out;
}

namespace detail {
// Seconds that `calls` calls of `run` take on `clock`.
inline double time_calls(const std::function<double()>& clock, const std::function<void()>& run,
                         long long calls) {
  const double start = clock();
  for (long long c = 0; c < calls; ++c) run();
  return clock() - start;
}

// The calls per sample that make one sample last at least min_time (1 when min_time <= 0).
inline long long calibrate(const std::function<double()>& clock, const std::function<void()>& run,
                           double min_time) {
  constexpr long long max_calls = 1LL << 30;
  long long calls = 1;
  while (min_time > 0 && calls < max_calls) {
    const double t = time_calls(clock, run, calls);
    if (t >= min_time) break;
    // aim 20% past min_time, growing at most 100x per step (the first call may be a cold outlier)
    const double c = static_cast<double>(calls);
    const double want = std::min(t > 0 ? 1.2 * min_time / t * c : 100 * c, 100 * c);
    calls = std::min(max_calls, std::max(calls + 1, static_cast<long long>(want)));
  }
  return calls;
}
}  // namespace detail

/// Times each entry in `o.rounds` interleaved rounds and returns the medians per call and their
/// ratios to `entries[0]` (the baseline), with the load average before and after.
/// Every callable runs `o.warmup` times untimed, then a few times to calibrate, then
/// `o.rounds` samples of `calls_per_sample` calls each.
inline result compare(std::string name, std::vector<entry> entries, const options& o = {}) {
  const std::function<double()> clock =
      o.clock ? o.clock : std::function<double()>(loom::detail::monotonic_seconds);
  const std::function<double()> load =
      o.load_average ? o.load_average : std::function<double()>(load_average);
  result r;
  r.name = std::move(name);
  r.max_load = o.max_load;
  r.rounds = std::max(1, o.rounds);
  r.load_before = load();
  for (const entry& e : entries) {
    for (int w = 0; w < o.warmup; ++w) e.run();
    r.entries.push_back({e.name, {}, detail::calibrate(clock, e.run, o.min_time)});
  }
  const std::size_t n = entries.size();
  for (int round = 0; round < r.rounds; ++round)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t q = (static_cast<std::size_t>(round) + k) % n;
      const long long calls = r.entries[q].calls_per_sample;
      r.entries[q].samples.push_back(detail::time_calls(clock, entries[q].run, calls) /
                                     static_cast<double>(calls));
    }
  r.load_after = load();
  summarize(r);
  return r;
}

}  // namespace loom::bench

#endif  // LOOM_BENCH_HPP
