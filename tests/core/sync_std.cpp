// core/sync.hpp over the standard library's threads (LOOM_SYNC_STD, what platforms without
// POSIX threads get), in a unit of its own: the cases of sync_cases.hpp.
// SPDX-License-Identifier: BSL-1.0
#define LOOM_SYNC_STD
#include <doctest/doctest.h>

#include "sync_cases.hpp"

TEST_CASE("sync over std: a mutex makes increments from several threads exclusive") {
  sync_cases::mutex_excludes();
}
TEST_CASE("sync over std: a condition wakes a waiter once its predicate holds") {
  sync_cases::condition_wakes();
}
TEST_CASE("sync over std: a thread runs its body once, moves, and joins") {
  sync_cases::thread_runs_moves_joins();
}
TEST_CASE("sync over std: a once flag runs its body once, and again after a throw") {
  sync_cases::once_flag_runs_once();
}

static_assert(!LOOM_SYNC_POSIX, "LOOM_SYNC_STD selects the standard library's threads");
