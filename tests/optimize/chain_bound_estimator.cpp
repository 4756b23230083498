// Tests loom::chain_bound_estimator against the 13 worked cases and the matrix-product bound of
// Galley (T4 in §9.3; Galley.jl's test/stats-tests.jl).
// SPDX-License-Identifier: BSL-1.0
#include <loom/optimize/statistics/chain_bound_estimator.hpp>
#include <loom/optimize/statistics/estimate_map.hpp>
#include <loom/optimize/statistics/sparsity_estimator.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using loom::chain_bound_estimator;
using loom::degree_constraint;
static_assert(loom::sparsity_estimator<chain_bound_estimator>);

namespace {
using dcs = std::vector<degree_constraint>;
using names = std::vector<std::string>;
using list = std::vector<chain_bound_estimator>;

chain_bound_estimator conj(const list& v) { return chain_bound_estimator::conjunction(v); }
chain_bound_estimator disj(const list& v) { return chain_bound_estimator::disjunction(v); }

// One edge x-y of the triangle: (∅→{x,y}:n), ({x}→{y}:deg), ({y}→{x}:deg), dimensions 1000.
chain_bound_estimator edge(const char* x, const char* y, double n, double deg) {
  return chain_bound_estimator({{x, 1000}, {y, 1000}},
                               dcs{{{}, {x, y}, n}, {{x}, {y}, deg}, {{y}, {x}, deg}});
}
chain_bound_estimator triangle(double ij_n, double ij_deg) {
  return conj({edge("i", "j", ij_n, ij_deg), edge("j", "k", 50, 5), edge("i", "k", 50, 5)});
}
}  // namespace

TEST_CASE("chain bound: single matrix = 50") {
  const chain_bound_estimator a({{"i", 1000}, {"j", 1000}},
                                dcs{{{"i"}, {"j"}, 5}, {{"j"}, {"i"}, 25}, {{}, {"i", "j"}, 50}});
  CHECK(a.estimate() == 50);
}

TEST_CASE("chain bound: 1 join = 250") {
  const chain_bound_estimator a({{"i", 1000}, {"j", 1000}}, dcs{{{}, {"i", "j"}, 50}});
  const chain_bound_estimator b({{"j", 1000}, {"k", 1000}}, dcs{{{"j"}, {"k"}, 5}});
  CHECK(conj({a, b}).estimate() == 250);
}

TEST_CASE("chain bound: 2 joins = 1250") {
  const chain_bound_estimator a({{"i", 1000}, {"j", 1000}}, dcs{{{}, {"i", "j"}, 50}});
  const chain_bound_estimator b({{"j", 1000}, {"k", 1000}}, dcs{{{"j"}, {"k"}, 5}});
  const chain_bound_estimator c({{"k", 1000}, {"l", 1000}}, dcs{{{"k"}, {"l"}, 5}});
  CHECK(conj({a, b, c}).estimate() == 1250);
}

TEST_CASE("chain bound: triangle = 250") { CHECK(triangle(50, 5).estimate() == 250); }

TEST_CASE("chain bound: triangle with |R(i,j)| = 1 = 5") { CHECK(triangle(1, 1).estimate() == 5); }

TEST_CASE("chain bound: triangle, full reduce over {i,j,k} = 1") {
  CHECK(triangle(50, 5).aggregate({"i", "j", "k"}).estimate() == 1);
}

TEST_CASE("chain bound: triangle-small, reduce {i,j} = 5") {
  const chain_bound_estimator r = triangle(1, 1).aggregate({"i", "j"});
  CHECK(r.indices().size() == 1);
  CHECK(r.estimate() == 5);
}

TEST_CASE("chain bound: triangle-small, reduce {i} = 5") {
  CHECK(triangle(1, 1).aggregate({"i"}).estimate() == 5);
}

TEST_CASE("chain bound: 1-D disjunction = 2") {
  const chain_bound_estimator v1({{"i", 1000}}, dcs{{{}, {"i"}, 1}});
  const chain_bound_estimator v2({{"i", 1000}}, dcs{{{}, {"i"}, 1}});
  CHECK(disj({v1, v2}).estimate() == 2);
}

TEST_CASE("chain bound: 2-D disjunction, |i| = 1000, |j| = 100 = 2") {
  const chain_bound_estimator a({{"i", 1000}, {"j", 100}}, dcs{{{}, {"i", "j"}, 1}});
  const chain_bound_estimator b({{"i", 1000}, {"j", 100}}, dcs{{{}, {"i", "j"}, 1}});
  CHECK(disj({a, b}).estimate() == 2);
}

TEST_CASE("chain bound: disjoint disjunction 1-D + 1-D = 5*100 + 10*1000 = 10,500") {
  const chain_bound_estimator a({{"i", 1000}}, dcs{{{}, {"i"}, 5}});
  const chain_bound_estimator b({{"j", 100}}, dcs{{{}, {"j"}, 10}});
  const chain_bound_estimator u = disj({a, b});
  CHECK(u.estimate() == 10500);
  const std::vector<degree_constraint> expected{{{}, {"i", "j"}, 10500}};
  CHECK(u.constraints() == expected);  // only the key common to both operands survives
}

TEST_CASE("chain bound: disjoint disjunction 2-D + 2-D = 5*1000 + 10*1000 = 15,000") {
  const chain_bound_estimator a({{"i", 1000}, {"j", 100}}, dcs{{{}, {"i", "j"}, 5}});
  const chain_bound_estimator b({{"j", 100}, {"k", 1000}}, dcs{{{}, {"j", "k"}, 10}});
  CHECK(disj({a, b}).estimate() == 15000);
}

TEST_CASE("chain bound: mixture A (fill 1) * B (fill 1) * C (fill 0) = 10") {
  const chain_bound_estimator a({{"i", 1000}, {"j", 1000}}, dcs{{{}, {"i", "j"}, 5}});
  const chain_bound_estimator b({{"j", 1000}, {"k", 1000}}, dcs{{{}, {"j", "k"}, 10}});
  const chain_bound_estimator c({{"i", 1000}, {"j", 1000}, {"k", 1000}},
                                dcs{{{}, {"i", "j", "k"}, 10}});
  const list args{a, b, c};
  const bool annihilates[] = {false, false, true};  // only C's fill (0) annihilates *
  CHECK(loom::estimate_map<chain_bound_estimator>(args, annihilates).estimate() == 10);
}

TEST_CASE("chain bound: matrix product bound 250,000 (uniform gives 95,167)") {
  const chain_bound_estimator a(
      {{"i", 1000}, {"j", 1000}},
      dcs{{{}, {"i", "j"}, 10000}, {{"i"}, {"j"}, 20}, {{"j"}, {"i"}, 30}, {{}, {"i"}, 900}});
  const chain_bound_estimator b(
      {{"j", 1000}, {"k", 1000}},
      dcs{{{}, {"j", "k"}, 10000}, {{"j"}, {"k"}, 25}, {{"k"}, {"j"}, 15}, {{}, {"k"}, 800}});
  const chain_bound_estimator ab = conj({a, b});
  CHECK(ab.estimate() == 250000);
  CHECK(ab.aggregate({"j"}).estimate() == 250000);  // min(250,000, 10^6)
}

TEST_CASE("chain bound: from statistics, full, conditional estimate, errors") {
  loom::statistics s;
  s.shape = {1000, 1000};
  s.nnz = 50;
  s.distinct = {40, 30};
  s.max_degree = {5, 25};
  const chain_bound_estimator a(s, {"i", "j"});
  CHECK(a.estimate() == 50);
  CHECK(a.estimate_given({"i"}) == 5);
  CHECK(a.estimate_given({"j"}) == 25);
  CHECK(a.aggregate({"j"}).estimate() == 40);  // distinct rows
  // Broadcasting a against a full vector over k: each (i,j) gets all 7 values of k.
  CHECK(conj({a, chain_bound_estimator::full({{"k", 7}})}).estimate() == 350);
  CHECK_THROWS_AS(chain_bound_estimator({{"i", 3}}, dcs{{{}, {"q"}, 1}}), loom::shape_error);
  CHECK_THROWS_WITH_AS(chain_bound_estimator(s, {"i"}),
                       "loom::chain_bound_estimator: 1 index names for a tensor of order 2",
                       loom::shape_error);
}
