// Transposition as a costed candidate: csr x csc SpGEMM, whose concordant order
// i, j, k walks every column for every row, runs Gustavson's i, k, j on a transposed copy of the
// csc operand, made once while it is unchanged; and loom::order fixes a loop order by hand.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

loom::tensor<double, loom::csr> random_rows(std::int64_t n, int per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::array<std::int64_t, 2>> crd;
  std::vector<double> v;
  for (std::int64_t r = 0; r < n; ++r)
    for (int e = 0; e < per_row; ++e) {
      crd.push_back({r, static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n))});
      v.push_back(static_cast<double>(rng() % 7) + 1);  // small integers: sums exact in any order
    }
  return loom::from_coo<loom::csr>({n, n}, crd, v, loom::duplicates::sum);
}

template <class X, class Y> void check_equal(const X& x, const Y& y, std::int64_t n) {
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < n; ++c) REQUIRE(x.at(r, c) == y.at(r, c));
}
}  // namespace

TEST_CASE("csr x csc SpGEMM transposes the csc operand when the costs say so") {
  for (std::uint64_t seed : {1u, 2u}) {
    const std::int64_t n = 300;
    const auto A = random_rows(n, 6, seed), B = random_rows(n, 6, seed + 10);
    const loom::tensor<double, loom::csc> Bc(B);
    loom::tensor<double, loom::csr> expected({n, n}), C({n, n});
    expected(i, j) = loom::sum(k, A(i, k) * B(k, j));
    const auto e = loom::sum(k, A(i, k) * Bc(k, j));
    const std::string plan = loom::explain(C(i, j), e);
    CAPTURE(plan);
    CHECK(plan.find("* #2 order i,k,j; transpose T1") != std::string::npos);
    CHECK(plan.find("the copy is kept for the next calls while T1 is unchanged") !=
          std::string::npos);
    C(i, j) = e;
    check_equal(C, expected, n);
    C(i, j) = e;  // the cached copy
    check_equal(C, expected, n);
  }
}

TEST_CASE("a cached transposed copy is made again when its tensor changes") {
  const std::int64_t n = 60;
  const auto A = random_rows(n, 4, 3);
  loom::tensor<double, loom::csc> Bc(random_rows(n, 4, 4));
  loom::tensor<double, loom::csr> C({n, n}), expected({n, n});
  const auto run = [&] { C(i, j) = loom::order<i, k, j>(loom::sum(k, A(i, k) * Bc(k, j))); };
  run();
  Bc.values()[0] += 100;  // a non-const access: a new version
  run();
  const loom::tensor<double, loom::csr> B(Bc);
  expected(i, j) = loom::sum(k, A(i, k) * B(k, j));
  check_equal(C, expected, n);
  Bc = loom::tensor<double, loom::csc>(random_rows(n, 5, 5));  // assigned: a new version
  run();
  const loom::tensor<double, loom::csr> B2(Bc);
  expected(i, j) = loom::sum(k, A(i, k) * B2(k, j));
  check_equal(C, expected, n);
}

TEST_CASE("loom::order fixes the loop order, transposing what it must") {
  const std::int64_t n = 50;
  const auto A = random_rows(n, 5, 6), B = random_rows(n, 5, 7);
  loom::tensor<double, loom::csr> expected({n, n}), C({n, n});
  expected(i, j) = loom::sum(k, A(i, k) * B(k, j));
  const auto inner = loom::order<i, j, k>(loom::sum(k, A(i, k) * B(k, j)));  // B transposed
  const std::string plan = loom::explain(C(i, j), inner);
  CAPTURE(plan);
  CHECK(plan.find("loop order fixed by loom::order<i, j, k>") != std::string::npos);
  CHECK(plan.find("attribute order: i, j, k") != std::string::npos);
  CHECK(plan.find("transpose: T1") != std::string::npos);
  C(i, j) = inner;
  check_equal(C, expected, n);
  loom::tensor<double, loom::dense_matrix> D({n, n});
  D(i, j) = loom::order<k, j, i>(loom::sum(k, A(i, k) * B(k, j)));  // columns of the output first
  check_equal(D, expected, n);
  D(i, j) += loom::order<i, k, j>(loom::sum(k, A(i, k) * B(k, j)));
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < n; ++c) REQUIRE(D.at(r, c) == 2 * expected.at(r, c));
}
