// loom's SpGEMM (Gustavson's loop order i, k, j) in its own translation unit (see kernels.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include "../kernels.hpp"

namespace loom_peers {
void spgemm(const csr_t& A, const csr_t& B, csr_t& C) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  C(i, j) = loom::sum(k, A(i, k) * B(k, j));
}
}  // namespace loom_peers
