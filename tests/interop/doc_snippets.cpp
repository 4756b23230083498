// The Eigen blocks of README.md and docs/interop.md, compiled and run (tools/check_readme.py
// checks that the docs quote these lines).
// SPDX-License-Identifier: BSL-1.0
#include <loom/interop/eigen.hpp>
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

template <class Sparse> Sparse three_by_three() {  // [1 0 0; 0 0 2; 0 3 0]
  std::vector<Eigen::Triplet<double>> t{{0, 0, 1.0}, {1, 2, 2.0}, {2, 1, 3.0}};
  Sparse m(3, 3);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}
}  // namespace

TEST_CASE("README: SpMV over Eigen's arrays, y written in place") {
  Eigen::SparseMatrix<double> A = three_by_three<Eigen::SparseMatrix<double>>();
  Eigen::VectorXd x(3), y(A.rows());
  x << 1, 2, 3;
  auto Av = loom::eigen_view(A);
  auto xv = loom::eigen_view(x);
  auto yv = loom::eigen_view(y);
  yv(i) = loom::sum(j, Av(i, j) * xv(j));  // y's storage is written in place
  CHECK(y(0) == 1);
  CHECK(y(1) == 6);
  CHECK(y(2) == 6);
}

TEST_CASE("docs/interop.md: SpGEMM of row-major sparse views into an Eigen matrix") {
  using sparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  sparse A = three_by_three<sparse>(), B = three_by_three<sparse>();
  Eigen::MatrixXd C(A.rows(), B.cols());
  const auto Av = loom::eigen_view(A);
  const auto Bv = loom::eigen_view(B);
  auto Cv = loom::eigen_view(C);
  Cv(i, j) = loom::sum(k, Av(i, k) * Bv(k, j));  // writes C's own storage
  const Eigen::MatrixXd want = Eigen::MatrixXd(A) * Eigen::MatrixXd(B);
  CHECK((C - want).norm() == 0);
}
