// Defines loom's parallel-execution settings: the thread count, the deterministic mode and the
// work below which kernels stay serial; process-wide, with a per-thread scoped override
// (parallel/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_SETTINGS_HPP
#define LOOM_PARALLEL_SETTINGS_HPP

#include <loom/core/config.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>

#if LOOM_HEADER_ONLY  // hardware_threads
#  include <loom/core/sync.hpp>
#endif

namespace loom {

/// How kernels run on several threads (docs/parallel.md).
struct parallel_options {
  /// Threads a kernel may use; 1 runs the serial loop nest unchanged. 0 means "the default":
  /// $LOOM_NUM_THREADS when set, else the hardware threads (processors online).
  int threads = 0;
  /// Reductions over the outermost loop are combined per data-determined chunk, in chunk order,
  /// so results are bit-identical for every thread count (1 included). Off: per-thread partials.
  bool deterministic = false;
  /// Kernels whose work estimate (stored entries of the operands plus the outer extent) is
  /// below this stay serial. Default: $LOOM_PARALLEL_MIN_WORK when set, else 32768.
  std::int64_t min_work = -1;
  /// The work per chunk aimed at when the outer loop is split (at most 256 chunks, at most one
  /// per outer index). Default: $LOOM_PARALLEL_CHUNK_WORK when set, else 16384.
  std::int64_t chunk_work = -1;
};

namespace parallel::detail {

LOOM_DECL int env_int(const char* name, int fallback);

LOOM_DECL int default_threads();

inline std::int64_t default_min_work() {
  static const std::int64_t n = env_int("LOOM_PARALLEL_MIN_WORK", 32768);
  return n;
}

inline std::int64_t default_chunk_work() {
  static const std::int64_t n = std::max(1, env_int("LOOM_PARALLEL_CHUNK_WORK", 16384));
  return n;
}

inline bool default_deterministic() {
  static const bool d = env_int("LOOM_DETERMINISTIC", 0) != 0;
  return d;
}

struct global_settings {
  std::atomic<int> threads{0};
  std::atomic<int> deterministic{-1};  // -1: the environment's default
  std::atomic<std::int64_t> min_work{-1};
  std::atomic<std::int64_t> chunk_work{-1};
};
inline global_settings& globals() {
  static global_settings g;
  return g;
}
inline thread_local std::optional<parallel_options> scoped_override{};

}  // namespace parallel::detail

/// Sets the number of threads kernels may use (process-wide); 0 restores the default
/// ($LOOM_NUM_THREADS, else all hardware threads). `loom::set_num_threads(1)` is serial.
inline void set_num_threads(int n) {
  parallel::detail::globals().threads.store(std::max(0, n), std::memory_order_relaxed);
}

/// The options in effect on the calling thread, defaults resolved (threads >= 1, min_work >= 0,
/// chunk_work >= 1).
LOOM_DECL parallel_options current_parallel_options();

/// The number of threads a kernel started on this thread may use (>= 1).
inline int num_threads() { return current_parallel_options().threads; }

/// Turns the deterministic mode on or off (process-wide; default $LOOM_DETERMINISTIC, else off).
inline void set_deterministic(bool on) {
  parallel::detail::globals().deterministic.store(on ? 1 : 0, std::memory_order_relaxed);
}
inline bool deterministic() { return current_parallel_options().deterministic; }

/// Sets the work below which kernels stay serial (process-wide); -1 restores the default.
inline void set_parallel_min_work(std::int64_t work) {
  parallel::detail::globals().min_work.store(std::max<std::int64_t>(-1, work),
                                             std::memory_order_relaxed);
}

/// Sets the work per chunk of split loops (process-wide); -1 restores the default.
inline void set_parallel_chunk_work(std::int64_t work) {
  parallel::detail::globals().chunk_work.store(work > 0 ? work : -1, std::memory_order_relaxed);
}

/// Sets every option at once (process-wide); fields at their defaults restore the default.
inline void set_parallel_options(const parallel_options& o) {
  set_num_threads(o.threads);
  set_deterministic(o.deterministic);
  set_parallel_min_work(o.min_work);
  set_parallel_chunk_work(o.chunk_work);
}

/// Overrides the options for kernels started on the current thread while it lives:
/// `{ loom::parallel_scope s({.threads = 4, .deterministic = true}); y(i) = ...; }`.
/// Fields left at their defaults (threads 0, min_work -1) keep the process-wide value.
class parallel_scope {
 public:
  explicit parallel_scope(const parallel_options& o) : saved_(parallel::detail::scoped_override) {
    parallel::detail::scoped_override = o;
  }
  parallel_scope(const parallel_scope&) = delete;
  parallel_scope& operator=(const parallel_scope&) = delete;
  ~parallel_scope() { parallel::detail::scoped_override = saved_; }

 private:
  std::optional<parallel_options> saved_;
};

#if LOOM_HEADER_ONLY
namespace parallel::detail {
LOOM_DEF int env_int(const char* name, int fallback) {
  if (const char* v = std::getenv(name)) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && n >= 0 && n < (1 << 16)) return static_cast<int>(n);
  }
  return fallback;
}

LOOM_DEF int default_threads() {
  static const int n = [] {
    const int hw = static_cast<int>(loom::detail::hardware_threads());
    const int env = env_int("LOOM_NUM_THREADS", 0);
    return env > 0 ? env : hw;
  }();
  return n;
}
}  // namespace parallel::detail

LOOM_DEF parallel_options current_parallel_options() {
  namespace d = parallel::detail;
  parallel_options o;
  const int t = d::globals().threads.load(std::memory_order_relaxed);
  o.threads = t > 0 ? t : d::default_threads();
  const int det = d::globals().deterministic.load(std::memory_order_relaxed);
  o.deterministic = det < 0 ? d::default_deterministic() : det != 0;
  const std::int64_t w = d::globals().min_work.load(std::memory_order_relaxed);
  o.min_work = w >= 0 ? w : d::default_min_work();
  const std::int64_t cw = d::globals().chunk_work.load(std::memory_order_relaxed);
  o.chunk_work = cw > 0 ? cw : d::default_chunk_work();
  if (const auto& s = d::scoped_override) {
    if (s->threads > 0) o.threads = s->threads;
    o.deterministic = s->deterministic;
    if (s->min_work >= 0) o.min_work = s->min_work;
    if (s->chunk_work > 0) o.chunk_work = s->chunk_work;
  }
  return o;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom

#endif  // LOOM_PARALLEL_SETTINGS_HPP
