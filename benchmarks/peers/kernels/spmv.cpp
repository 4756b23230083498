// loom's SpMV in its own translation unit (see kernels.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include "../kernels.hpp"

namespace loom_peers {
void spmv(const csr_t& A, const vec_t& x, vec_t& y) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  y(i) = loom::sum(j, A(i, j) * x(j));
}
}  // namespace loom_peers
