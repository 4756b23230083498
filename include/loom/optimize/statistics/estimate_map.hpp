// Defines loom::estimate_map: the join/union/mixed dispatch for a pointwise op
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_ESTIMATE_MAP_HPP
#define LOOM_OPTIMIZE_STATISTICS_ESTIMATE_MAP_HPP

#include <loom/core/error.hpp>
#include <loom/optimize/statistics/index_extent.hpp>
#include <loom/optimize/statistics/sparsity_estimator.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace loom {

/// The estimate of a pointwise op `op(args...)`, where `fill_annihilates[k]` says whether
/// operand k's fill value annihilates `op` (for `*` with fill 0: true; for `+`: false).
/// Galley's dispatch (Galley): operands without indices (scalars) are skipped; all
/// join-like -> conjunction; all union-like -> disjunction; mixed -> conjunction of the join-like
/// operands only (the others can add non-fills only where a join-like one is non-fill),
/// broadcast over the indices that only the union-like operands have.
template <sparsity_estimator E>
E estimate_map(std::span<const E> args, std::span<const bool> fill_annihilates) {
  if (args.size() != fill_annihilates.size())
    throw error("loom::estimate_map: " + std::to_string(args.size()) + " operands but " +
                std::to_string(fill_annihilates.size()) +
                " annihilation flags; give one per operand");
  std::vector<E> join, all;
  index_set every;
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k].indices().empty()) continue;
    all.push_back(args[k]);
    every = detail::index_union(every, args[k].indices(), "loom::estimate_map");
    if (fill_annihilates[k]) join.push_back(args[k]);
  }
  if (all.empty()) return E::conjunction(args);
  if (join.empty()) return E::disjunction(std::span<const E>(all));
  if (join.size() == all.size()) return E::conjunction(std::span<const E>(all));
  index_set covered;
  for (const E& j : join) covered = detail::index_union(covered, j.indices(), "loom::estimate_map");
  std::vector<std::string> names;
  for (const index_extent& x : covered) names.push_back(x.name);
  const index_set extra = detail::index_filter(every, names, false);
  if (!extra.empty()) join.push_back(E::full(extra));
  return E::conjunction(std::span<const E>(join));
}

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_ESTIMATE_MAP_HPP
