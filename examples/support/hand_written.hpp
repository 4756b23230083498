// Hand-written CSR kernels and a timer: the baselines the quickstart compares loom against.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXAMPLES_SUPPORT_HAND_WRITTEN_HPP
#define LOOM_EXAMPLES_SUPPORT_HAND_WRITTEN_HPP

#include <loom/loom.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace example {

/// Whether this is a smoke run (LOOM_EXAMPLE_SMOKE set, as ctest does): smaller inputs and one
/// repetition, so that the unoptimised and sanitizer builds of the test suite stay quick.
inline bool smoke_run() {
  const char* v = std::getenv("LOOM_EXAMPLE_SMOKE");
  return v != nullptr && *v != '\0' && *v != '0';
}

/// Median wall time in milliseconds of one call of each function. The functions are sampled in
/// turn, one sample each per round, `reps` rounds (one in a smoke run), so that a slow phase of
/// a shared machine falls on all of them alike. A call shorter than a millisecond is timed in a
/// batch of calls that take about two together, so that a 60-microsecond SpMV is not one clock
/// reading per sample. Each function runs once first, untimed: the caches and loom's cached
/// plan are warm for every sample.
template <class... F> std::array<double, sizeof...(F)> median_ms(int reps, F&&... f) {
  constexpr std::size_t n = sizeof...(F);
  if (smoke_run()) reps = 1;
  const auto time_ms = [](auto& g, int calls) {
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) g();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::array<int, n> calls{};
  std::size_t q = 0;
  ((calls[q++] =
        [&] {
          const double first = time_ms(f, 1);
          return smoke_run() || first >= 1.0 ? 1 : static_cast<int>(2.0 / std::max(first, 1e-3));
        }()),
   ...);
  std::array<std::vector<double>, n> samples{};
  for (int r = 0; r < reps; ++r) {
    q = 0;
    ((samples[q].push_back(time_ms(f, calls[q]) / calls[q]), ++q), ...);
  }
  std::array<double, n> median{};
  for (std::size_t k = 0; k < n; ++k) {
    std::sort(samples[k].begin(), samples[k].end());
    median[k] = samples[k][samples[k].size() / 2];
  }
  return median;
}

/// y = A x over the raw CSR arrays.
inline void spmv(const loom::tensor<double, loom::csr>& A, const double* x, double* y) {
  const auto& pos = A.level<1>().pos;
  const auto& crd = A.level<1>().crd;
  const double* val = A.values().data();
  const std::int64_t m = A.shape()[0];
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (std::int64_t p = pos[i]; p < pos[i + 1]; ++p) sum += val[p] * x[crd[p]];
    y[i] = sum;
  }
}

/// C = A B, Gustavson's row-wise algorithm with a dense accumulator; returns nnz(C).
inline std::int64_t spgemm(const loom::tensor<double, loom::csr>& A,
                           const loom::tensor<double, loom::csr>& B,
                           std::vector<std::int64_t>& cpos, std::vector<std::int32_t>& ccrd,
                           std::vector<double>& cval) {
  const auto &ap = A.level<1>().pos, &bp = B.level<1>().pos;
  const auto &ac = A.level<1>().crd, &bc = B.level<1>().crd;
  const double *av = A.values().data(), *bv = B.values().data();
  const std::int64_t m = A.shape()[0], n = B.shape()[1];
  std::vector<double> acc(static_cast<std::size_t>(n), 0.0);
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> row;
  cpos.assign(static_cast<std::size_t>(m) + 1, 0);
  ccrd.clear();
  cval.clear();
  for (std::int64_t i = 0; i < m; ++i) {
    row.clear();
    for (std::int64_t p = ap[i]; p < ap[i + 1]; ++p)
      for (std::int64_t q = bp[ac[p]]; q < bp[ac[p] + 1]; ++q) {
        const std::int32_t j = bc[q];
        if (!seen[j]) {
          seen[j] = 1;
          row.push_back(j);
        }
        acc[j] += av[p] * bv[q];
      }
    std::sort(row.begin(), row.end());
    for (std::int32_t j : row) {
      ccrd.push_back(j);
      cval.push_back(acc[j]);
      acc[j] = 0;
      seen[j] = 0;
    }
    cpos[i + 1] = static_cast<std::int64_t>(ccrd.size());
  }
  return static_cast<std::int64_t>(ccrd.size());
}

/// A square matrix with `per_row` uniformly placed entries in each row (fixed seed).
inline loom::tensor<double, loom::csr> random_csr(std::int64_t n, int per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  coords.reserve(static_cast<std::size_t>(n * per_row));
  for (std::int64_t i = 0; i < n; ++i)
    for (int k = 0; k < per_row; ++k) {
      coords.push_back({i, col(rng)});
      values.push_back(val(rng));
    }
  return loom::from_coo<loom::csr>({n, n}, coords, values, loom::duplicates::sum);
}

}  // namespace example

#endif  // LOOM_EXAMPLES_SUPPORT_HAND_WRITTEN_HPP
