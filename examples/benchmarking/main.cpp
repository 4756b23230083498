// Times loom's SpMV in two formats (csr, dcsr) against a hand-written CSR loop with
// <loom/bench.hpp>, on a generated matrix; examples/benchmarking/CMakeLists.txt measures the build
// cost of this file with loom_add_build_cost_report() (docs/build-cost.md).
// SPDX-License-Identifier: BSL-1.0
#include <loom/bench.hpp>
#include <loom/loom.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

// y = A x over CSR's arrays: the loop loom's kernel is compared with.
void hand_spmv(const loom::tensor<double, loom::csr>& A, const std::vector<double>& x,
               std::vector<double>& y) {
  const auto& pos = A.level<1>().pos;
  const auto& crd = A.level<1>().crd;
  const double* val = A.values().data();
  for (std::int64_t r = 0; r < A.shape()[0]; ++r) {
    double s = 0;
    for (std::int64_t p = pos[r]; p < pos[r + 1]; ++p) s += val[p] * x[crd[p]];
    y[r] = s;
  }
}

int main() {
  // A generated n x n matrix with about 8 nonzeros per row; x(j) = 1 + j mod 7. ctest sets
  // LOOM_EXAMPLE_SMOKE: a smaller matrix and fewer rounds for the -O0 and sanitizer builds.
  const char* smoke_env = std::getenv("LOOM_EXAMPLE_SMOKE");
  const bool smoke = smoke_env != nullptr && *smoke_env != '\0' && *smoke_env != '0';
  const std::int64_t n = smoke ? 2000 : 20000;
  std::mt19937_64 rng(23);
  std::uniform_int_distribution<std::int64_t> column(0, n - 1);
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  for (std::int64_t r = 0; r < n; ++r)
    for (int q = 0; q < 8; ++q) {
      coords.push_back({r, column(rng)});
      values.push_back(1.0 / static_cast<double>(1 + q));
    }
  const auto A = loom::from_coo<loom::csr>({n, n}, coords, values, loom::duplicates::sum);
  const auto D = loom::from_coo<loom::dcsr>({n, n}, coords, values, loom::duplicates::sum);
  loom::tensor<double, loom::dense_vector> x({n}), y({n}), z({n});
  std::vector<double> xh(static_cast<std::size_t>(n)), yh(static_cast<std::size_t>(n));
  for (std::int64_t c = 0; c < n; ++c)
    x.at(c) = xh[static_cast<std::size_t>(c)] = 1.0 + static_cast<double>(c % 7);

  // Check first: the three compute the same y.
  hand_spmv(A, xh, yh);
  y(i) = loom::sum(j, A(i, j) * x(j));
  z(i) = loom::sum(j, D(i, j) * x(j));
  for (std::int64_t r = 0; r < n; ++r)
    if (std::abs(y.at(r) - yh[static_cast<std::size_t>(r)]) > 1e-9 ||
        std::abs(z.at(r) - yh[static_cast<std::size_t>(r)]) > 1e-9) {
      std::fprintf(stderr, "example.benchmarking: row %lld differs from the hand loop\n",
                   static_cast<long long>(r));
      return 1;
    }

  // Then time them: interleaved rounds, medians, ratios to the first entry ("hand").
  // do_not_optimize(v): the result is used, so the compiler keeps the computation.
  auto hand = [&] {
    hand_spmv(A, xh, yh);
    loom::bench::do_not_optimize(yh);
  };
  auto loom_csr = [&] {
    y(i) = loom::sum(j, A(i, j) * x(j));
    loom::bench::do_not_optimize(y);
  };
  auto loom_dcsr = [&] {
    z(i) = loom::sum(j, D(i, j) * x(j));
    loom::bench::do_not_optimize(z);
  };
  const std::string title =
      "SpMV, " + std::to_string(n) + " x " + std::to_string(n) + ", 8 per row";
  const loom::bench::result r = loom::bench::compare(
      title, {{"hand", hand}, {"loom csr", loom_csr}, {"loom dcsr", loom_dcsr}},
      {.rounds = smoke ? 3 : 7, .min_time = smoke ? 0.001 : 0.01});
  std::fputs(r.markdown().c_str(), stdout);
  return 0;
}
