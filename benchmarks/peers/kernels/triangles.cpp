// loom's triangle query (one fused kernel, loop order i, j, k) in its own translation unit
// (see kernels.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include "../kernels.hpp"

namespace loom_peers {
double triangles(const csr_t& A) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  return loom::eval(loom::sum(i, loom::sum(j, loom::sum(k, A(i, j) * A(j, k) * A(i, k)))));
}
}  // namespace loom_peers
