// LOOM_EXPECT_ERROR: loom::tra::einsum: the operands' tile letters \(the last two of each\) must share exactly one letter
// An element-wise einsum ("ij,ij->ij") is not a product of matrix tiles; the error names the
// problem. The same operands in a transposed product compile (LOOM_EXPECT_OK).
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra/einsum.hpp>

int main() {
  loom::tra::relation<double, 2, 2> A({2, 2}, {2, 2});
#ifdef LOOM_EXPECT_OK
  const auto C = loom::tra::einsum<"ij,kj->ik">(A, A);
#else
  const auto C = loom::tra::einsum<"ij,ij->ij">(A, A);
#endif
  (void)C;
  return 0;
}
