// Tests loom::decompose on shared work: a step that repeats an earlier one (up to an index renaming)
// reuses its result, and sums over + are distributed (T11, logistic regression over a star join).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_sparse.hpp"

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::candidate;
using loom_test::dense_of;
using loom_test::random_graph;
using loom_test::random_sparse;
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
    const auto same = loom::sum(
        j, loom::sum(l, loom::sum(i, loom::sum(k, A(i, j) * A(j, k) * A(i, l) * A(l, k)))));
    const auto other = loom::sum(
        j, loom::sum(l, loom::sum(i, loom::sum(k, A(i, j) * A(j, k) * B(i, l) * B(l, k)))));
    const auto shared = loom::plan_decomposition(s(), same),
               separate = loom::plan_decomposition(s(), other);
    // eliminating j, then l: the second A*A is the first
    CHECK(shared.description[candidate(shared, "eliminate j,l, then i,k fused")].find(
              "T1(i,k) = T0 (the same sum over the same tensors: computed once)") !=
          std::string::npos);
    for (std::size_t cand = 1; cand < shared.cost.size(); ++cand) {
      CAPTURE(cand);
      const bool once = shared.description[cand].find("computed once") != std::string::npos;
      CHECK(separate.description[cand].find("computed once") == std::string::npos);
      if (once) CHECK(shared.cost[cand] < separate.cost[cand]);
      CHECK(once == (shared.reuse[cand] != 0));
      CHECK(separate.reuse[cand] == 0);
      for (const loom::intermediate_format format :
           {loom::intermediate_format::sorted, loom::intermediate_format::dense})
        for (const std::uint32_t reuse : {0u, ~0u}) {
          CAPTURE(loom::intermediate_format_name(format));
          CAPTURE(reuse);
          loom::decompose(s(), same,
                          loom::options<loom::opt::eliminate>{
                              .candidate = cand, .intermediates = {format}, .reuse = reuse});
          CHECK(s.values()[0] == doctest::Approx(want));
          loom::decompose(
              s(), other,
              loom::options<loom::opt::eliminate>{.candidate = cand,
                                                  .intermediates = {format},
                                                  .reuse = reuse});  // nothing to reuse: B is not A
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
        for (std::int64_t m = 0; m < n; ++m)
          sq[static_cast<std::size_t>(a * n + b)] += A.at(a, m) * A.at(m, b);
    loom::tensor<double, loom::dense_matrix> M({n, n});
    const auto rhs = loom::sum(j, loom::sum(l, A(i, j) * A(j, k) * A(l, i) * A(k, l)));
    const std::size_t candidates = loom::plan_decomposition(M(i, k), rhs).cost.size();
    CHECK(candidates ==
          5);  // fused, j or l eliminated first, the two full orders (their T1 is T0 transposed)
    for (std::size_t cand = 1; cand < candidates; ++cand)
      for (const loom::intermediate_format format :
           {loom::intermediate_format::sorted, loom::intermediate_format::dense})
        for (const std::uint32_t reuse : {0u, ~0u}) {
          CAPTURE(cand);
          CAPTURE(loom::intermediate_format_name(format));
          CAPTURE(reuse);
          loom::decompose(M(i, k), rhs,
                          loom::options<loom::opt::eliminate>{
                              .candidate = cand, .intermediates = {format}, .reuse = reuse});
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
  const auto S = loom::from_coo<loom::csf<3>>({sales, products, customers}, sc,
                                              std::vector<double>(sc.size(), 1.0));
  loom::tensor<double, loom::dense_matrix> P({products, features}), C({customers, features});
  for (std::int64_t a = 0; a < products; ++a)
    for (std::int64_t f = 0; f < 30; ++f)
      P.values()[static_cast<std::size_t>(a * features + f)] = value(rng);
  for (std::int64_t a = 0; a < customers; ++a)
    for (std::int64_t f = 30; f < features; ++f)
      C.values()[static_cast<std::size_t>(a * features + f)] = value(rng);
  loom::tensor<double, loom::dense_vector> theta({features}), y({sales});
  for (auto& t : theta.values()) t = value(rng);

  const auto rhs = loom::map(
      sigmoid{},
      loom::sum(p, loom::sum(c, loom::sum(j, S(i, p, c) * (P(p, j) + C(c, j)) * theta(j)))));
  loom::decompose(y(i), rhs);
  for (std::int64_t s = 0; s < sales; ++s) {  // naive: the feature row of sale s, times theta
    double dot = 0;
    for (std::int64_t f = 0; f < features; ++f)
      dot += (P.at(sc[s][1], f) + C.at(sc[s][2], f)) * theta.at(f);
    CHECK(y.at(s) == doctest::Approx(sigmoid{}(dot)));
  }
  // in each term theta meets its feature table in a vector over p (or c), and no intermediate over
  // j and a sale is made
  // (fused, each term costs sales x features products; at 10 features fusing would win)
  const std::string text = loom::explain(y(i), rhs, loom::options<loom::opt::eliminate>{});
  CHECK(text.find("map(f, ...) applied to the result of:") != std::string::npos);
  CHECK(text.find("term 1 of 2") != std::string::npos);
  CHECK(text.find("term 2 of 2") != std::string::npos);
  std::size_t chosen_lines = 0;
  for (std::size_t at = text.find("* #"); at != std::string::npos; at = text.find("* #", at + 1)) {
    ++chosen_lines;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    CAPTURE(line);
    CHECK((line.find("(p) = sum(j") != std::string::npos ||
           line.find("(c) = sum(j") != std::string::npos));
    CHECK(line.find(",j)") == std::string::npos);  // no intermediate over a sale (or table) and j
    CHECK(line.find("(j,i") == std::string::npos);
    // p and c are summed in one kernel over S: no marginal of S over a sale is materialised
    CHECK(line.find("eliminate j, then p,c fused") != std::string::npos);
  }
  CHECK(chosen_lines == 2);
}
