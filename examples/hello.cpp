// The README's first example: y = A x with a sparse A, in index notation, and the plan loom chose.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cstdio>

int main() {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  // a 3 x 3 sparse matrix in CSR from (row, column) pairs and their values
  auto A = loom::from_coo<loom::csr, double>({3, 3}, {{0, 0}, {1, 2}, {2, 1}}, {1.0, 2.0, 3.0});
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  x.at(0) = 1, x.at(1) = 2, x.at(2) = 3;
  A.set_name("A"), x.set_name("x"), y.set_name("y");  // the names explain() prints
  y(i) = loom::sum(j, A(i, j) * x(j));                // one fused loop over A's rows and nonzeros
  std::printf("y = (%g, %g, %g)\n", y.at(0), y.at(1), y.at(2));
  std::printf("%s", loom::explain(y(i), loom::sum(j, A(i, j) * x(j))).c_str());
}
