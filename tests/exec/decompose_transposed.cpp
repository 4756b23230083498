// Tests loom::decompose on a twin step with its indices the other way round: it is reused
// transposed (moved from decompose_shared.cpp: no test unit over 30 s).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "random_sparse.hpp"

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::random_sparse;
}  // namespace

TEST_CASE("decompose: a twin with its indices the other way round is reused transposed") {
  // M(i, k) = (A*A)(i, k) * (A*A)(k, i): the second A*A is the first one transposed
  for (unsigned seed = 4; seed <= 6; ++seed) {
    const std::int64_t n = 25;
    const auto A = random_sparse(n, n, 0.2, seed);
    std::vector<double> sq(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t m = 0; m < n; ++m)
          sq[static_cast<std::size_t>(a * n + b)] += A.at(a, m) * A.at(m, b);
    loom::tensor<double, loom::dense_matrix> M({n, n});
    const auto rhs = loom::sum(j, loom::sum(l, A(i, j) * A(j, k) * A(l, i) * A(k, l)));
    const std::size_t candidates = loom::plan_decomposition(M(i, k), rhs).cost.size();
    CHECK(candidates ==
          5);  // fused, j or l eliminated first, the two full orders (their T1 is T0 transposed)
    for (std::size_t cand = 1; cand < candidates; ++cand)
      for (const loom::intermediate_format format :
           {loom::intermediate_format::sorted, loom::intermediate_format::dense})
        for (const std::uint32_t reuse : {0u, ~0u}) {
          CAPTURE(cand);
          CAPTURE(loom::intermediate_format_name(format));
          CAPTURE(reuse);
          loom::decompose(M(i, k), rhs,
                          loom::options<loom::opt::eliminate>{
                              .candidate = cand, .intermediates = {format}, .reuse = reuse});
          for (std::int64_t a = 0; a < n; ++a)
            for (std::int64_t b = 0; b < n; ++b)
              CHECK(M.at(a, b) == doctest::Approx(sq[static_cast<std::size_t>(a * n + b)] *
                                                  sq[static_cast<std::size_t>(b * n + a)]));
        }
  }
}
