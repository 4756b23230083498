// Umbrella header of optimize/: statistics, the statistics cache and the sparsity estimators.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_HPP
#define LOOM_OPTIMIZE_HPP

#include <loom/optimize/choice/output_format_choice.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/choice/skip_choice.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/optimize/statistics/chain_bound_estimator.hpp>
#include <loom/optimize/statistics/degree_constraint.hpp>
#include <loom/optimize/statistics/estimate_map.hpp>
#include <loom/optimize/statistics/gather_statistics.hpp>
#include <loom/optimize/statistics/index_extent.hpp>
#include <loom/optimize/statistics/sparsity_estimator.hpp>
#include <loom/optimize/statistics/statistics.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>
#include <loom/optimize/statistics/uniform_estimator.hpp>

#endif  // LOOM_OPTIMIZE_HPP
