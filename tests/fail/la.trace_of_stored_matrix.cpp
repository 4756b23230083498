// LOOM_EXPECT_ERROR: loom::la: trace/diag of a stored matrix reads A\(i, i\)
// trace(A) of a stored matrix needs the access A(i, i), which loom does not support yet; the error
// says so and points to traces of products, which work (LOOM_EXPECT_OK).
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/la/nodes.hpp>
#include <loom/la/translate.hpp>

int main() {
  loom::tensor<double, loom::dense_matrix> A({3, 3}), B({3, 3});
#ifdef LOOM_EXPECT_OK
  const auto e = loom::la::trace(loom::la::mat(A) * loom::la::mat(B));
#else
  const auto e = loom::la::trace(loom::la::mat(A));
#endif
  const auto kernel = loom::la::to_index_notation(e);
  (void)kernel;
  return 0;
}
