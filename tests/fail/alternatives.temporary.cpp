// LOOM_EXPECT_ERROR: loom::alternatives holds references: pass tensors that outlive it
// An alternatives of a temporary tensor would point into freed storage: the error says so.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>

int main() {
  loom::tensor<double, loom::csr> a({3, 3});
  loom::tensor<double, loom::csc> b({3, 3});
#ifdef LOOM_EXPECT_OK
  const loom::alternatives both(a, b);
#else
  const loom::alternatives both(a, loom::tensor<double, loom::csc>({3, 3}));
#endif
  (void)b;
  return both.extent(0) == 3 ? 0 : 1;
}
