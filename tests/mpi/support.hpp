// What the MPI tests share: a check that ends the whole job naming the line (an assertion on one
// rank must not leave the others waiting in a collective), its count, and the same random
// integer matrix on every rank (the single-process reference needs it whole).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_MPI_SUPPORT_HPP
#define LOOM_TESTS_MPI_SUPPORT_HPP

#include <loom/loom.hpp>
#include <loom/tra/mpi.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mpi_test {
inline int checks = 0;

inline loom::tensor<double, loom::csr> random_matrix(std::int64_t m, std::int64_t n,
                                                     unsigned one_in, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> vals;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      if (gen() % one_in == 0) {
        coords.push_back({r, c});
        vals.push_back(static_cast<double>(gen() % 7) - 3);
      }
  return loom::from_coo<loom::csr>({m, n}, coords, vals, loom::duplicates::sum);
}
}  // namespace mpi_test

#define MPI_TEST_CHECK(...)                                                                       \
  do {                                                                                            \
    ++mpi_test::checks;                                                                           \
    if (!(__VA_ARGS__))                                                                           \
      loom::tra::mpi::abort_job(std::string("check failed at line ") + std::to_string(__LINE__) + \
                                ": " + #__VA_ARGS__);                                             \
  } while (0)

#endif  // LOOM_TESTS_MPI_SUPPORT_HPP
