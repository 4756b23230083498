// LOOM_EXPECT_ERROR: output_index_not_bound_by_any_input<loom::diag::name<'j', 'j'>
// An output index that no input uses cannot be computed: the error names the index.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"jj"> jj;
  constexpr loom::index<"k"> k;
  loom::tensor<double, loom::csr> A({3, 3}), B({3, 3}), C({3, 3});
#ifdef LOOM_EXPECT_OK
  C(i, jj) = loom::sum(k, A(i, k) * B(k, jj));
#else
  C(i, jj) = loom::sum(k, A(i, k) * B(k, i));
#endif
}
