// LOOM_EXPECT_ERROR: loom::order: list every index of the assignment exactly once
// loom::order must name every index of the assignment (here k, the summed one, is missing).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  loom::tensor<double, loom::csr> A({3, 3}), B({3, 3}), C({3, 3});
#ifdef LOOM_EXPECT_OK
  C(i, j) = loom::order<i, k, j>(loom::sum(k, A(i, k) * B(k, j)));
#else
  C(i, j) = loom::order<i, j>(loom::sum(k, A(i, k) * B(k, j)));
#endif
}
