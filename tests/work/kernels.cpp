// Complexity guards without timings: the work counters of a LOOM_WORK_COUNTERS build
// (core/work_counters.hpp) on inputs of growing size. SpMV walks exactly its stored entries, and
// y = (A + B) x the entries of each matrix once (two SpMVs);
// SpGEMM's work stays within a constant of its flops; the triangle query on the skewed
// instance is linear (a worst-case-optimal join, where any pairwise plan is quadratic); and the
// kernel the evaluator runs (rules, costed hoisting) never does more work than the kernel as
// written. SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../support/random.hpp"
#include "support.hpp"

using namespace loom::test::work;

static_assert(loom::counts_work,
              "tests/work is built with LOOM_WORK_COUNTERS (tests/CMakeLists.txt)");

TEST_CASE("work: SpMV steps through exactly rows + nnz and probes x once per entry") {
  for (std::int64_t n : {100, 1000, 5000}) {
    const auto A = rows_of(n, n, 7, 1);
    const auto x =
        loom::test::random_tensor<double, loom::dense_vector>({n}, loom::test::density::full, 2);
    loom::tensor<double, loom::dense_vector> y({n});
    y(i) = loom::sum(j, A(i, j) * x(j));  // first call: the plan and statistics are cached
    const auto w = work_of([&] { y(i) = loom::sum(j, A(i, j) * x(j)); });
    CHECK(w.steps == static_cast<std::uint64_t>(n + A.nnz()));
    CHECK(w.probes == static_cast<std::uint64_t>(A.nnz()));
    CHECK(w.seeks <= 2 * static_cast<std::uint64_t>(
                             loom::current_parallel_options().threads));  // chunk starts
    loom::set_num_threads(1);
    CHECK(work_of([&] { y(i) = loom::sum(j, A(i, j) * x(j)); }).total() == w.total() - w.seeks);
    loom::set_num_threads(0);
    CHECK(w.writes == static_cast<std::uint64_t>(n));
  }
}

TEST_CASE("work: y = (A + B) x walks each matrix once, as two SpMVs do") {
  for (std::int64_t n : {100, 1000}) {
    const auto A = rows_of(n, n, 7, 3), B = rows_of(n, n, 5, 4);
    const auto x =
        loom::test::random_tensor<double, loom::dense_vector>({n}, loom::test::density::full, 2);
    loom::tensor<double, loom::dense_vector> y({n});
    loom::set_num_threads(1);
    y(i) = loom::sum(j, (A(i, j) + B(i, j)) * x(j));  // first call: plans and statistics cached
    const auto w = work_of([&] { y(i) = loom::sum(j, (A(i, j) + B(i, j)) * x(j)); });
    const auto one = work_of([&] { y(i) = loom::sum(j, A(i, j) * x(j)); });
    const auto two = work_of([&] { y(i) = loom::sum(j, B(i, j) * x(j)); });
    loom::set_num_threads(0);
    CHECK(w.steps == static_cast<std::uint64_t>(2 * n + A.nnz() + B.nnz()));
    CHECK(w.probes == static_cast<std::uint64_t>(A.nnz() + B.nnz()));
    CHECK(w.total() == one.total() + two.total());
  }
}

TEST_CASE("work: SpGEMM within a constant of its flops, at every size") {
  double lowest = 1e300, highest = 0;
  for (std::int64_t n : {200, 800, 3200}) {
    const auto A = rows_of(n, n, 6, 3), B = rows_of(n, n, 6, 4);
    std::int64_t flops = 0;  // Σ over A's entries (i,k) of the length of B's row k
    const auto& a_crd = A.level<1>().crd;
    const auto& b_pos = B.level<1>().pos;
    for (auto c : a_crd) flops += static_cast<std::int64_t>(b_pos[c + 1] - b_pos[c]);
    loom::tensor<double, loom::csr> C({n, n});
    const auto w = work_of([&] { C(i, j) = loom::sum(k, A(i, k) * B(k, j)); });
    const double per_flop =
        static_cast<double>(w.total()) / static_cast<double>(flops + A.nnz() + n);
    INFO("n = " << n << ", work " << w.total() << ", flops " << flops);
    CHECK(per_flop <= 6.0);
    lowest = std::min(lowest, per_flop);
    highest = std::max(highest, per_flop);
  }
  CHECK(highest <= 1.25 * lowest);  // linear in the flops, not in n² or flops·log
}

TEST_CASE("work: the triangle query on the skewed instance is linear in n") {
  // R = S = T = {(0,x), (x,0)}: every pairwise join has n² intermediate tuples
  std::vector<double> per_n;
  for (std::int64_t n : {1000, 4000, 16000}) {
    std::vector<std::array<std::int64_t, 2>> crd;
    for (std::int64_t x = 1; x <= n; ++x) {
      crd.push_back({0, x});
      crd.push_back({x, 0});
    }
    const auto R =
        loom::from_coo<loom::csf<2>>({n + 1, n + 1}, crd, std::vector<std::int64_t>(crd.size(), 1));
    loom::reset_work_counters();
    const std::int64_t count = loom::eval(loom::sum(i, j, k, R(i, j) * R(j, k) * R(i, k)));
    const auto w = loom::work_counters();
    CHECK(count == 0);  // no triangle: (0,x),(x,0),(0,0) needs the absent (0,0)
    per_n.push_back(static_cast<double>(w.total()) / static_cast<double>(n));
    INFO("n = " << n << ", work " << w.total());
    CHECK(per_n.back() <= 40.0);
  }
  CHECK(per_n.back() <= 1.25 * per_n.front());
}

TEST_CASE("work: the kernel the evaluator runs never does more work than the one written") {
  const std::int64_t n = 300;
  const auto A = rows_of(n, n, 8, 5), B = rows_of(n, n, 8, 6), D = rows_of(n, n, 4, 7);
  const auto x =
      loom::test::random_tensor<double, loom::dense_vector>({n}, loom::test::density::full, 8);
  const auto U =
      loom::test::random_tensor<double, loom::dense_matrix>({n, 16}, loom::test::density::full, 9);
  const auto V =
      loom::test::random_tensor<double, loom::dense_matrix>({n, 16}, loom::test::density::full, 10);
  std::vector<std::array<std::int64_t, 2>> few{{0, 0}, {7, 1}, {14, 2}};  // a filter on rows
  const auto F = loom::from_coo<loom::csr>({n, n}, few, std::vector<double>(few.size(), 2.0));
  loom::tensor<double, loom::dense_vector> y({n});
  loom::tensor<double, loom::csr> C({n, n});
  loom::tensor<double, loom::dense_matrix> M({n, n});
  loom::tensor<double, loom::dense_matrix> W({n, 16});
  loom::tensor<double, loom::format<>> scalar;
  loom::expr::access<decltype(scalar)> s{&scalar};
  rewritten_not_worse("SpMV", y, y(i), loom::sum(j, A(i, j) * x(j)));
  rewritten_not_worse("BATAx", y, y(j), loom::sum(i, loom::sum(k, 0.5 * A(i, j) * A(i, k) * x(k))));
  rewritten_not_worse("filtered BATAx", y, y(j),
                      loom::sum(i, F(i, j) * loom::sum(k, A(i, k) * x(k))));
  rewritten_not_worse("nested sum", y, y(i), loom::sum(j, A(i, j) * loom::sum(k, B(j, k))));
  // one kernel per term: each writes y once (docs/optimizer.md, "A sum of sums"), and x is
  // probed once per matrix where two of them share an entry (rewrite/: distribute_contracted)
  const auto rows = static_cast<std::uint64_t>(n);
  rewritten_not_worse("two sums", y, y(i), loom::sum(j, A(i, j)) + loom::sum(j, B(i, j)), rows);
  C(i, j) = A(i, j) + B(i, j) + D(i, j);
  const auto shared = static_cast<std::uint64_t>(A.nnz() + B.nnz() + D.nnz() - C.nnz());
  rewritten_not_worse("SpMV of a sum", y, y(i), loom::sum(j, (A(i, j) + B(i, j) + D(i, j)) * x(j)),
                      2 * rows + shared);
  rewritten_not_worse("SigmaMMM", scalar, s, loom::sum(i, j, loom::sum(k, A(i, k) * B(k, j))));
  rewritten_not_worse("chain", M, M(i, l), loom::sum(j, k, A(i, j) * B(j, k) * D(k, l)));
  rewritten_not_worse("SpGEMM + D", C, C(i, j), loom::sum(k, A(i, k) * B(k, j)) + D(i, j));
  rewritten_not_worse("add", C, C(i, j), A(i, j) + B(i, j));
  rewritten_not_worse("A∘B", C, C(i, j), A(i, j) * B(i, j));
  rewritten_not_worse("SDDMM", C, C(i, j), loom::sum(k, A(i, j) * U(i, k) * V(j, k)));
  rewritten_not_worse("SpMM", W, W(i, k), loom::sum(j, A(i, j) * U(j, k)));
  rewritten_not_worse("product of sums", scalar, s, loom::sum(i, x(i)) * loom::sum(j, x(j)));
}

TEST_CASE("work: csr x csc SpGEMM costs csr x csr plus one transpose, and the copy is kept") {
  for (std::int64_t n : {400, 1600}) {
    const auto A = rows_of(n, n, 6, 11), B = rows_of(n, n, 6, 12);
    const loom::tensor<double, loom::csc> Bc(B);
    loom::tensor<double, loom::csr> C({n, n});
    const auto rowwise = work_of([&] { C(i, j) = loom::sum(k, A(i, k) * B(k, j)); });
    const auto first = work_of([&] { C(i, j) = loom::sum(k, A(i, k) * Bc(k, j)); });
    const auto again = work_of([&] { C(i, j) = loom::sum(k, A(i, k) * Bc(k, j)); });
    INFO("n = " << n << ": csr x csr " << rowwise.total() << ", csr x csc " << first.total()
                << " then " << again.total());
    CHECK(first.total() <= rowwise.total() + static_cast<std::uint64_t>(Bc.nnz()) + 16);
    CHECK(again.total() + static_cast<std::uint64_t>(Bc.nnz()) == first.total());  // no copy
  }
}
