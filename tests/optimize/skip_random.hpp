// A random tensor in any format with its dense twin, shared by the skip-policy tests
// (tests/optimize/leader_*.cpp).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_OPTIMIZE_LEADER_RANDOM_HPP
#define LOOM_TESTS_OPTIMIZE_LEADER_RANDOM_HPP

#include <loom/loom.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace loom_test {

/// Each cell present with probability p, values 1..4 (exact in double); `dense` gets every cell,
/// row-major.
template <class F, std::size_t N>
loom::tensor<double, F> random_tensor(const std::array<std::int64_t, N>& shape, double p,
                                      unsigned seed, std::vector<double>& dense) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::array<std::int64_t, N>> c;
  std::vector<double> v;
  std::int64_t cells = 1;
  for (auto e : shape) cells *= e;
  dense.assign(static_cast<std::size_t>(cells), 0.0);
  for (std::int64_t q = 0; q < cells; ++q) {
    if (u(rng) >= p) continue;
    std::array<std::int64_t, N> at{};
    std::int64_t r = q;
    for (std::size_t m = N; m-- > 0;) {
      at[m] = r % shape[m];
      r /= shape[m];
    }
    c.push_back(at);
    v.push_back(1.0 + static_cast<double>(static_cast<int>(u(rng) * 4)));
    dense[static_cast<std::size_t>(q)] = v.back();
  }
  return loom::from_coo<F>(shape, c, v);
}

/// y = A x over the dense twins (A row-major, m x n): the SpMSpV tests' reference.
inline std::vector<double> dense_matvec(const std::vector<double>& a, const std::vector<double>& x,
                                        std::int64_t m, std::int64_t n) {
  std::vector<double> y(static_cast<std::size_t>(m), 0.0);
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t q = 0; q < n; ++q)
      y[static_cast<std::size_t>(r)] +=
          a[static_cast<std::size_t>(r * n + q)] * x[static_cast<std::size_t>(q)];
  return y;
}

}  // namespace loom_test

#endif  // LOOM_TESTS_OPTIMIZE_LEADER_RANDOM_HPP
