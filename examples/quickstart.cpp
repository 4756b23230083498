// loom quick start: SpMV and SpGEMM written in index notation, on a real matrix and on a
// generated one with a million nonzeros, each timed against a hand-written loop.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "support/hand_written.hpp"

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

void demo(const std::string& title, loom::tensor<double, loom::csr>& A) {
  const auto [m, n] = A.shape();
  std::printf("\n== %s: %lld x %lld, %lld nonzeros\n", title.c_str(), (long long)m, (long long)n,
              (long long)A.nnz());
  A.set_name("A");

  // SpMV: one fused loop nest over A's rows and nonzeros.
  loom::tensor<double, loom::dense_vector> x({n}), y({m});
  for (std::int64_t c = 0; c < n; ++c) x.at(c) = 1.0 + static_cast<double>(c % 7);
  x.set_name("x");
  y.set_name("y");
  std::printf("%s", loom::explain(y(i), loom::sum(j, A(i, j) * x(j))).c_str());
  std::vector<double> y_hand(static_cast<std::size_t>(m));
  const auto [loom_spmv, hand_spmv] = example::median_ms(  // timed in turn, medians
      7, [&] { y(i) = loom::sum(j, A(i, j) * x(j)); },
      [&] { example::spmv(A, x.values().data(), y_hand.data()); });
  double err = 0;
  for (std::int64_t r = 0; r < m; ++r) err = std::max(err, std::abs(y.at(r) - y_hand[r]));
  std::printf("SpMV   loom %8.3f ms   hand-written %8.3f ms   ratio %.2f   max |diff| %.1e\n",
              loom_spmv, hand_spmv, loom_spmv / hand_spmv, err);

  // SpGEMM: C = A A, assembled as CSR.
  loom::tensor<double, loom::csr> C({m, n});
  C.set_name("C");
  // the first run, with the plan and what it measured (estimated vs actual entries, time per phase)
  std::printf("%s", loom::explain_analyze(C(i, j), loom::sum(k, A(i, k) * A(k, j))).c_str());
  // C keeps its arrays between calls, as the hand loop keeps its vectors; "fresh" builds a new C
  std::vector<std::int64_t> cpos;
  std::vector<std::int32_t> ccrd;
  std::vector<double> cval;
  const auto [loom_spgemm, loom_fresh, hand_spgemm] = example::median_ms(
      5, [&] { C(i, j) = loom::sum(k, A(i, k) * A(k, j)); },
      [&] {
        loom::tensor<double, loom::csr> D(C.shape());
        D(i, j) = loom::sum(k, A(i, k) * A(k, j));
      },
      [&] { example::spgemm(A, A, cpos, ccrd, cval); });
  const bool same = C.nnz() == static_cast<std::int64_t>(cval.size()) &&
                    std::equal(ccrd.begin(), ccrd.end(), C.level<1>().crd.begin());
  std::printf(
      "SpGEMM loom %8.3f ms   hand-written %8.3f ms   ratio %.2f (fresh output %.2f)   nnz(C) %lld "
      "%s\n",
      loom_spgemm, hand_spgemm, loom_spgemm / hand_spgemm, loom_fresh / hand_spgemm,
      (long long)C.nnz(), same ? "(same pattern)" : "(PATTERN DIFFERS)");
  if (!same || err > 1e-9) throw std::runtime_error("loom and the hand-written loop disagree");
}

// usage: example.quickstart [matrix.mtx]; without an argument it reads the repository's
// data/matrices/bcsstk13.mtx, relative to the current directory (tools/quickstart.sh and ctest
// run it from the repository root).
int main(int argc, char** argv) {
  loom::set_num_threads(1);  // the hand-written loops are serial: compare like with like
  const std::string path = argc > 1 ? argv[1] : "data/matrices/bcsstk13.mtx";
  try {
    auto A = loom::read_matrix_market<double, loom::csr>(path);
    demo(path, A);
    // 1M nonzeros, fixed seed (100K in the test suite's smoke run, LOOM_EXAMPLE_SMOKE)
    auto G = example::random_csr(example::smoke_run() ? 20000 : 200000, 5, 42);
    demo("generated uniform matrix", G);
  } catch (const loom::error& e) {  // a missing or malformed file: loom's message, not an abort
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    if (argc <= 1)
      std::fprintf(stderr,
                   "quickstart: run it from the repository root, or give a file: "
                   "example.quickstart path/to/matrix.mtx\n");
    return 1;
  } catch (const std::exception& e) {  // loom and the hand-written loop disagree
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return 1;
  }
}
