// LOOM_EXPECT_ERROR: index_used_with_two_different_static_extents<loom::diag::name<'i', 'i'>
// Fixed-extent dense levels must agree on every index that they share.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

int main() {
  constexpr loom::index<"ii"> ii;
  using three = loom::format<loom::dense_level<3>>;
  loom::tensor<double, three> x({3}), y({3});
#ifdef LOOM_EXPECT_OK
  loom::tensor<double, three> z({3});
#else
  loom::tensor<double, loom::format<loom::dense_level<4>>> z({4});
#endif
  y(ii) = x(ii) * z(ii);
}
