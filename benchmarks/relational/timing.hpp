// Wall-clock helpers for the relational benchmarks.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_RELATIONAL_TIMING_HPP
#define LOOM_BENCHMARKS_RELATIONAL_TIMING_HPP

#include <algorithm>
#include <chrono>
#include <vector>

namespace bench {

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Median time in ms of `f()`, repeated until `min_total_ms` has passed (at least `min_reps`,
/// at most `max_reps` times).
template <class F>
double median_ms(F&& f, double min_total_ms = 300, int min_reps = 3, int max_reps = 1000) {
  std::vector<double> t;
  const double start = now_ms();
  while (static_cast<int>(t.size()) < min_reps ||
         (now_ms() - start < min_total_ms && static_cast<int>(t.size()) < max_reps)) {
    const double t0 = now_ms();
    f();
    t.push_back(now_ms() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace bench

#endif  // LOOM_BENCHMARKS_RELATIONAL_TIMING_HPP
