// A driver that links exactly one of loom's peer kernels (LOOM_BINSIZE_KERNEL, from
// kernels/<name>.cpp) or none, so that the size of binsize.<name> minus binsize.none is what the
// kernel adds to a program (tools/binary_size.py).
// SPDX-License-Identifier: BSL-1.0
#include <cstdio>

#include "kernels.hpp"

int main(int argc, char**) {
  using namespace loom_peers;
  if (argc < 0) return 1;  // never true, but unknown to the compiler: the call below stays
  [[maybe_unused]] csr_t A({4, 4}), B({4, 4}), C({4, 4});
  [[maybe_unused]] vec_t x({4}), y({4});
  [[maybe_unused]] mat_t U({4, 2}), V({4, 2}), M({4, 2});
  [[maybe_unused]] csf3_t T({4, 4, 4});
  double r = 0;
#if defined(LOOM_BINSIZE_spmv)
  spmv(A, x, y);
#elif defined(LOOM_BINSIZE_spgemm)
  spgemm(A, B, C);
#elif defined(LOOM_BINSIZE_add)
  add(A, B, C);
#elif defined(LOOM_BINSIZE_sddmm)
  sddmm(A, U, V, C);
#elif defined(LOOM_BINSIZE_mttkrp)
  mttkrp(T, U, V, M);
#elif defined(LOOM_BINSIZE_triangles)
  r = triangles(A);
#endif
  std::printf("%g\n", r);
  return 0;
}
