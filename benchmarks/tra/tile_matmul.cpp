// Tile matmul: loom::tra::matmul (loom's dense loops over strip-valued views) against Eigen's
// dense product and a naive loom kernel (plain index notation over double views), for square
// tiles of 64 to 256. Prints one line per size with GFLOP/s and the ratio to Eigen.
// Usage: tile_matmul [min_seconds_per_point]
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <Eigen/Dense>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

template <class F> double best_seconds(F&& f, double budget) {
  double best = 1e30, spent = 0;
  int runs = 0;
  while (spent < budget || runs < 5) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const double d = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, d);
    spent += d;
    ++runs;
  }
  return best;
}
}  // namespace

int main(int argc, char** argv) {
  const double budget = argc > 1 ? std::atof(argv[1]) : 0.3;
  std::printf("%6s %12s %12s %12s %14s %8s\n", "n", "loom GF/s", "Eigen GF/s", "naive GF/s",
              "loom/Eigen t", "max|d|");
  double worst = 0;
  for (std::int64_t n : {64, 96, 128, 192, 256}) {
    loom::tra::tile<double, 2> a({n, n}), b({n, n}), c({n, n});
    Eigen::MatrixXd ea(n, n), eb(n, n), ec(n, n);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t q = 0; q < n; ++q) {
        a(r, q) = ea(r, q) = static_cast<double>((r * 7 + q * 3) % 11) - 5;
        b(r, q) = eb(r, q) = static_cast<double>((r * 5 + q) % 13) - 6;
      }
    const double tl = best_seconds([&] { loom::tra::matmul_into(a, b, c); }, budget);
    const double te = best_seconds([&] { ec.noalias() = ea * eb; }, budget);
    std::vector<double> nc(static_cast<std::size_t>(n * n));
    auto A = a.view();
    auto B = b.view();
    auto C = loom::dense_matrix_view<double>(n, n, nc);
    const double tn = best_seconds([&] { C(i, j) = loom::sum(k, A(i, k) * B(k, j)); }, budget / 3);
    double diff = 0;
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t q = 0; q < n; ++q) diff = std::max(diff, std::abs(c(r, q) - ec(r, q)));
    const double flops = 2.0 * static_cast<double>(n * n * n);
    worst = std::max(worst, tl / te);
    std::printf("%6lld %12.2f %12.2f %12.2f %14.2f %8.1e\n", static_cast<long long>(n),
                flops / tl * 1e-9, flops / te * 1e-9, flops / tn * 1e-9, tl / te, diff);
  }
  std::printf("worst loom/Eigen time ratio: %.2f (target <= 1.5)\n", worst);
  return 0;
}
