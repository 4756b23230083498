// Defines loom::progress and loom::set_progress: a process-wide callback that long operations
// (the readers, key_by, decompose, tile conversion, MPI distribution) call as they advance, at a
// bounded rate; and detail::progress_reporter, the object such an operation reports through
// (core/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_PROGRESS_HPP
#define LOOM_CORE_PROGRESS_HPP

#include <loom/core/clock.hpp>
#include <loom/core/config.hpp>
#include <loom/core/sync.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string_view>
#include <utility>

namespace loom {

/// How far one long operation has come. The views live only during the call: copy them to keep
/// them.
struct progress {
  std::string_view phase;    ///< "reading", "keying", "eliminating", "tiling", ...
  std::string_view subject;  ///< the file path, table or tensor name; may be empty
  std::int64_t done = 0;     ///< units done so far: never decreases within one operation
  std::int64_t total = 0;    ///< units in all; -1 when unknown (a stream that cannot seek)
  const char* unit = "";     ///< "bytes", "rows", "eliminations" or "tiles"

  /// done / total in [0, 1]: 1 when total is 0 (nothing to do), 0 while total is unknown.
  double fraction() const {
    if (total == 0) return 1.0;
    if (total < 0) return 0.0;
    return done >= total ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  }
};

/// The callback: called on the thread that runs the operation; an exception it throws leaves
/// the operation (as the operation's own errors do).
using progress_callback = std::function<void(const progress&)>;

namespace detail {
/// Whether a callback is set: the one relaxed load an operation pays when none is.
inline std::atomic<bool> progress_set{false};
/// The least time between two reports of one operation, in nanoseconds (first and last excepted);
/// tests set it to 0 to see the 1% limit alone.
inline std::atomic<std::int64_t> progress_interval_ns{50'000'000};

struct progress_state {
  mutex lock;
  progress_callback callback;
};
LOOM_DECL progress_state& progress_slot();
}  // namespace detail

/// Sets the process-wide progress callback (empty: off, the default) and returns the previous
/// one. Operations already running keep the callback they started with.
LOOM_DECL progress_callback set_progress(progress_callback callback);

/// Sets a progress callback for its lifetime, then puts the previous one back.
class scoped_progress {
 public:
  explicit scoped_progress(progress_callback callback)
      : previous_(set_progress(std::move(callback))) {}
  scoped_progress(const scoped_progress&) = delete;
  scoped_progress& operator=(const scoped_progress&) = delete;
  ~scoped_progress() { set_progress(std::move(previous_)); }

 private:
  progress_callback previous_;
};

namespace detail {

/// What one long operation reports through. Inactive (and free but for one compare per
/// advance_to) unless a callback was set when it began. Once active it calls the callback with
/// done = 0 first, then as `advance_to` passes each further 1% of total when at least
/// progress_interval_ns has passed since the last call, and with done = total from `finish`
/// (once: a total of 0 gives that single call). `phase` and `subject` must outlive it.
class progress_reporter {
 public:
  progress_reporter() = default;
  progress_reporter(std::string_view phase, std::string_view subject, std::int64_t total,
                    const char* unit) {
    if (progress_set.load(std::memory_order_relaxed)) begin(phase, subject, total, unit);
  }
  progress_reporter(const progress_reporter&) = delete;
  progress_reporter& operator=(const progress_reporter&) = delete;

  /// Starts reporting (when a callback is set); total -1 when unknown.
  LOOM_DECL void begin(std::string_view phase, std::string_view subject, std::int64_t total,
                       const char* unit);
  /// `done` units are done: one compare unless a report may be due.
  void advance_to(std::int64_t done) {
    if (done >= next_) [[unlikely]]
      step(done);
  }
  /// The operation is complete: the last call, done == total; an unknown total becomes
  /// `done_at_end` (the units counted), or the last done reported.
  void finish(std::int64_t done_at_end = 0) {
    if (callback_) end(done_at_end);
  }
  bool active() const { return static_cast<bool>(callback_); }

 private:
  LOOM_DECL void step(std::int64_t done);
  LOOM_DECL void end(std::int64_t done_at_end);
  LOOM_DECL void send(std::int64_t done, std::int64_t total);

  static constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();
  progress_callback callback_;
  std::string_view phase_, subject_;
  const char* unit_ = "";
  std::int64_t total_ = 0;
  std::int64_t next_ = never;  // the done that makes the next report due
  std::int64_t stride_ = 1;    // 1% of total, or a fixed block when total is unknown
  std::int64_t sent_ = 0;      // the done of the last report
  std::int64_t last_ns_ = 0;   // monotonic_ns() of the last report
};

}  // namespace detail

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF progress_state& progress_slot() {
  static progress_state state;
  return state;
}

LOOM_DEF void progress_reporter::begin(std::string_view phase, std::string_view subject,
                                       std::int64_t total, const char* unit) {
  {
    progress_state& s = progress_slot();
    const scoped_lock held(s.lock);
    callback_ = s.callback;
  }
  if (!callback_) return;
  phase_ = phase;
  subject_ = subject;
  unit_ = unit;
  total_ = total;
  // unknown total: a report may be due every 64 Ki units (bytes, in practice), by time alone
  stride_ = total < 0 ? std::int64_t{1} << 16 : std::max<std::int64_t>(total / 100, 1);
  sent_ = 0;
  next_ = total == 0 ? never : stride_;
  if (total != 0) send(0, total);  // a total of 0 reports once, from finish
}

LOOM_DEF void progress_reporter::step(std::int64_t done) {
  if (!callback_) return;
  if (total_ >= 0 && done >= total_) done = total_ - 1;  // done == total is finish's to send
  next_ = done + stride_;
  const std::int64_t gap = monotonic_ns() - last_ns_;
  if (done <= sent_ || gap < progress_interval_ns.load(std::memory_order_relaxed)) return;
  send(done, total_);
}

LOOM_DEF void progress_reporter::end(std::int64_t done_at_end) {
  const std::int64_t total = total_ < 0 ? std::max(sent_, done_at_end) : total_;
  next_ = never;
  progress_callback callback = std::move(callback_);  // inactive from here, even if it throws
  callback_ = nullptr;
  callback(progress{phase_, subject_, total, total, unit_});
}

LOOM_DEF void progress_reporter::send(std::int64_t done, std::int64_t total) {
  sent_ = done;
  last_ns_ = monotonic_ns();
  callback_(progress{phase_, subject_, done, total, unit_});
}
}  // namespace detail

LOOM_DEF progress_callback set_progress(progress_callback callback) {
  detail::progress_state& s = detail::progress_slot();
  const detail::scoped_lock held(s.lock);
  const bool set = static_cast<bool>(callback);
  std::swap(s.callback, callback);
  detail::progress_set.store(set, std::memory_order_relaxed);
  return callback;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom

#endif  // LOOM_CORE_PROGRESS_HPP
