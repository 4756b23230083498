// Random sparse matrices and graphs with small integer values, shared by the tests of decompose
// and matrix_chain.
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

/// An n x n matrix with `rows` non-empty rows (spread evenly), each with `per_row` random columns
/// (repeats summed): large graphs without the n^2 coin flips of `random_sparse`.
inline loom::tensor<double, loom::csr> random_rows(std::int64_t n, std::int64_t rows,
                                                   std::int64_t per_row, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::vector<std::array<std::int64_t, 2>> crd;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t q = 0; q < per_row; ++q) crd.push_back({r * (n / rows), col(rng)});
  std::vector<double> val;
  for (std::size_t q = 0; q < crd.size(); ++q) val.push_back(static_cast<double>(q % 5) + 1.0);
  return loom::from_coo<loom::csr>({n, n}, crd, val, loom::duplicates::sum);
}

/// A sparse vector of extent n with `count` entries spread evenly (values 1..3).
inline loom::tensor<double, loom::sparse_vector> spread_vector(std::int64_t n, std::int64_t count) {
  std::vector<std::array<std::int64_t, 1>> crd;
  std::vector<double> val;
  for (std::int64_t q = 0; q < count; ++q)
    crd.push_back({q * (n / count) + 1}), val.push_back(1.0 + static_cast<double>(q % 3));
  return loom::from_coo<loom::sparse_vector>({n}, crd, val);
}

/// The values of a matrix, row by row, dense (zeros included).
template <class M> std::vector<double> dense_of(const M& m) {
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
