// Defines loom's deterministic work counters: with LOOM_WORK_COUNTERS defined (tests only; the
// whole program must agree), every kernel counts, over all its threads, the steps and seeks of
// the stored levels it walks, the coordinates it locates, and the entries it writes. Off, the
// hooks are empty and cost nothing. Complexity tests assert on these instead of timings (core/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_WORK_COUNTERS_HPP
#define LOOM_CORE_WORK_COUNTERS_HPP

#include <cstdint>
#ifdef LOOM_WORK_COUNTERS
#  include <atomic>
#endif

namespace loom {

/// The work of the kernels run (on every thread) since the last `reset_work_counters()`.
struct work_counts {
  std::uint64_t steps = 0;   // next() on a stored level or a dense range: one loop iteration
  std::uint64_t seeks = 0;   // seek / seek_past: a jump (a search in a sorted level)
  std::uint64_t probes = 0;  // locate / contains: a random access into a level
  std::uint64_t writes = 0;  // entries written to an output (appended, or accumulated in place)
  /// dense innermost loops run on the vector path (stream/lanes.hpp); not work, a path taken
  std::uint64_t vector_loops = 0;
  std::uint64_t total() const { return steps + seeks + probes + writes; }
};

#ifdef LOOM_WORK_COUNTERS
namespace detail {
struct work_tally {  // every thread's work (relaxed atomics: counted, not ordered)
  std::atomic<std::uint64_t> steps{0}, seeks{0}, probes{0}, writes{0}, vector_loops{0};
};
inline work_tally work;
}  // namespace detail
/// Whether this build counts work (LOOM_WORK_COUNTERS).
inline constexpr bool counts_work = true;
inline work_counts work_counters() {
  return {detail::work.steps.load(), detail::work.seeks.load(), detail::work.probes.load(),
          detail::work.writes.load(), detail::work.vector_loops.load()};
}
inline void reset_work_counters() {
  detail::work.steps = 0;
  detail::work.seeks = 0;
  detail::work.probes = 0;
  detail::work.writes = 0;
  detail::work.vector_loops = 0;
}
#  define LOOM_COUNT_WORK(field) \
    (::loom::detail::work.field.fetch_add(1, std::memory_order_relaxed))
#  define LOOM_COUNT_WORK_N(field, n) \
    (::loom::detail::work.field.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed))
#else
inline constexpr bool counts_work = false;
inline work_counts work_counters() { return {}; }
inline void reset_work_counters() {}
#  define LOOM_COUNT_WORK(field) ((void)0)
#  define LOOM_COUNT_WORK_N(field, n) ((void)0)
#endif

}  // namespace loom

#endif  // LOOM_CORE_WORK_COUNTERS_HPP
