// Tests loom::decompose: variable-elimination orders of sum-products (notes 001 §3.4-3.7, T8, T9),
// every candidate's result against a dense reference, and the choice on skewed inputs.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include "random_sparse.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::random_sparse;

template <class M>
std::vector<double> dense_of(const M& m) {
  std::vector<double> d;
  for (std::int64_t r = 0; r < m.extent(0); ++r)
    for (std::int64_t q = 0; q < m.extent(1); ++q) d.push_back(m.at(r, q));
  return d;
}
}  // namespace

TEST_CASE("decompose: every candidate of a 3-matrix chain equals the fused kernel") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const auto A = random_sparse(12, 20, 0.2, seed), B = random_sparse(20, 9, 0.3, seed + 10),
               C = random_sparse(9, 15, 0.25, seed + 20);
    loom::tensor<double, loom::dense_matrix> want({12, 15}), got({12, 15});
    want(i, l) = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    // reference: plain loops
    std::vector<double> ref(12 * 15, 0.0);
    for (std::int64_t a = 0; a < 12; ++a)
      for (std::int64_t b = 0; b < 20; ++b)
        for (std::int64_t c = 0; c < 9; ++c)
          for (std::int64_t d = 0; d < 15; ++d)
            ref[static_cast<std::size_t>(a * 15 + d)] += A.at(a, b) * B.at(b, c) * C.at(c, d);
    CHECK(dense_of(want) == ref);
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    const auto plan = loom::plan_decomposition(got(i, l), rhs);
    REQUIRE(plan.cost.size() == 3);  // fused, then orders (j,k) and (k,j)
    for (std::size_t c = 0; c < plan.cost.size(); ++c) {
      loom::decompose_with(c, got(i, l), rhs);
      CHECK(dense_of(got) == ref);
    }
    const std::size_t ran = loom::decompose(got(i, l), rhs);
    CHECK(ran == plan.chosen);
    CHECK(dense_of(got) == ref);
  }
}

TEST_CASE("T9: the dense chain 10x100 * 100x5 * 5x50 eliminates j first") {
  auto full = [](std::int64_t r, std::int64_t c) {
    coords2 x;
    for (std::int64_t a = 0; a < r; ++a)
      for (std::int64_t b = 0; b < c; ++b) x.push_back({a, b});
    return loom::from_coo<loom::csr>({r, c}, x, std::vector<double>(x.size(), 1.0));
  };
  const auto A = full(10, 100), B = full(100, 5), C = full(5, 50);
  loom::tensor<double, loom::dense_matrix> E({10, 50});
  const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
  const auto plan = loom::plan_decomposition(E(i, l), rhs);
  CHECK(plan.chosen == 1);  // order (j, k)
  CHECK(plan.description[1].find("[5000 products") != std::string::npos);
  CHECK(plan.description[1].find("[2500 products") != std::string::npos);
  CHECK(plan.description[2].find("[25000 products") != std::string::npos);
  CHECK(plan.description[2].find("[50000 products") != std::string::npos);
  loom::decompose(E(i, l), rhs);
  CHECK(E.at(3, 7) == doctest::Approx(500));  // every product term is 1: 100 * 5 paths
  const std::string text = loom::explain_decomposition(E(i, l), rhs);
  CHECK(text.find("* #1 cost") != std::string::npos);
}

TEST_CASE("T8: a triangle is one fused kernel; its count on K4 is 24") {
  coords2 c;
  for (std::int64_t a = 0; a < 4; ++a)
    for (std::int64_t b = 0; b < 4; ++b)
      if (a != b) c.push_back({a, b});
  const auto K = loom::from_coo<loom::csr>({4, 4}, c, std::vector<double>(c.size(), 1.0));
  loom::tensor<double, loom::format<>> count;
  const auto rhs = loom::sum(i, loom::sum(j, loom::sum(k, K(i, j) * K(j, k) * K(i, k))));
  const auto plan = loom::plan_decomposition(count(), rhs);
  CHECK(plan.chosen == 0);  // the fused kernel: no intermediate beats the triangle join
  loom::decompose(count(), rhs);
  CHECK(count.values()[0] == 24);
  for (std::size_t which = 1; which < plan.cost.size(); ++which) {
    loom::decompose_with(which, count(), rhs);
    CHECK(count.values()[0] == 24);
  }
}

TEST_CASE("decompose: every candidate with dense and with sparse intermediates") {
  const auto A = random_sparse(14, 11, 0.3, 7), B = random_sparse(11, 16, 0.2, 8), C = random_sparse(16, 9, 0.4, 9);
  loom::tensor<double, loom::dense_matrix> want({14, 9}), got({14, 9});
  const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
  want(i, l) = rhs;
  const auto plan = loom::plan_decomposition(got(i, l), rhs);
  REQUIRE(plan.dense.size() == plan.cost.size());
  for (std::size_t c = 1; c < plan.cost.size(); ++c)
    for (const bool dense : {false, true}) {
      CAPTURE(c);
      CAPTURE(dense);
      std::fill(got.values().begin(), got.values().end(), -1.0);
      loom::decompose_with(c, got(i, l), rhs, dense);
      for (std::int64_t r = 0; r < 14; ++r)
        for (std::int64_t q = 0; q < 9; ++q) CHECK(got.at(r, q) == doctest::Approx(want.at(r, q)));
    }
}

TEST_CASE("decompose: an intermediate is dense when nearly full, sparse when nearly empty") {
  const auto full_a = random_sparse(60, 60, 0.5, 3), full_b = random_sparse(60, 60, 0.5, 4);
  const auto thin_a = random_sparse(3000, 3000, 0.0003, 5), thin_b = random_sparse(3000, 3000, 0.0003, 6);
  loom::tensor<double, loom::format<>> s;
  // eliminating j first makes T0(i, k): A * B, about full for the first pair, about empty for the second
  const auto fat = loom::plan_decomposition(s(), loom::sum(i, loom::sum(j, loom::sum(k, full_a(i, j) * full_b(j, k)))));
  const auto thin = loom::plan_decomposition(s(), loom::sum(i, loom::sum(j, loom::sum(k, thin_a(i, j) * thin_b(j, k)))));
  // candidate 2 is the order (j, i, k): its first intermediate is T0(i, k)
  REQUIRE(fat.description.size() > 2);
  CHECK(fat.description[3].find("T0(i,k) = sum(j, ...)") != std::string::npos);
  CHECK(fat.description[3].find("dense]") != std::string::npos);
  CHECK(fat.dense[3]);
  CHECK(thin.description[3].find("T0(i,k) = sum(j, ...)") != std::string::npos);
  CHECK(thin.description[3].find("sparse]") != std::string::npos);
  CHECK(!thin.dense[3]);
}

namespace {
// A symmetric 0/1 random graph on n vertices.
loom::tensor<double, loom::csr> random_graph(std::int64_t n, double p, unsigned seed) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution edge(p);
  coords2 c;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = a + 1; b < n; ++b)
      if (edge(rng)) c.push_back({a, b}), c.push_back({b, a});
  return loom::from_coo<loom::csr>({n, n}, c, std::vector<double>(c.size(), 1.0));
}
}  // namespace

TEST_CASE("decompose: a sum computed twice over the same tensor is computed once") {
  // sum over i, k of (A*A)(i, k)^2: eliminating j, then l, makes the same A*A twice
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const std::int64_t n = 30;
    const auto A = random_graph(n, 0.15, seed);
    const loom::tensor<double, loom::csr> B = A;  // equal values, another object: nothing is shared
    double want = 0;
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t b = 0; b < n; ++b) {
        double p = 0;
        for (std::int64_t m = 0; m < n; ++m) p += A.at(a, m) * A.at(m, b);
        want += p * p;
      }
    loom::tensor<double, loom::format<>> s;
    const auto same = loom::sum(j, loom::sum(l, loom::sum(i, loom::sum(k, A(i, j) * A(j, k) * A(i, l) * A(l, k)))));
    const auto other = loom::sum(j, loom::sum(l, loom::sum(i, loom::sum(k, A(i, j) * A(j, k) * B(i, l) * B(l, k)))));
    const auto shared = loom::plan_decomposition(s(), same), separate = loom::plan_decomposition(s(), other);
    CHECK(shared.description[1].find("T1(i,k) = T0 (the same sum over the same tensors: computed once)") !=
          std::string::npos);
    for (std::size_t cand = 1; cand < shared.cost.size(); ++cand) {
      CAPTURE(cand);
      const bool once = shared.description[cand].find("computed once") != std::string::npos;
      CHECK(separate.description[cand].find("computed once") == std::string::npos);
      if (once) CHECK(shared.cost[cand] < separate.cost[cand]);
      CHECK(once == (shared.reuse[cand] != 0));
      CHECK(separate.reuse[cand] == 0);
      for (const bool dense : {false, true})
        for (const std::uint32_t reuse : {0u, ~0u}) {
          CAPTURE(dense);
          CAPTURE(reuse);
          loom::decompose_with(cand, s(), same, dense, reuse);
          CHECK(s.values()[0] == doctest::Approx(want));
          loom::decompose_with(cand, s(), other, dense, reuse);  // nothing to reuse: B is not A
          CHECK(s.values()[0] == doctest::Approx(want));
        }
    }
    loom::decompose(s(), same);
    CHECK(s.values()[0] == doctest::Approx(want));
  }
}

TEST_CASE("decompose: a twin with its indices the other way round is reused transposed") {
  // M(i, k) = (A*A)(i, k) * (A*A)(k, i): the second A*A is the first one transposed
  for (unsigned seed = 4; seed <= 6; ++seed) {
    const std::int64_t n = 25;
    const auto A = random_sparse(n, n, 0.2, seed);
    std::vector<double> sq(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t m = 0; m < n; ++m) sq[static_cast<std::size_t>(a * n + b)] += A.at(a, m) * A.at(m, b);
    loom::tensor<double, loom::dense_matrix> M({n, n});
    const auto rhs = loom::sum(j, loom::sum(l, A(i, j) * A(j, k) * A(l, i) * A(k, l)));
    for (std::size_t cand = 1; cand <= 2; ++cand)
      for (const bool dense : {false, true})
        for (const std::uint32_t reuse : {0u, ~0u}) {
          CAPTURE(cand);
          CAPTURE(dense);
          CAPTURE(reuse);
          loom::decompose_with(cand, M(i, k), rhs, dense, reuse);
          for (std::int64_t a = 0; a < n; ++a)
            for (std::int64_t b = 0; b < n; ++b)
              CHECK(M.at(a, b) == doctest::Approx(sq[static_cast<std::size_t>(a * n + b)] *
                                                  sq[static_cast<std::size_t>(b * n + a)]));
        }
  }
}

namespace {
struct sigmoid {
  double operator()(double x) const { return 1.0 / (1.0 + std::exp(-x)); }
};
}  // namespace

TEST_CASE("T11: logistic regression over a star join pushes theta into each feature table") {
  // sale i of product p to customer c; product features in columns 0-29, customer features in 30-59
  constexpr loom::index<"p"> p;
  constexpr loom::index<"c"> c;
  const std::int64_t sales = 300, products = 15, customers = 12, features = 60;
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::int64_t> pick_p(0, products - 1), pick_c(0, customers - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<std::array<std::int64_t, 3>> sc;
  for (std::int64_t s = 0; s < sales; ++s) sc.push_back({s, pick_p(rng), pick_c(rng)});
  const auto S = loom::from_coo<loom::csf<3>>({sales, products, customers}, sc, std::vector<double>(sc.size(), 1.0));
  loom::tensor<double, loom::dense_matrix> P({products, features}), C({customers, features});
  for (std::int64_t a = 0; a < products; ++a)
    for (std::int64_t f = 0; f < 30; ++f) P.values()[static_cast<std::size_t>(a * features + f)] = value(rng);
  for (std::int64_t a = 0; a < customers; ++a)
    for (std::int64_t f = 30; f < features; ++f) C.values()[static_cast<std::size_t>(a * features + f)] = value(rng);
  loom::tensor<double, loom::dense_vector> theta({features}), y({sales});
  for (auto& t : theta.values()) t = value(rng);

  const auto rhs = loom::map(sigmoid{}, loom::sum(p, loom::sum(c, loom::sum(j, S(i, p, c) * (P(p, j) + C(c, j)) * theta(j)))));
  loom::decompose(y(i), rhs);
  for (std::int64_t s = 0; s < sales; ++s) {  // naive: the feature row of sale s, times theta
    double dot = 0;
    for (std::int64_t f = 0; f < features; ++f) dot += (P.at(sc[s][1], f) + C.at(sc[s][2], f)) * theta.at(f);
    CHECK(y.at(s) == doctest::Approx(sigmoid{}(dot)));
  }
  // in each term theta meets its feature table in a vector over p (or c), and no intermediate over
  // j and a sale is made
  // (fused, each term costs sales x features products; at 10 features fusing would win)
  const std::string text = loom::explain_decomposition(y(i), rhs);
  CHECK(text.find("map(f, ...) applied to the result of:") != std::string::npos);
  CHECK(text.find("term 1 of 2") != std::string::npos);
  CHECK(text.find("term 2 of 2") != std::string::npos);
  std::size_t chosen_lines = 0;
  for (std::size_t at = text.find("* #"); at != std::string::npos; at = text.find("* #", at + 1)) {
    ++chosen_lines;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    CAPTURE(line);
    CHECK((line.find("(p) = sum(j") != std::string::npos || line.find("(c) = sum(j") != std::string::npos));
    CHECK(line.find(",j)") == std::string::npos);  // no intermediate over a sale (or table) and j
    CHECK(line.find("(j,i") == std::string::npos);
  }
  CHECK(chosen_lines == 2);
}
