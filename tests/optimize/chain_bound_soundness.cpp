// Property test: on random small matrices, the chain bound built from gathered statistics is never
// below the true structural nnz of A[i,j] * B[j,k], of sum_j A * B, and of A + B.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/optimize/statistics/chain_bound_estimator.hpp>
#include <loom/optimize/statistics/gather_statistics.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {
using coords = std::vector<std::array<std::int64_t, 2>>;

coords random_pattern(std::mt19937& rng, std::int64_t rows, std::int64_t cols, double p) {
  std::bernoulli_distribution keep(p);
  coords c;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < cols; ++k)
      if (keep(rng)) c.push_back({r, k});
  return c;
}
}  // namespace

TEST_CASE("chain bound is an upper bound on random matrices") {
  using E = loom::chain_bound_estimator;
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t n = 2 + trial % 7, m = 3 + trial % 5, q = 2 + trial % 4;
    const double p = 0.1 + 0.02 * (trial % 20);
    const coords ca = random_pattern(rng, n, m, p), cb = random_pattern(rng, m, q, p);
    const coords cc = random_pattern(rng, n, m, p);
    const auto a = loom::from_coo<loom::csr>({n, m}, ca, std::vector<double>(ca.size(), 1.0));
    const auto b = loom::from_coo<loom::dcsr>({m, q}, cb, std::vector<double>(cb.size(), 1.0));
    const auto c = loom::from_coo<loom::csc>({n, m}, cc, std::vector<double>(cc.size(), 1.0));

    std::set<std::array<std::int64_t, 3>> ijk;
    std::set<std::array<std::int64_t, 2>> ik, sum_ij;
    for (const auto& x : ca)
      for (const auto& y : cb)
        if (x[1] == y[0]) {
          ijk.insert({x[0], x[1], y[1]});
          ik.insert({x[0], y[1]});
        }
    for (const auto& x : ca) sum_ij.insert(x);
    for (const auto& x : cc) sum_ij.insert(x);

    const std::vector<E> ab{E(loom::gather_statistics(a), {"i", "j"}),
                            E(loom::gather_statistics(b), {"j", "k"})};
    const E prod = E::conjunction(ab);
    CHECK(prod.estimate() >= static_cast<double>(ijk.size()));
    CHECK(prod.aggregate({"j"}).estimate() >= static_cast<double>(ik.size()));
    const std::vector<E> ac{E(loom::gather_statistics(a), {"i", "j"}),
                            E(loom::gather_statistics(c), {"i", "j"})};
    CHECK(E::disjunction(ac).estimate() >= static_cast<double>(sum_ij.size()));
  }
}
