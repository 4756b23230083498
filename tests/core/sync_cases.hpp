// The cases of core/sync.hpp's tests, as functions: sync.cpp runs them over the platform's
// threads (POSIX threads on Linux), sync_std.cpp over the standard library's (LOOM_SYNC_STD).
// Internal linkage: the two units' loom::detail types differ.
// SPDX-License-Identifier: BSL-1.0
#pragma once

#include <loom/core/sync.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sync_cases {
namespace {

// a mutex makes increments from several threads exclusive
inline void mutex_excludes() {
  loom::detail::mutex m;
  long counter = 0;  // not atomic: only the mutex keeps the count right
  {
    std::vector<loom::detail::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 20000; ++k) {
          const loom::detail::scoped_lock lock(m);
          ++counter;
        }
      });
  }  // joined here, by the threads' destructors
  CHECK(counter == 80000);
  CHECK(m.try_lock());
  CHECK_FALSE(m.try_lock());  // held, and not recursive
  {
    const loom::detail::scoped_lock adopted(m, loom::detail::scoped_lock::adopt);
    CHECK_FALSE(m.try_lock());  // adopting does not lock again
  }
  CHECK(m.try_lock());  // the adopting lock released it
  m.unlock();
}

// a condition wakes a waiter once its predicate holds
inline void condition_wakes() {
  loom::detail::mutex m;
  loom::detail::condition ready;
  int stage = 0;
  loom::detail::thread worker([&] {
    loom::detail::scoped_lock lock(m);
    ready.wait(m, [&] { return stage == 1; });
    stage = 2;
    lock.unlock();
    ready.notify_all();
  });
  {
    const loom::detail::scoped_lock lock(m);
    stage = 1;
  }
  ready.notify_all();
  {
    const loom::detail::scoped_lock lock(m);
    ready.wait(m, [&] { return stage == 2; });
    CHECK(stage == 2);
  }
  worker.join();
  worker.join();  // a second join does nothing
}

// a thread runs its body once, moves, and joins
inline void thread_runs_moves_joins() {
  std::atomic<int> runs{0};
  loom::detail::thread a([&] { runs.fetch_add(1); });
  loom::detail::thread b(std::move(a));
  a.join();  // moved from: nothing to join
  b.join();
  CHECK(runs.load() == 1);
  loom::detail::thread c;  // default: nothing runs, nothing to join
  c = loom::detail::thread([&] { runs.fetch_add(10); });
  c.join();
  CHECK(runs.load() == 11);
}

// a once flag runs its body once, and again after a throw
inline void once_flag_runs_once() {
  loom::detail::once_flag once;
  std::atomic<int> runs{0};
  CHECK_THROWS_AS(once.call([&] {
    runs.fetch_add(1);
    throw std::runtime_error("first attempt");
  }),
                  std::runtime_error);
  {
    std::vector<loom::detail::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 100; ++k) once.call([&] { runs.fetch_add(1); });
      });
  }
  CHECK(runs.load() == 2);  // the throwing call and one successful call
  CHECK(loom::detail::hardware_threads() >= 1);
}

}  // namespace
}  // namespace sync_cases
