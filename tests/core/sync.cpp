// core/sync.hpp over the platform's threads (POSIX threads on Linux): a mutex excludes, a
// condition wakes, a thread runs once and joins, a once flag runs once (again after a throw).
// The cases are in sync_cases.hpp; sync_std.cpp runs them over the standard library's threads.
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include "sync_cases.hpp"

TEST_CASE("sync: a mutex makes increments from several threads exclusive") {
  sync_cases::mutex_excludes();
}
TEST_CASE("sync: a condition wakes a waiter once its predicate holds") {
  sync_cases::condition_wakes();
}
TEST_CASE("sync: a thread runs its body once, moves, and joins") {
  sync_cases::thread_runs_moves_joins();
}
TEST_CASE("sync: a once flag runs its body once, and again after a throw") {
  sync_cases::once_flag_runs_once();
}
