// Random sparse matrices and graphs with small integer values, shared by the optimizer tests.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_OPTIMIZE_RANDOM_SPARSE_HPP
#define LOOM_TESTS_OPTIMIZE_RANDOM_SPARSE_HPP

#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loom_test {

/// rows x cols, each entry present with probability p, values in -4..4 (exact in double).
inline loom::tensor<double, loom::csr> random_sparse(std::int64_t rows, std::int64_t cols, double p,
                                              unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t q = 0; q < cols; ++q)
      if (u(rng) < p) {
        c.push_back({r, q});
        v.push_back(static_cast<double>(static_cast<int>(u(rng) * 9) - 4));
      }
  return loom::from_coo<loom::csr>({rows, cols}, c, v);
}

/// The values of a matrix, row by row, dense (zeros included).
template <class M>
std::vector<double> dense_of(const M& m) {
  std::vector<double> d;
  for (std::int64_t r = 0; r < m.extent(0); ++r)
    for (std::int64_t q = 0; q < m.extent(1); ++q) d.push_back(m.at(r, q));
  return d;
}

/// A symmetric 0/1 random graph on n vertices, each edge present with probability p.
inline loom::tensor<double, loom::csr> random_graph(std::int64_t n, double p, unsigned seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution edge(p);
  std::vector<std::array<std::int64_t, 2>> c;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = a + 1; b < n; ++b)
      if (edge(rng)) c.push_back({a, b}), c.push_back({b, a});
  return loom::from_coo<loom::csr>({n, n}, c, std::vector<double>(c.size(), 1.0));
}

/// The candidate of a decomposition whose description starts with `start` (fails the test if none).
inline std::size_t candidate(const loom::decomposition_choice& plan, const std::string& start) {
  for (std::size_t c = 0; c < plan.description.size(); ++c)
    if (plan.description[c].rfind(start, 0) == 0) return c;
  FAIL("no decomposition candidate starts with \"" << start << "\"");
  return 0;
}

}  // namespace loom_test

#endif  // LOOM_TESTS_OPTIMIZE_RANDOM_SPARSE_HPP
