// loom's MTTKRP in its own translation unit (see kernels.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include "../kernels.hpp"

namespace loom_peers {
void mttkrp(const csf3_t& T, const mat_t& B, const mat_t& C, mat_t& M) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  constexpr loom::index<"r"> r;
  M(i, r) = loom::sum(j, k, T(i, j, k) * B(j, r) * C(k, r));
}
}  // namespace loom_peers
