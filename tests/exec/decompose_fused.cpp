// Tests loom::decompose where the fused kernel is a candidate to beat: T8, a triangle that stays one
// fused kernel, and the choice between the fused kernel's leapfrogs with a sparse vector and an
// elimination on skewed inputs (moved from decompose.cpp: no test unit over 30 s).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "random_sparse.hpp"

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using coords2 = std::vector<std::array<std::int64_t, 2>>;
}  // namespace

TEST_CASE("T8: a triangle is one fused kernel; its count on K4 is 24") {
  coords2 c;
  for (std::int64_t a = 0; a < 4; ++a)
    for (std::int64_t b = 0; b < 4; ++b)
      if (a != b) c.push_back({a, b});
  const auto K = loom::from_coo<loom::csr>({4, 4}, c, std::vector<double>(c.size(), 1.0));
  loom::tensor<double, loom::format<>> count;
  const auto rhs = loom::sum(i, loom::sum(j, loom::sum(k, K(i, j) * K(j, k) * K(i, k))));
  const auto plan = loom::plan_decomposition(count(), rhs);
  CHECK(plan.chosen == 0);  // the fused kernel: no intermediate beats the triangle join
  loom::decompose(count(), rhs);
  CHECK(count.values()[0] == 24);
  for (std::size_t which = 1; which < plan.cost.size(); ++which) {
    loom::decompose(count(), rhs, loom::options<loom::opt::eliminate>{.candidate = which});
    CHECK(count.values()[0] == 24);
  }
}

TEST_CASE(
    "decompose: the fused kernel pays a leapfrog with a sparse vector at every visit of a fiber") {
  // y(i) = sum(j, k, A(i,j) C(j,k) x(k)), C one entry per row, x 8 entries of 20000. Fused, the
  // row of C is intersected with x at every entry of A; eliminating k first intersects each row of
  // C once (T0 = C x), then reads T0 at A's entries. Which wins depends on how many entries A has.
  constexpr std::int64_t n = 20000;
  const auto C = loom_test::random_rows(n, n, 1, 61);
  const auto x = loom_test::spread_vector(n, 8);
  loom::tensor<double, loom::dense_vector> y({n}), want({n});
  const auto chosen = [&](const loom::tensor<double, loom::csr>& A) {
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * C(j, k) * x(k)));
    const auto plan = loom::plan_decomposition(y(i), rhs);
    CAPTURE(plan.description[0]);
    CAPTURE(plan.description[plan.chosen]);
    CHECK(plan.description[0].find("leapfrog steps against sparse vectors") != std::string::npos);
    want(i) = rhs;
    loom::decompose(y(i), rhs);
    for (std::int64_t r = 0; r < n; ++r) REQUIRE(y.at(r) == doctest::Approx(want.at(r)));
    return plan.description[plan.chosen];
  };
  // A with 10 entries in every row: 200K intersections fused, 20K after eliminating k
  CHECK(chosen(loom_test::random_rows(n, n, 10, 62)).rfind("eliminate k, then j fused", 0) == 0);
  // A with 30 entries: the fused kernel meets 30 rows of C, fewer than T0 = C x would
  CHECK(chosen(loom_test::random_rows(n, 30, 1, 63)).rfind("one fused kernel", 0) == 0);
}
