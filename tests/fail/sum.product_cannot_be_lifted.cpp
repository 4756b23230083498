// LOOM_EXPECT_ERROR: product_of_sums_over_the_same_index_cannot_be_lifted<loom::diag::name<'i', 'i'>
// Two sums over the same index whose results still depend on a later index cannot be fused
// into one loop (notes 002 §4.10); renaming one summation index fixes it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"ii"> ii;
  constexpr loom::index<"i2"> i2;
  constexpr loom::index<"j"> j;
  loom::tensor<double, loom::csr> A({3, 3}), B({3, 3});
  loom::tensor<double, loom::dense_vector> y({3});
#ifdef LOOM_EXPECT_OK
  y(j) = loom::sum(ii, A(ii, j)) * loom::sum(i2, B(i2, j));
#else
  y(j) = loom::sum(ii, A(ii, j)) * loom::sum(ii, B(ii, j));
#endif
}
