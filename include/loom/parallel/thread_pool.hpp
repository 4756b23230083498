// Defines loom's thread pool: worker threads started on first use, which run the chunks
// of one parallel loop at a time, the calling thread taking part (parallel/). Kernels see only
// parallel_for and the two functions below it; the pool (threads, locks, clocks and their
// standard headers) is compiled where LOOM_HEADER_ONLY is: in every unit when header-only, once
// in loom::runtime under separate compilation (docs/build-cost.md).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_THREAD_POOL_HPP
#define LOOM_PARALLEL_THREAD_POOL_HPP

#include <loom/core/clock.hpp>
#include <loom/core/config.hpp>

#include <cstddef>
#include <type_traits>

#if LOOM_HEADER_ONLY  // the pool's own headers
#  include <loom/core/sync.hpp>

#  include <algorithm>
#  include <atomic>
#  include <cstdint>
#  include <cstdlib>
#  include <exception>
#  include <vector>
#endif

namespace loom::parallel {

namespace detail {
/// One parallel loop as the pool runs it: chunks [0, count), `call(ctx, chunk, slot)` running
/// one; slot in [0, threads) identifies the thread (per-thread workspaces are indexed by it).
struct loop_task {
  void (*call)(void*, std::size_t, unsigned) = nullptr;
  void* ctx = nullptr;
  std::size_t count = 0;
};
/// Runs `task` on up to `threads` threads of the process-wide pool, the caller being slot 0;
/// returns when all chunks are done and rethrows the first exception. Not a template: one copy
/// of the locking and waiting for every kernel's loops.
LOOM_DECL void run_loop(const loop_task& task, unsigned threads);
/// The worker threads the pool has started so far (it grows to the largest count asked for).
LOOM_DECL std::size_t pool_workers();
}  // namespace detail

/// Runs `body(chunk, slot)` for chunk in [0, chunks) on up to `threads` threads of the pool.
template <class F> void parallel_for(std::size_t chunks, unsigned threads, F&& body) {
  using body_type = std::remove_reference_t<F>;
  const detail::loop_task task{
      [](void* ctx, std::size_t c, unsigned slot) { (*static_cast<body_type*>(ctx))(c, slot); },
      const_cast<void*>(static_cast<const void*>(&body)), chunks};
  detail::run_loop(task, threads);
}

#if LOOM_HEADER_ONLY

namespace detail {
/// How long a worker waiting for the next loop, and a caller waiting for a loop's workers, poll
/// before sleeping on a condition variable: waking a sleeping thread costs more than a small
/// kernel takes (docs/parallel.md), while a loop that follows
/// another within the window (run_sparse_rows runs two; kernels called in a loop) starts at once.
/// LOOM_SPIN_US overrides it (0: always sleep), read once.
std::int64_t spin_window_ns();

/// Polls `ready()` for up to spin_window_ns(); whether it became true.
template <class Ready> bool spin_until(Ready&& ready) {
  const std::int64_t window = spin_window_ns();
  if (window == 0) return ready();
  const std::int64_t until = loom::detail::monotonic_ns() + window;
  for (unsigned k = 0;; ++k) {
    if (ready()) return true;
    if ((k & 63) == 63 && loom::detail::monotonic_ns() >= until) return false;
#  if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#  endif
  }
}

// Whether the current thread runs a chunk of a parallel loop (nested loops then run serially).
inline thread_local bool inside_parallel_loop = false;

// One parallel loop: chunks [0, count) handed out one at a time (dynamic scheduling: cores
// shared with other processes still finish together). `call(ctx, chunk, slot)` runs one chunk;
// slot in [0, threads) identifies the thread (per-thread workspaces are indexed by it).
struct loop {
  explicit loop(const loop_task& task) : call(task.call), ctx(task.ctx), count(task.count) {}
  void (*call)(void*, std::size_t, unsigned) = nullptr;
  void* ctx = nullptr;
  std::size_t count = 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  loom::detail::mutex error_mutex;
  std::exception_ptr error;

  void work(unsigned slot);
};
}  // namespace detail

/// The process-wide pool. Between loops, workers poll for `detail::spin_window_ns()` (100 µs) and
/// then sleep on a condition variable, so back-to-back loops skip the wake-up and idle cores are
/// given back. One loop runs at a time; a loop started while another runs (from a second user
/// thread), or from inside a chunk, runs serially on its caller.
class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }

  thread_pool() = default;
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;
  ~thread_pool();

  /// Runs every chunk of `task` on up to `threads` threads, the caller being slot 0; returns
  /// when all chunks are done and rethrows the first exception.
  void run(const detail::loop_task& task, unsigned threads) {
    detail::loop l(task);
    run_loop(l, threads);
  }

  /// Worker threads started so far (the pool grows to the largest thread count asked for).
  std::size_t workers() const {
    const loom::detail::scoped_lock lock(mutex_);
    return workers_.size();
  }

 private:
  void run_loop(detail::loop& l, unsigned threads);

  void grow(unsigned count);

  // A worker: waits for a new loop, takes part when its slot is below the loop's thread count.
  // The loop and its thread count are read under the mutex together with the epoch, so a
  // worker joins each loop at most once and a loop never waits for a worker it did not count.
  void serve(unsigned slot);

  mutable loom::detail::mutex mutex_;
  loom::detail::mutex run_mutex_;
  loom::detail::condition wake_, done_;
  std::uint64_t epoch_ = 0;
  detail::loop* loop_ = nullptr;
  unsigned threads_ = 0, pending_ = 0;
  bool stop_ = false;
  // mirrors of epoch_, pending_ and stop_ that waiting threads poll without the mutex; the
  // decisions are still taken under it
  std::atomic<std::uint64_t> epoch_seen_{0};
  std::atomic<unsigned> pending_seen_{0};
  std::atomic<bool> stopping_{false};
  std::vector<loom::detail::thread> workers_;  // last member: joined first on destruction
};

namespace detail {
inline std::int64_t spin_window_ns() {
  static const std::int64_t w = [] {
    const char* v = std::getenv("LOOM_SPIN_US");
    return std::int64_t{1000} * (v != nullptr ? std::max(0L, std::atol(v)) : 100L);
  }();
  return w;
}

inline void loop::work(unsigned slot) {
  inside_parallel_loop = true;
  for (;;) {
    const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
    if (c >= count) break;
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      call(ctx, c, slot);
    } catch (...) {
      const loom::detail::scoped_lock lock(error_mutex);
      if (!error) error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  inside_parallel_loop = false;
}
}  // namespace detail

inline thread_pool::~thread_pool() {
  {
    const loom::detail::scoped_lock lock(mutex_);
    stop_ = true;
    stopping_.store(true, std::memory_order_relaxed);
  }
  wake_.notify_all();
  workers_.clear();  // the threads join
}

inline void thread_pool::run_loop(detail::loop& l, unsigned threads) {
  const std::size_t chunks = l.count;
  if (threads > chunks) threads = static_cast<unsigned>(chunks);
  if (threads <= 1 || detail::inside_parallel_loop || !run_mutex_.try_lock()) {
    l.work(0);  // serially, on the caller
  } else {
    const loom::detail::scoped_lock busy(run_mutex_, loom::detail::scoped_lock::adopt);
    grow(threads - 1);
    {
      const loom::detail::scoped_lock lock(mutex_);
      loop_ = &l;
      threads_ = threads;
      pending_ = threads - 1;
      pending_seen_.store(threads - 1, std::memory_order_relaxed);
      ++epoch_;
      epoch_seen_.store(epoch_, std::memory_order_release);
    }
    wake_.notify_all();
    l.work(0);
    detail::spin_until([&] { return pending_seen_.load(std::memory_order_acquire) == 0; });
    const loom::detail::scoped_lock lock(mutex_);
    done_.wait(mutex_, [&] { return pending_ == 0; });
    loop_ = nullptr;
  }
  if (l.error) std::rethrow_exception(l.error);
}

inline void thread_pool::grow(unsigned count) {
  const loom::detail::scoped_lock lock(mutex_);
  while (workers_.size() < count) {
    const unsigned slot = static_cast<unsigned>(workers_.size()) + 1;
    workers_.emplace_back([this, slot] { serve(slot); });
  }
}

inline void thread_pool::serve(unsigned slot) {
  std::uint64_t seen = 0;
  loom::detail::scoped_lock lock(mutex_);
  for (;;) {
    if (!stop_ && epoch_ == seen) {  // poll a while before sleeping (the mutex released)
      lock.unlock();
      detail::spin_until([&] {
        return epoch_seen_.load(std::memory_order_acquire) != seen ||
               stopping_.load(std::memory_order_relaxed);
      });
      lock.lock();
    }
    wake_.wait(mutex_, [&] { return stop_ || epoch_ != seen; });
    if (stop_) return;
    seen = epoch_;
    if (slot >= threads_) continue;
    detail::loop* l = loop_;
    lock.unlock();
    l->work(slot);
    lock.lock();
    pending_seen_.store(pending_ - 1, std::memory_order_release);
    if (--pending_ == 0) done_.notify_one();
  }
}
namespace detail {
LOOM_DEF void run_loop(const loop_task& task, unsigned threads) {
  thread_pool::instance().run(task, threads);
}

LOOM_DEF std::size_t pool_workers() { return thread_pool::instance().workers(); }
}  // namespace detail
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::parallel

#endif  // LOOM_PARALLEL_THREAD_POOL_HPP
