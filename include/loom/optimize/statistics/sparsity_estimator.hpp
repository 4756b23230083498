// Defines the loom::sparsity_estimator concept, the five-operation estimator interface
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_SPARSITY_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_STATISTICS_SPARSITY_ESTIMATOR_HPP

#include <loom/optimize/statistics/index_extent.hpp>
#include <loom/optimize/statistics/statistics.hpp>

#include <concepts>
#include <span>
#include <string>
#include <vector>

namespace loom {

/// A sparsity estimator (Galley's statistics interface), all at run time:
/// - construct from a tensor's `statistics` and one index name per mode (`E(s, {"i", "j"})`),
///   or `E::full(indices)` for a tensor without fill entries;
/// - `E::conjunction(args)`: pointwise op whose operands' fills annihilate it (product,
///   intersection); the result ranges over the union of the operands' indices;
/// - `E::disjunction(args)`: pointwise op whose fills do not annihilate it (sum, union);
/// - `e.aggregate(names)`: reduction over the named indices;
/// - `e.estimate()`: the estimated number of non-fill entries; `e.indices()` the index set.
/// Models: `loom::uniform_estimator`, `loom::chain_bound_estimator`.
template <class E>
concept sparsity_estimator =
    std::copy_constructible<E> &&
    requires(const E& e, std::span<const E> args, const std::vector<std::string>& names,
             const statistics& s, const index_set& indices) {
      E(s, names);
      { E::full(indices) } -> std::same_as<E>;
      { E::conjunction(args) } -> std::same_as<E>;
      { E::disjunction(args) } -> std::same_as<E>;
      { e.aggregate(names) } -> std::same_as<E>;
      { e.estimate() } -> std::convertible_to<double>;
      { e.indices() } -> std::convertible_to<const index_set&>;
    };

}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_SPARSITY_ESTIMATOR_HPP
