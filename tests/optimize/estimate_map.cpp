// Tests loom::estimate_map's dispatch: all join-like, all union-like, mixed, scalars skipped.
// SPDX-License-Identifier: BSL-1.0
#include <loom/optimize/statistics/estimate_map.hpp>
#include <loom/optimize/statistics/uniform_estimator.hpp>

#include <doctest/doctest.h>

#include <vector>

using loom::uniform_estimator;

TEST_CASE("estimate_map with the uniform estimator") {
  const uniform_estimator a({{"i", 1000}, {"j", 1000}}, 10000);
  const uniform_estimator b({{"i", 1000}, {"j", 1000}}, 10000);
  const uniform_estimator c({{"k", 10}}, 5);
  const uniform_estimator scalar({}, 1);
  {
    const std::vector<uniform_estimator> v{a, b};
    const bool join[] = {true, true};
    const bool uni[] = {false, false};
    CHECK(loom::estimate_map<uniform_estimator>(v, join).estimate() ==
          doctest::Approx(100).epsilon(1e-12));
    CHECK(loom::estimate_map<uniform_estimator>(v, uni).estimate() ==
          doctest::Approx(19900).epsilon(1e-12));
  }
  {
    // a (join-like) * c (union-like, e.g. fill 1): a's non-fills broadcast over k.
    const std::vector<uniform_estimator> v{a, c, scalar};
    const bool mixed[] = {true, false, false};
    const uniform_estimator r = loom::estimate_map<uniform_estimator>(v, mixed);
    CHECK(r.indices().size() == 3);
    CHECK(r.estimate() == doctest::Approx(100000).epsilon(1e-12));
  }
  const std::vector<uniform_estimator> v{a};
  const bool flags[] = {true, true};
  CHECK_THROWS_AS(loom::estimate_map<uniform_estimator>(v, flags), loom::error);
}
