// Deterministic mode: reductions over the outer index (scalar sums, the triangle query, y(j) =
// sum(i, A(i,j) * x(i)) over CSR) are bit-identical for 1, 2, 3, 4 and 7 threads, and stay within
// rounding of the serial result; kernels whose outer index is an output index are bit-identical to
// the serial loop in both modes. Values have fractional parts of mixed magnitude, so that the
// order of additions shows in the last bits.
// SPDX-License-Identifier: BSL-1.0
#include <cmath>
#include <random>

#include "support.hpp"

namespace {

namespace lt = loom::test;
namespace par = loom::test::par;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// A random m x n matrix with about `density` of its entries, values of mixed magnitudes.
template <class Format>
loom::tensor<double, Format> random_real(std::int64_t m, std::int64_t n, double density,
                                         std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t q = 0; q < n; ++q)
      if (u(g) < density) {
        c.push_back({r, q});
        v.push_back((u(g) - 0.3) * std::pow(10.0, std::floor(u(g) * 8) - 4));
      }
  return loom::from_coo<Format>({m, n}, c, v, loom::duplicates::sum);
}

loom::parallel_options det(int threads) {
  return {.threads = threads, .deterministic = true, .min_work = 0, .chunk_work = 256};
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("parallel: deterministic scalar reductions are bit-identical across thread counts") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto A = random_real<loom::csr>(400, 300, 0.05, seed);
    const auto B = random_real<loom::csr>(400, 300, 0.3, seed + 10);
    const auto R = random_real<loom::dcsr>(200, 200, 0.05, seed + 20);
    double serial = 0, serial_tri = 0;
    {
      loom::parallel_scope s({.threads = 1});
      serial = loom::eval(loom::sum(i, j, A(i, j) * B(i, j)));
      serial_tri = loom::eval(loom::sum(i, j, k, R(i, j) * R(j, k) * R(i, k)));
    }
    double first = 0, first_tri = 0;
    for (int t : par::thread_counts) {
      loom::parallel_scope s(det(t));
      const std::int64_t before = loom::parallel::split_loop_count();
      const double got = loom::eval(loom::sum(i, j, A(i, j) * B(i, j)));
      const double tri = loom::eval(loom::sum(i, j, k, R(i, j) * R(j, k) * R(i, k)));
      CHECK(loom::parallel::split_loop_count() - before == 2);
      if (t == 1) first = got, first_tri = tri;
      INFO("seed ", seed, ", threads ", t);
      CHECK(par::same_bits(got, first));
      CHECK(par::same_bits(tri, first_tri));
      CHECK(close(got, serial));
      CHECK(close(tri, serial_tri));
      // the same thread count twice: the same bits
      CHECK(par::same_bits(loom::eval(loom::sum(i, j, A(i, j) * B(i, j))), got));
    }
  }
}

TEST_CASE("parallel: deterministic y(j) = sum(i, A(i,j) * x(i)) over CSR (partials per chunk)") {
  for (std::uint64_t seed : {4u, 5u}) {
    const auto A = random_real<loom::csr>(500, 120, 0.1, seed);
    loom::tensor<double, loom::dense_vector> x({500}), serial({120});
    for (std::int64_t q = 0; q < 500; ++q) x.values()[q] = 1.0 / static_cast<double>(q + 3);
    {
      loom::parallel_scope s({.threads = 1});
      serial(j) = loom::sum(i, A(i, j) * x(i));
    }
    loom::tensor<double, loom::dense_vector> first({120});
    for (int t : par::thread_counts) {
      loom::tensor<double, loom::dense_vector> y({120});
      loom::parallel_scope s(det(t));
      y(j) = loom::sum(i, A(i, j) * x(i));
      if (t == 1) first = y;
      INFO("seed ", seed, ", threads ", t);
      CHECK(par::identical(y, first));
      bool near = true;
      for (std::int64_t q = 0; q < 120; ++q)
        near = near && close(y.values()[q], serial.values()[q]);
      CHECK(near);
    }
    // without deterministic mode the result is still correct (per-thread partials)
    loom::tensor<double, loom::dense_vector> y({120});
    loom::parallel_scope s(
        {.threads = 3, .deterministic = false, .min_work = 0, .chunk_work = 256});
    y(j) = loom::sum(i, A(i, j) * x(i));
    bool near = true;
    for (std::int64_t q = 0; q < 120; ++q) near = near && close(y.values()[q], serial.values()[q]);
    CHECK(near);
  }
}

TEST_CASE(
    "parallel: kernels over an output's outer index are bit-identical to serial in both modes") {
  const auto A = random_real<loom::csr>(600, 400, 0.05, 7);
  const auto B = random_real<loom::csr>(400, 300, 0.05, 8);
  loom::tensor<double, loom::dense_vector> x({400});
  for (std::int64_t q = 0; q < 400; ++q) x.values()[q] = 1.0 / static_cast<double>(q + 1);
  loom::tensor<double, loom::dense_vector> y1({600});
  loom::tensor<double, loom::csr> C1({600, 300});
  {
    loom::parallel_scope s({.threads = 1});
    y1(i) = loom::sum(j, A(i, j) * x(j));
    C1(i, j) = loom::sum(k, A(i, k) * B(k, j));
  }
  for (int t : par::thread_counts)
    for (bool d : {false, true}) {
      loom::parallel_scope s({.threads = t, .deterministic = d, .min_work = 0, .chunk_work = 100});
      loom::tensor<double, loom::dense_vector> y({600});
      loom::tensor<double, loom::csr> C({600, 300});
      y(i) = loom::sum(j, A(i, j) * x(j));
      C(i, j) = loom::sum(k, A(i, k) * B(k, j));
      INFO("threads ", t, ", deterministic ", d);
      CHECK(par::identical(y, y1));
      CHECK(par::identical(C, C1));
    }
}
