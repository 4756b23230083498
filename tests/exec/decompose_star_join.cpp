// Tests loom::decompose on T11, logistic regression over a star join: sums over + are distributed
// and theta is pushed into each feature table (moved from decompose_shared.cpp, which took 47 s
// under g++ -O0 with it: ).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
}  // namespace

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
