// loom's SDDMM in its own translation unit (see kernels.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include "../kernels.hpp"

namespace loom_peers {
void sddmm(const csr_t& S, const mat_t& U, const mat_t& V, csr_t& C) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k));
}
}  // namespace loom_peers
