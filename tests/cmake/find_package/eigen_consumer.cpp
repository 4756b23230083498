// loom::eigen_view from the installed package: y = A x over an Eigen::SparseMatrix and
// Eigen vectors, without a copy, checked against Eigen's own product.
// SPDX-License-Identifier: BSL-1.0
#include <loom/interop/eigen.hpp>
#include <loom/loom.hpp>

#include <cstdio>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  Eigen::SparseMatrix<double> A(3, 4);
  A.insert(0, 1) = 2.0;
  A.insert(2, 0) = -1.0;
  A.insert(2, 3) = 4.0;
  A.makeCompressed();
  Eigen::VectorXd x(4), y = Eigen::VectorXd::Zero(3);
  x << 1.0, 2.0, 3.0, 4.0;
  const auto Av = loom::eigen_view(A);
  const auto xv = loom::eigen_view(x);
  auto yv = loom::eigen_view(y);
  yv(i) = loom::sum(j, Av(i, j) * xv(j));
  const Eigen::VectorXd expected = A * x;
  std::printf("loom y = [%g %g %g], Eigen: [%g %g %g]\n", y(0), y(1), y(2), expected(0),
              expected(1), expected(2));
  return y.isApprox(expected) ? 0 : 1;
}
