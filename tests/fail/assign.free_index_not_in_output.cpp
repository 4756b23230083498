// LOOM_EXPECT_ERROR: index_is_free_on_the_right_but_not_on_the_left_sum_over_it<loom::diag::name<'j', 'j'>
// A free index on the right must appear on the left, or be summed with loom::sum.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"jj"> jj;
  loom::tensor<double, loom::csr> A({3, 3});
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
#ifdef LOOM_EXPECT_OK
  y(i) = loom::sum(jj, A(i, jj) * x(jj));
#else
  y(i) = A(i, jj) * x(jj);
#endif
}
