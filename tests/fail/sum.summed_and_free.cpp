// LOOM_EXPECT_ERROR: index_both_summed_and_free_in_one_scope<loom::diag::name<'j', 'j'>
// An index summed in one factor and free in the other is ambiguous; loom asks for a rename.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"jj"> jj;
  constexpr loom::index<"k"> k;
  loom::tensor<double, loom::csr> A({3, 3});
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
#ifdef LOOM_EXPECT_OK
  y(i) = loom::sum(jj, loom::sum(k, A(i, k)) * x(jj));
#else
  y(i) = loom::sum(jj, loom::sum(jj, A(i, jj)) * x(jj));
#endif
}
