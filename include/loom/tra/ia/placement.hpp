// Defines where a tuple lives: the partition function over the positions D (shared by the
// single-machine executor and the MPI transport, so both place tuples alike) (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_PLACEMENT_HPP
#define LOOM_TRA_IA_PLACEMENT_HPP

#include <loom/tra/relation.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace loom::tra::ia {

/// The site of `key` when partitioned on positions `d`: Π_D(key) linearised in its key box,
/// modulo the number of sites (a block-cyclic spread, balanced on full boxes). Tuples equal on
/// D land together, and two relations with equal bounds on D use the same function.
template <std::size_t K>
std::int64_t site_of(const key_array<K>& key, const key_array<K>& bounds,
                     std::span<const std::size_t> d, std::int64_t sites) {
  std::int64_t lin = 0;
  for (std::size_t p : d) lin = lin * bounds[p] + key[p];
  return sites <= 0 ? 0 : lin % sites;
}

/// How an input is placed before a plan runs.
enum class placement_kind { arbitrary, partitioned, replicated, single };

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_PLACEMENT_HPP
