// Tests loom::decompose on shared work: a step that repeats an earlier one (up to an index renaming)
// reuses its result; a twin the other way round in decompose_transposed.cpp, T11 (sums over +
// distributed over a star join) in decompose_star_join.cpp.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "random_sparse.hpp"

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::candidate;
using loom_test::dense_of;
using loom_test::random_graph;
using loom_test::random_sparse;
}  // namespace

TEST_CASE("decompose: a sum computed twice over the same tensor is computed once") {
  // sum over i, k of (A*A)(i, k)^2: eliminating j, then l, makes the same A*A twice
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const std::int64_t n = 30;
    const auto A = random_graph(n, 0.15, seed);
    const loom::tensor<double, loom::csr> B = A;  // equal values, another object: nothing is shared
    double want = 0;
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t b = 0; b < n; ++b) {
        double p = 0;
        for (std::int64_t m = 0; m < n; ++m) p += A.at(a, m) * A.at(m, b);
        want += p * p;
      }
    loom::tensor<double, loom::format<>> s;
    const auto same = loom::sum(
        j, loom::sum(l, loom::sum(i, loom::sum(k, A(i, j) * A(j, k) * A(i, l) * A(l, k)))));
    const auto other = loom::sum(
        j, loom::sum(l, loom::sum(i, loom::sum(k, A(i, j) * A(j, k) * B(i, l) * B(l, k)))));
    const auto shared = loom::plan_decomposition(s(), same),
               separate = loom::plan_decomposition(s(), other);
    // eliminating j, then l: the second A*A is the first
    CHECK(shared.description[candidate(shared, "eliminate j,l, then i,k fused")].find(
              "T1(i,k) = T0 (the same sum over the same tensors: computed once)") !=
          std::string::npos);
    for (std::size_t cand = 1; cand < shared.cost.size(); ++cand) {
      CAPTURE(cand);
      const bool once = shared.description[cand].find("computed once") != std::string::npos;
      CHECK(separate.description[cand].find("computed once") == std::string::npos);
      if (once) CHECK(shared.cost[cand] < separate.cost[cand]);
      CHECK(once == (shared.reuse[cand] != 0));
      CHECK(separate.reuse[cand] == 0);
      for (const loom::intermediate_format format :
           {loom::intermediate_format::sorted, loom::intermediate_format::dense})
        for (const std::uint32_t reuse : {0u, ~0u}) {
          CAPTURE(loom::intermediate_format_name(format));
          CAPTURE(reuse);
          loom::decompose(s(), same,
                          loom::options<loom::opt::eliminate>{
                              .candidate = cand, .intermediates = {format}, .reuse = reuse});
          CHECK(s.values()[0] == doctest::Approx(want));
          loom::decompose(
              s(), other,
              loom::options<loom::opt::eliminate>{.candidate = cand,
                                                  .intermediates = {format},
                                                  .reuse = reuse});  // nothing to reuse: B is not A
          CHECK(s.values()[0] == doctest::Approx(want));
        }
    }
    loom::decompose(s(), same);
    CHECK(s.values()[0] == doctest::Approx(want));
  }
}
