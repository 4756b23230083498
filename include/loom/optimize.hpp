// Umbrella header of optimize/: statistics, the statistics cache and the sparsity estimators.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_HPP
#define LOOM_OPTIMIZE_HPP

#include <loom/optimize/chain_bound_estimator.hpp>
#include <loom/optimize/degree_constraint.hpp>
#include <loom/optimize/estimate_map.hpp>
#include <loom/optimize/gather_statistics.hpp>
#include <loom/optimize/index_extent.hpp>
#include <loom/optimize/leader_choice.hpp>
#include <loom/optimize/output_format_choice.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/optimize/sparsity_estimator.hpp>
#include <loom/optimize/statistics.hpp>
#include <loom/optimize/statistics_cache.hpp>
#include <loom/optimize/uniform_estimator.hpp>
#include <loom/optimize/workspace_choice.hpp>

#endif  // LOOM_OPTIMIZE_HPP
