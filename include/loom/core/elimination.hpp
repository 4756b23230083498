// Defines loom::detail::greedy_elimination: variable elimination's greedy order over factors
// given as sets of index ids (core/). decompose orders its candidates with it at compile time
// (cost: the intermediate's arity) and la its dense contractions at run time (cost: the points
// a contraction visits); docs/architecture.md.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_ELIMINATION_HPP
#define LOOM_CORE_ELIMINATION_HPP

#include <loom/core/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace loom::detail {

/// A set of index ids below 64, one bit per id.
using id_set = std::uint64_t;
/// The most factors `greedy_elimination` takes.
inline constexpr std::size_t max_elimination_factors = 64;

/// Eliminates the `n` ids of `summed` one at a time and writes the order to `order`: each step
/// the summed id whose `cost(span, id)` is least (the first such in `summed`), where `span` is
/// the union of the factors that use it (0 when none does); those factors become one factor over
/// `span` without the id. `factors` holds `count` index sets (at most max_elimination_factors).
template <class Cost>
constexpr void greedy_elimination(const id_set* factors, std::size_t count,
                                  const std::size_t* summed, std::size_t n, std::size_t* order,
                                  Cost&& cost) {
  if (count > max_elimination_factors)
    throw error("loom: variable elimination takes at most 64 factors, given " +
                std::to_string(count));
  std::array<id_set, max_elimination_factors + 1> live{};
  for (std::size_t f = 0; f < count; ++f) live[f] = factors[f];
  for (std::size_t c = 0; c < n; ++c)
    if (summed[c] >= 64)
      throw error("loom: variable elimination takes index ids below 64, given " +
                  std::to_string(summed[c]));
  std::array<bool, 64> done{};
  for (std::size_t t = 0; t < n; ++t) {
    std::size_t best = n;
    id_set best_span = 0;
    decltype(cost(id_set{}, std::size_t{})) best_cost{};
    for (std::size_t c = 0; c < n; ++c) {
      if (done[c]) continue;
      const id_set bit = id_set{1} << summed[c];
      id_set span = 0;
      for (std::size_t f = 0; f < count; ++f)
        if (live[f] & bit) span |= live[f];
      const auto c_cost = cost(span, summed[c]);
      if (best == n || c_cost < best_cost) best = c, best_cost = c_cost, best_span = span;
    }
    done[best] = true;
    order[t] = summed[best];
    const id_set bit = id_set{1} << summed[best];
    if (best_span == 0) continue;  // used by no factor: nothing to merge
    std::size_t kept = 0;
    for (std::size_t f = 0; f < count; ++f)
      if (!(live[f] & bit)) live[kept++] = live[f];
    live[kept++] = best_span & ~bit;
    count = kept;
  }
}

/// How many ids an index set holds.
constexpr std::size_t index_count(id_set s) {
  std::size_t k = 0;
  for (; s != 0; s &= s - 1) ++k;
  return k;
}

}  // namespace loom::detail

#endif  // LOOM_CORE_ELIMINATION_HPP
