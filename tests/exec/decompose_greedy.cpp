// Tests loom::decompose on programs with more elimination prefixes than loom::limits::elimination_orders:
// the prefixes of the greedy (min-fill) order come first, then the shortest others; every
// candidate computes the same result.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "random_sparse.hpp"

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::candidate;
using loom_test::random_sparse;
}  // namespace

TEST_CASE(
    "decompose: the greedy order eliminates first the index that makes the smallest intermediate") {
  // y(i) = A B C d, summed as written over j, k, l (15 prefixes): eliminating j or k makes a
  // two-index intermediate, l only the vector C d; then k makes B (C d), then j: right to left
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const auto A = random_sparse(30, 40, 0.1, seed), B = random_sparse(40, 35, 0.1, seed + 1),
               C = random_sparse(35, 45, 0.1, seed + 2);
    loom::tensor<double, loom::dense_vector> d({45}), y({30}), want({30});
    for (std::int64_t a = 0; a < 45; ++a)
      d.values()[static_cast<std::size_t>(a)] = static_cast<double>(a % 5) - 2.0;
    const auto rhs = loom::sum(j, loom::sum(k, loom::sum(l, A(i, j) * B(j, k) * C(k, l) * d(l))));
    want(i) = rhs;
    const auto plan = loom::plan_decomposition(y(i), rhs);
    CHECK(plan.description[1].rfind("eliminate l, then j,k fused: T0(k) = sum(l, ...)", 0) == 0);
    CHECK(plan.description[2].rfind("eliminate l,k, then j fused", 0) == 0);
    CHECK(plan.description[3].rfind("eliminate l,k,j:", 0) == 0);
    // three sparse matrix-vector products beat every plan with a matrix intermediate
    CHECK(plan.description[plan.chosen].find("(i,") == std::string::npos);
    CHECK(plan.description[plan.chosen].find(",i)") == std::string::npos);
    CHECK(candidate(plan, "eliminate j, then k,l fused") == 4);  // then the shortest others
    REQUIRE(plan.cost.size() == loom::max_elimination_orders + 1);
    for (std::size_t c = 0; c < plan.cost.size(); ++c)
      for (const loom::intermediate_format format :
           {loom::intermediate_format::sorted, loom::intermediate_format::dense}) {
        CAPTURE(c);
        CAPTURE(loom::intermediate_format_name(format));
        std::fill(y.values().begin(), y.values().end(), -1.0);
        loom::decompose(
            y(i), rhs,
            loom::options<loom::opt::eliminate>{.candidate = c, .intermediates = {format}});
        for (std::int64_t a = 0; a < 30; ++a) CHECK(y.at(a) == doctest::Approx(want.at(a)));
      }
    loom::decompose(y(i), rhs);
    for (std::int64_t a = 0; a < 30; ++a) CHECK(y.at(a) == doctest::Approx(want.at(a)));
  }
}
