// The program of docs/tutorial.md, step by step: read a Matrix Market file, SpMV, SpGEMM, a fused
// kernel of your own (SDDMM), its plan, the options, and the result written back to a file.
// Run from the repository root, or give a .mtx file: example.tutorial [matrix.mtx]
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "data/matrices/bcsstk13.mtx";

  // Step 1: read a matrix into CSR (a symmetric file is mirrored: A holds both triangles).
  auto A = loom::read_matrix_market<double, loom::csr>(path);
  A.set_name("A");
  const auto [m, n] = A.shape();
  std::printf("%s: %lld x %lld, %lld stored\n", path.c_str(), (long long)m, (long long)n,
              (long long)A.nnz());

  // Step 2: index variables name the modes; an assignment is one fused loop nest.
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  loom::tensor<double, loom::dense_vector> x({n}), y({m});
  for (std::int64_t c = 0; c < n; ++c) x.at(c) = 1.0;
  y(i) = loom::sum(j, A(i, j) * x(j));  // SpMV: y = A x, the row sums of A here

  // Step 3: a sparse output. C = A A is assembled as CSR.
  loom::tensor<double, loom::csr> C({m, n});
  C(i, j) = loom::sum(k, A(i, k) * A(k, j));
  std::printf("SpMV: y(0) = %g; SpGEMM: nnz(A A) = %lld\n", y.at(0), (long long)C.nnz());

  // Step 4: your own kernel. SDDMM scales each stored A(i, j) by the dot product of row i of U
  // and row j of V, computed only where A has an entry: one loop nest, no dense m x n temporary.
  const std::int64_t rank = 8;
  loom::tensor<double, loom::dense_matrix> U({m, rank}), V({n, rank});
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < rank; ++c) U.at(r, c) = 1.0 / static_cast<double>(1 + r + c);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < rank; ++c) V.at(r, c) = 1.0;
  U.set_name("U"), V.set_name("V");
  loom::tensor<double, loom::csr> S({m, n});
  S.set_name("S");
  S(i, j) = A(i, j) * loom::sum(k, U(i, k) * V(j, k));

  // Step 5: the plan loom chose for it: loop order, how each operand is read, how S is written.
  std::printf("%s", loom::explain(S(i, j), A(i, j) * loom::sum(k, U(i, k) * V(j, k))).c_str());

  // Step 6: options. Two threads, and sums that do not depend on the thread count.
  loom::set_num_threads(2);
  loom::set_deterministic(true);
  const double total = loom::eval(loom::sum(i, j, S(i, j)));
  std::printf("sum of S: %.17g\n", total);

  // Step 7: write S, and read it back.
  const auto out = std::filesystem::temp_directory_path() / "loom_tutorial_S.mtx";
  loom::write_matrix_market(out.string(), S, {.comment = "SDDMM of " + path});
  const auto back = loom::read_matrix_market<double, loom::csr>(out.string());
  std::printf("wrote %s: %lld entries\n", out.string().c_str(), (long long)back.nnz());
  std::filesystem::remove(out);

  // The checks CI runs: the numbers above agree with loops written by hand.
  double want = 0;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t p = A.level<1>().pos[r]; p < A.level<1>().pos[r + 1]; ++p) {
      double dot = 0;
      for (std::int64_t c = 0; c < rank; ++c) dot += U.at(r, c);
      want += A.values()[static_cast<std::size_t>(p)] * dot;
    }
  if (back.nnz() != A.nnz() || std::abs(total - want) > 1e-9 * std::abs(want)) {
    std::printf("tutorial: loom and the hand-written loop disagree\n");
    return 1;
  }
}
