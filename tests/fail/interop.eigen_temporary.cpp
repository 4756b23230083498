// LOOM_EXPECT_ERROR: loom::eigen_view: the argument is a temporary Eigen object
// A view of a temporary Eigen matrix would point into freed storage: the error says to name it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/interop/eigen.hpp>

int main() {
  Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
#ifdef LOOM_EXPECT_OK
  const auto v = loom::eigen_view(x);
#else
  const auto v = loom::eigen_view(Eigen::VectorXd(x));
#endif
  return v.nnz() == 3 ? 0 : 1;
}
