// Umbrella header of parallel/: thread count and deterministic mode, the thread pool, the
// partition of outer loops and the parallel run loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PARALLEL_HPP
#define LOOM_PARALLEL_HPP

#include <loom/parallel/partition.hpp>
#include <loom/parallel/run.hpp>
#include <loom/parallel/settings.hpp>
#include <loom/parallel/thread_pool.hpp>

#endif  // LOOM_PARALLEL_HPP
