// Umbrella header of core/: index names, semirings, errors, configuration.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_HPP
#define LOOM_CORE_HPP

#include <loom/core/combinatorics.hpp>
#include <loom/core/config.hpp>
#include <loom/core/debug.hpp>
#include <loom/core/error.hpp>
#include <loom/core/fixed_string.hpp>
#include <loom/core/index.hpp>
#include <loom/core/plan_log.hpp>
#include <loom/core/progress.hpp>
#include <loom/core/semiring.hpp>
#include <loom/core/work_counters.hpp>

#endif  // LOOM_CORE_HPP
