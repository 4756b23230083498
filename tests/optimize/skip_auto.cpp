// loom::assign with `opt::skip_candidates<4>`: every kernel with two or more co-iterated sparse
// operands at a loop runs the skip policy chosen at run time. Results against a dense reference
// over formats, densities and seeds.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/skip_queries.hpp>
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "skip_random.hpp"

namespace {

namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"lead_auto_i"> i;
constexpr loom::index<"lead_auto_j"> j;

using hashed_vector = loom::format<loom::hashed>;

// up to four skip-policy kernels per plan, the cheapest chosen from statistics
constexpr loom::options<loom::opt::skip_candidates<4>> choosing{};

template <class FA, class FX>
void check(std::int64_t m, std::int64_t n, double pa, double px, unsigned seed) {
  std::vector<double> da, dx;
  const auto A = loom_test::random_tensor<FA, 2>({m, n}, pa, seed, da);
  const auto x = loom_test::random_tensor<FX, 1>({n}, px, seed + 100, dx);
  loom::tensor<double, loom::dense_vector> y({m});
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), choosing);
  for (std::int64_t r = 0; r < m; ++r) {
    double ref = 0;
    for (std::int64_t q = 0; q < n; ++q)
      ref += da[static_cast<std::size_t>(r * n + q)] * dx[static_cast<std::size_t>(q)];
    CHECK(y.at(r) == ref);
  }
  loom::tensor<double, loom::dcsr> C({m, n});
  const auto B = loom_test::random_tensor<FA, 2>({m, n}, px, seed + 200, dx);
  loom::assign(C(i, j), A(i, j) * B(i, j), choosing);
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t q = 0; q < n; ++q) {
      const auto k = static_cast<std::size_t>(r * n + q);
      CHECK(C.at(r, q) == da[k] * dx[k]);
    }
}

}  // namespace

TEST_CASE("leader: with opt::skip_candidates<4>, assignments choose a skip policy") {
  static_assert(decltype(choosing)::skip_cap == 4);
  for (unsigned seed : {1u, 2u})
    for (const auto& pa_px : {std::pair{0.3, 0.3}, std::pair{0.01, 0.9}, std::pair{0.9, 0.01}}) {
      const double pa = pa_px.first, px = pa_px.second;
      CAPTURE(seed);
      CAPTURE(pa);
      CAPTURE(px);
      check<loom::dcsr, loom::sparse_vector>(19, 301, pa, px, seed);
      check<loom::coo, hashed_vector>(19, 301, pa, px, seed);
    }
}

TEST_CASE("leader: the cached choice of an assignment is the cost model's choice") {
  std::vector<double> d;
  const auto A = loom_test::random_tensor<loom::csr, 2>({8, 20000}, 0.1, 3, d);
  const auto x = loom_test::random_tensor<loom::sparse_vector, 1>({20000}, 5.0 / 20000, 4, d);
  loom::tensor<double, loom::dense_vector> y({8});
  const auto c = loom::plan_skip<4>(y(i), loom::sum(j, A(i, j) * x(j)));
  REQUIRE(c.chosen > 0);
  CHECK(c.candidates[c.chosen].code == loom::optimize::skip_code::lead_last);
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), choosing);  // the same choice, now cached
  double total = 0, ref = 0;
  for (std::int64_t r = 0; r < 8; ++r) total += y.at(r);
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t q = 0; q < 20000; ++q) ref += A.at(r, q) * x.at(q);
  CHECK(total == ref);
}

TEST_CASE("leader: with opt::skip_candidates<4>, loom::explain lists the skip policy per loop") {
  std::vector<double> d;
  auto A = loom_test::random_tensor<loom::csr, 2>({8, 20000}, 0.1, 3, d);
  auto x = loom_test::random_tensor<loom::sparse_vector, 1>({20000}, 5.0 / 20000, 4, d);
  A.set_name("A");
  x.set_name("x");
  loom::tensor<double, loom::dense_vector> y({8});
  const std::string text = loom::explain(y(i), loom::sum(j, A(i, j) * x(j)), choosing);
  CAPTURE(text);
  CHECK(text.find("skip policy per loop") != std::string::npos);
  CHECK(text.find("* lead last (x [sparse_vector] iterates)") != std::string::npos);
  // a kernel with nothing to choose adds no table
  loom::tensor<double, loom::dense_vector> z({20000});
  CHECK(loom::explain(y(i), loom::sum(j, A(i, j) * z(j)), choosing).find("skip policy") ==
        std::string::npos);
  // the default options keep the static table and say nothing about it
  CHECK(loom::explain(y(i), loom::sum(j, A(i, j) * x(j))).find("skip policy per loop") ==
        std::string::npos);
}
