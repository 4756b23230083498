// LOOM_EXPECT_ERROR: tensor_order_and_index_count<2, 1>::agree
// An access gives one index per mode: one index to a matrix is one static_assert that names
// the order (2) and the count (1), and no further error from the assignment around it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  loom::tensor<double, loom::csr> A({3, 3});
  loom::tensor<double, loom::dense_vector> y({3});
#ifdef LOOM_EXPECT_OK
  y(i) = loom::sum(j, A(i, j));
#else
  y(i) = A(i);
#endif
}
