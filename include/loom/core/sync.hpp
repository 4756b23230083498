// Defines loom's threads and locks (core vocabulary): a mutex, a scoped lock, a condition, a
// joining thread, a once flag and the hardware thread count, for the thread pool, the progress
// callback's slot and the hash map's sorted views. POSIX threads where POSIX has them, since
// <thread>, <mutex> and <condition_variable> (with the <chrono>, <stop_token> and <semaphore>
// they bring in C++20) cost every unit about 0.1 s of compile time; the standard ones
// elsewhere, or with LOOM_SYNC_STD defined.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_SYNC_HPP
#define LOOM_CORE_SYNC_HPP

#include <atomic>
#include <memory>
#include <utility>

#if !defined(LOOM_SYNC_STD) && (defined(__unix__) || defined(__APPLE__))
#  define LOOM_SYNC_POSIX 1
#  include <system_error>

#  include <pthread.h>
#  include <unistd.h>
#else
#  define LOOM_SYNC_POSIX 0
#  include <condition_variable>
#  include <mutex>
#  include <thread>
#endif

namespace loom::detail {
// The two are distinct types (inline namespaces), so a test can build both; a program uses one.
#if LOOM_SYNC_POSIX
inline namespace posix_sync {

/// A non-recursive mutex.
class mutex {
 public:
  mutex() = default;
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;
  ~mutex() { pthread_mutex_destroy(&m_); }
  void lock() { pthread_mutex_lock(&m_); }
  bool try_lock() { return pthread_mutex_trylock(&m_) == 0; }
  void unlock() { pthread_mutex_unlock(&m_); }
  pthread_mutex_t* native() { return &m_; }

 private:
  pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

/// Threads waiting, with a mutex held, for a predicate another thread makes true.
class condition {
 public:
  condition() = default;
  condition(const condition&) = delete;
  condition& operator=(const condition&) = delete;
  ~condition() { pthread_cond_destroy(&c_); }
  void notify_one() { pthread_cond_signal(&c_); }
  void notify_all() { pthread_cond_broadcast(&c_); }
  /// Waits until `ready()`; `m` is held by the caller on entry and on return.
  template <class Ready> void wait(mutex& m, Ready&& ready) {
    while (!ready()) pthread_cond_wait(&c_, m.native());
  }

 private:
  pthread_cond_t c_ = PTHREAD_COND_INITIALIZER;
};

/// A thread that runs one callable and is joined by its destructor (as std::jthread is).
class thread {
 public:
  thread() = default;
  template <class F> explicit thread(F body) {
    auto owned = std::make_unique<F>(std::move(body));
    const int rc = pthread_create(&id_, nullptr, &start<F>, owned.get());
    if (rc != 0) throw std::system_error(rc, std::generic_category(), "loom: starting a thread");
    owned.release();  // the new thread owns it
    joinable_ = true;
  }
  thread(thread&& other) noexcept
      : id_(other.id_), joinable_(std::exchange(other.joinable_, false)) {}
  thread& operator=(thread&& other) noexcept {
    if (this != &other) {
      join();
      id_ = other.id_;
      joinable_ = std::exchange(other.joinable_, false);
    }
    return *this;
  }
  ~thread() { join(); }
  void join() {
    if (joinable_) pthread_join(id_, nullptr);
    joinable_ = false;
  }

 private:
  // an exception leaving the body ends the program, as it does from a std::thread's
  template <class F> static void* start(void* body) noexcept {
    const std::unique_ptr<F> owned(static_cast<F*>(body));
    (*owned)();
    return nullptr;
  }
  pthread_t id_{};
  bool joinable_ = false;
};

/// The number of hardware threads (at least 1).
inline unsigned hardware_threads() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}

#else
inline namespace std_sync {

class mutex {
 public:
  void lock() { m_.lock(); }
  bool try_lock() { return m_.try_lock(); }
  void unlock() { m_.unlock(); }
  std::mutex& native() { return m_; }

 private:
  std::mutex m_;
};

class condition {
 public:
  void notify_one() { c_.notify_one(); }
  void notify_all() { c_.notify_all(); }
  template <class Ready> void wait(mutex& m, Ready&& ready) {
    std::unique_lock<std::mutex> lock(m.native(), std::adopt_lock);
    c_.wait(lock, std::forward<Ready>(ready));
    lock.release();  // still held, by the caller
  }

 private:
  std::condition_variable c_;
};

class thread {
 public:
  thread() = default;
  template <class F> explicit thread(F body) : t_(std::move(body)) {}
  void join() {
    if (t_.joinable()) t_.join();
  }

 private:
  std::jthread t_;
};

inline unsigned hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1u;
}

#endif

/// Holds a mutex for its lifetime; `unlock` and `lock` release and retake it in between.
class scoped_lock {
 public:
  /// Tag: the mutex is already held (taken by `try_lock`); release it at the end of the scope.
  struct adopt_t {};
  static constexpr adopt_t adopt{};

  explicit scoped_lock(mutex& m) : m_(m) { m_.lock(); }
  scoped_lock(mutex& m, adopt_t) : m_(m) {}
  scoped_lock(const scoped_lock&) = delete;
  scoped_lock& operator=(const scoped_lock&) = delete;
  ~scoped_lock() {
    if (held_) m_.unlock();
  }
  void unlock() {
    m_.unlock();
    held_ = false;
  }
  void lock() {
    m_.lock();
    held_ = true;
  }

 private:
  mutex& m_;
  bool held_ = true;
};

/// Runs a callable once across threads (std::call_once's contract: a call that throws leaves
/// the flag unset, and the next caller runs it).
class once_flag {
 public:
  template <class F> void call(F&& body) {
    if (done_.load(std::memory_order_acquire)) return;
    const scoped_lock lock(m_);
    if (done_.load(std::memory_order_relaxed)) return;
    std::forward<F>(body)();
    done_.store(true, std::memory_order_release);
  }

 private:
  std::atomic<bool> done_{false};
  mutex m_;
};

}  // namespace posix_sync or std_sync
}  // namespace loom::detail

#endif  // LOOM_CORE_SYNC_HPP
