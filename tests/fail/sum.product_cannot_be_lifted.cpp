// LOOM_EXPECT_ERROR: product_of_sums_over_the_same_index_cannot_be_lifted<loom::diag::name<'i', 'i'>
// Two sums over the same index whose results still depend on a later index cannot be fused
// into one loop (the indexed-streams paper). The planner orders such a product's free index first when it
// can; here the two terms ask for opposite orders of ii and j, so one product cannot be lifted.
// Renaming the indices of one term fixes it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"ii"> ii;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"i2"> i2;
  constexpr loom::index<"j2"> j2;
  loom::tensor<double, loom::csr> A({3, 3}), B({3, 3}), C({3, 3}), D({3, 3});
  const auto first = loom::sum(j, loom::sum(ii, A(ii, j)) * loom::sum(ii, B(ii, j)));
#ifdef LOOM_EXPECT_OK
  const auto second = loom::sum(i2, loom::sum(j2, C(i2, j2)) * loom::sum(j2, D(i2, j2)));
#else
  const auto second = loom::sum(ii, loom::sum(j, C(ii, j)) * loom::sum(j, D(ii, j)));
#endif
  return static_cast<int>(loom::eval(first + second));
}
