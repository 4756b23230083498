// Tests loom::uniform_estimator against the worked values of Galley (§9.3 T3).
// SPDX-License-Identifier: BSL-1.0
#include <loom/optimize/statistics/sparsity_estimator.hpp>
#include <loom/optimize/statistics/uniform_estimator.hpp>

#include <doctest/doctest.h>

#include <vector>

using loom::uniform_estimator;
static_assert(loom::sparsity_estimator<uniform_estimator>);

namespace {
// A and B are 1000 x 1000 with nnz = 10,000 each (p = 0.01).
uniform_estimator matrix(const char* r, const char* c) {
  return uniform_estimator({{r, 1000}, {c, 1000}}, 10000);
}
double conj(const uniform_estimator& a, const uniform_estimator& b) {
  const std::vector<uniform_estimator> v{a, b};
  return uniform_estimator::conjunction(v).estimate();
}
}  // namespace

TEST_CASE("uniform: A[i,j] * B[i,j] = 10^6 * 10^-4 = 100") {
  CHECK(conj(matrix("i", "j"), matrix("i", "j")) == doctest::Approx(100).epsilon(1e-12));
}

TEST_CASE("uniform: A[i,j] + B[i,j] = 10^6 * (1 - 0.99^2) = 19,900") {
  const std::vector<uniform_estimator> v{matrix("i", "j"), matrix("i", "j")};
  CHECK(uniform_estimator::disjunction(v).estimate() == doctest::Approx(19900).epsilon(1e-12));
}

TEST_CASE("uniform: sum_j A[i,j] = 1000 * (1 - 0.99^1000) = 999.957") {
  const uniform_estimator r = matrix("i", "j").aggregate({"j"});
  CHECK(r.indices().size() == 1);
  CHECK(r.estimate() == doctest::Approx(999.957).epsilon(1e-6));  // notes give 3 decimals
}

TEST_CASE("uniform: A[i,j] * B[j,k] = 10^9 * 10^-4 = 100,000") {
  CHECK(conj(matrix("i", "j"), matrix("j", "k")) == doctest::Approx(100000).epsilon(1e-12));
}

TEST_CASE("uniform: sum_j A[i,j] * B[j,k] = 10^6 * (1 - (1 - 10^-4)^1000) = 95,167.1") {
  const std::vector<uniform_estimator> v{matrix("i", "j"), matrix("j", "k")};
  const uniform_estimator r = uniform_estimator::conjunction(v).aggregate({"j"});
  CHECK(r.estimate() == doctest::Approx(95167.1).epsilon(1e-6));  // notes give 1 decimal
}

TEST_CASE("uniform: A[i,j] + b[j], nnz(b) = 100, |j| = 1000: 10^6 * (1 - 0.99 * 0.9) = 109,000") {
  const std::vector<uniform_estimator> v{matrix("i", "j"), uniform_estimator({{"j", 1000}}, 100)};
  CHECK(uniform_estimator::disjunction(v).estimate() == doctest::Approx(109000).epsilon(1e-12));
}

TEST_CASE("uniform: the chain-bound comparison case, A * B then sum_j, is 95,167 (notes §5.5)") {
  const std::vector<uniform_estimator> v{matrix("i", "j"), matrix("j", "k")};
  CHECK(uniform_estimator::conjunction(v).aggregate({"j"}).estimate() ==
        doctest::Approx(95167).epsilon(1e-5));
}

TEST_CASE("uniform: construction from statistics, estimate_given, errors") {
  loom::statistics s;
  s.shape = {10, 20};
  s.nnz = 50;
  const uniform_estimator e(s, {"i", "j"});
  CHECK(e.estimate() == 50);
  CHECK(e.density() == doctest::Approx(0.25));
  CHECK(e.estimate_given({"i"}) == doctest::Approx(5.0));
  CHECK(uniform_estimator::full({{"i", 3}, {"k", 4}}).estimate() == 12);
  CHECK_THROWS_WITH_AS(uniform_estimator(s, {"i"}),
                       "loom::uniform_estimator: 1 index names for a tensor of order 2",
                       loom::shape_error);
  CHECK_THROWS_AS(uniform_estimator({{"i", 3}, {"i", 3}}, 1), loom::shape_error);
  const std::vector<uniform_estimator> bad{uniform_estimator({{"i", 3}}, 1),
                                           uniform_estimator({{"i", 4}}, 1)};
  CHECK_THROWS_AS(uniform_estimator::conjunction(bad), loom::shape_error);
}
