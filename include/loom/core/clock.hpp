// Defines loom's monotonic clock (core vocabulary): the time stamps of explain_analyze, the plan
// log, progress reports and the thread pool's spin window. clock_gettime(CLOCK_MONOTONIC) where
// POSIX has it, since <chrono> alone costs about a tenth of <loom/kernels.hpp>'s compile time;
// std::chrono::steady_clock elsewhere.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_CLOCK_HPP
#define LOOM_CORE_CLOCK_HPP

#include <cstdint>

#if defined(__unix__) || defined(__APPLE__)
#  include <time.h>
#else
#  include <chrono>
#endif

namespace loom::detail {

/// Nanoseconds on a monotonic clock, from an unspecified start.
inline std::int64_t monotonic_ns() noexcept {
#if defined(__unix__) || defined(__APPLE__)
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
#else
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
}

/// Seconds on the same clock.
inline double monotonic_seconds() noexcept { return 1e-9 * static_cast<double>(monotonic_ns()); }

/// Seconds from `start_ns`, a `monotonic_ns()`, to now.
inline double seconds_since(std::int64_t start_ns) noexcept {
  return 1e-9 * static_cast<double>(monotonic_ns() - start_ns);
}

}  // namespace loom::detail

#endif  // LOOM_CORE_CLOCK_HPP
