// Tests loom::matrix_chain: the elimination order of Galley T9, skew-driven choices, and
// every order's result against a dense reference.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_sparse.hpp"

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;

loom::tensor<double, loom::csr> filled(std::int64_t rows, std::int64_t cols) {
  coords2 c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t q = 0; q < cols; ++q) {
      c.push_back({r, q});
      v.push_back(1.0 + static_cast<double>((r + 2 * q) % 5));
    }
  return loom::from_coo<loom::csr>({rows, cols}, c, v);
}

using loom_test::random_sparse;

// Non-zeros only in column `col`.
loom::tensor<double, loom::csr> one_column(std::int64_t rows, std::int64_t cols, std::int64_t col) {
  coords2 c;
  for (std::int64_t r = 0; r < rows; r += 3) c.push_back({r, col});
  return loom::from_coo<loom::csr>({rows, cols}, c, std::vector<double>(c.size(), 2.0));
}

using dense = std::vector<std::vector<double>>;
template <class M> dense to_dense(const M& m) {
  dense d(static_cast<std::size_t>(m.extent(0)),
          std::vector<double>(static_cast<std::size_t>(m.extent(1))));
  for (std::int64_t r = 0; r < m.extent(0); ++r)
    for (std::int64_t q = 0; q < m.extent(1); ++q)
      d[static_cast<std::size_t>(r)][static_cast<std::size_t>(q)] = m.at(r, q);
  return d;
}
dense times(const dense& a, const dense& b) {
  dense c(a.size(), std::vector<double>(b[0].size(), 0.0));
  for (std::size_t r = 0; r < a.size(); ++r)
    for (std::size_t m = 0; m < b.size(); ++m)
      for (std::size_t q = 0; q < b[0].size(); ++q) c[r][q] += a[r][m] * b[m][q];
  return c;
}
}  // namespace

TEST_CASE("T9: the chain 10x100 * 100x5 * 5x50 eliminates j (A*B) first") {
  const auto A = filled(10, 100), B = filled(100, 5), C = filled(5, 50);
  for (const auto order : {loom::chain_order::optimized, loom::chain_order::greedy}) {
    const auto plan = loom::plan_matrix_chain(order, A, B, C);
    REQUIRE(plan.steps.size() == 2);
    CHECK(plan.steps[0].first == 0);
    CHECK(plan.steps[0].last == 1);
    CHECK(plan.steps[0].compute == doctest::Approx(5000));  // comp sizes of notes T9
    CHECK(plan.steps[1].compute == doctest::Approx(2500));
  }
  // the other order: B*C first costs 25 000 then 50 000 pointwise products
  const auto right = loom::plan_matrix_chain(loom::chain_order::left_to_right, B, C);
  CHECK(right.steps[0].compute == doctest::Approx(25000));
  CHECK(loom::plan_matrix_chain(loom::chain_order::optimized, A, B, C)
            .describe({"A", "B", "C"})
            .find("kernel 1: A * B") != std::string::npos);
}

TEST_CASE("a skewed last factor makes the optimized chain start from the right") {
  const auto A = random_sparse(200, 200, 0.05, 1), B = random_sparse(200, 200, 0.05, 2),
             C = random_sparse(200, 200, 0.05, 3);
  const auto D = one_column(200, 200, 17);
  const auto plan = loom::plan_matrix_chain(loom::chain_order::optimized, A, B, C, D);
  REQUIRE(plan.steps.size() == 3);
  CHECK(plan.steps[0].first == 2);  // C * D first
  CHECK(plan.steps[0].last == 3);
  const auto fixed = loom::plan_matrix_chain(loom::chain_order::left_to_right, A, B, C, D);
  CHECK(plan.cost < fixed.cost);
}

TEST_CASE("every order of matrix_chain gives the dense reference's product") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const auto A = random_sparse(13, 21, 0.2, seed), B = random_sparse(21, 8, 0.3, seed + 10),
               C = random_sparse(8, 17, 0.25, seed + 20), D = one_column(17, 11, 4);
    const loom::tensor<double, loom::csc> Bc(B);  // any format is accepted
    const dense expected = times(times(times(to_dense(A), to_dense(B)), to_dense(C)), to_dense(D));
    for (const auto order : {loom::chain_order::optimized, loom::chain_order::greedy,
                             loom::chain_order::left_to_right}) {
      const auto M = loom::matrix_chain(order, A, Bc, C, D);
      CHECK(to_dense(M) == expected);
    }
  }
}

TEST_CASE("matrix_chain names the factors whose extents disagree") {
  const auto A = filled(3, 4), B = filled(5, 2);
  CHECK_THROWS_WITH_AS(loom::matrix_chain(A, B),
                       "loom::matrix_chain: factor 0 has 4 columns but factor 1 has 5 rows",
                       loom::shape_error);
}

TEST_CASE("matrix_chain plans a repeated chain without reading its factors again") {
  auto A = random_sparse(40, 30, 0.2, 5);
  const auto B = random_sparse(30, 20, 0.2, 6);
  const loom::tensor<double, loom::dcsr> C(
      random_sparse(20, 25, 0.2, 7));  // converted to csr per call
  auto& stats = loom::detail::chain_statistics();
  const loom::tensor<double, loom::csr> first = loom::matrix_chain(A, B, C);
  const std::int64_t hits = stats.hits(), misses = stats.misses();
  const loom::tensor<double, loom::csr> again = loom::matrix_chain(A, B, C);
  CHECK(stats.hits() == hits + 3);
  CHECK(stats.misses() == misses);
  CHECK(again.nnz() == first.nnz());
  // A new A (other arrays): its statistics are gathered again, and the product follows it
  A = random_sparse(40, 30, 0.6, 8);
  const loom::tensor<double, loom::csr> changed = loom::matrix_chain(A, B, C);
  CHECK(stats.misses() == misses + 1);
  const loom::tensor<double, loom::csr> want =
      loom::matrix_chain(loom::chain_order::left_to_right, A, B, C);
  REQUIRE(changed.nnz() == want.nnz());
  for (std::int64_t r = 0; r < 40; ++r)
    for (std::int64_t q = 0; q < 25; ++q) CHECK(changed.at(r, q) == doctest::Approx(want.at(r, q)));
}
