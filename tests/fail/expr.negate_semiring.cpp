// LOOM_EXPECT_ERROR: loom: unary - needs an arithmetic value type
// Negation exists only in arithmetic semirings.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"i"> i;
#ifdef LOOM_EXPECT_OK
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
#else
  loom::tensor<loom::min_plus<double>, loom::dense_vector> x({3}), y({3});
#endif
  y(i) = -x(i);
}
