// Key ranges as an implicit stream level (rel::interval, Etch's predRange): the same answers as
// the materialised range vector and a brute-force loop, whether the planner iterates it
// (seeking by jumps) or locates it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {
namespace rel = loom::relational;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
}  // namespace

TEST_CASE("interval selects the keys in [lo, hi), iterated or located") {
  std::mt19937 gen(9);
  const std::int64_t n = 50;
  std::vector<std::array<std::int64_t, 2>> crd;
  std::vector<double> val;
  for (int k = 0; k < 300; ++k) {
    crd.push_back({static_cast<std::int64_t>(gen() % n), static_cast<std::int64_t>(gen() % n)});
    val.push_back(static_cast<double>(1 + gen() % 9));
  }
  const auto D = loom::from_coo<loom::dcsr>({n, n}, crd, val, loom::duplicates::sum);  // iterated
  const auto C = loom::from_coo<loom::csr>({n, n}, crd, val, loom::duplicates::sum);   // located
  for (const auto& [lo, hi] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, 50}, {10, 20}, {-5, 3}, {45, 99}, {7, 7}, {30, 10}}) {
    const auto iv = rel::interval<double>(lo, hi, n);
    loom::tensor<double, loom::dense_vector> y1({n}), y2({n}), y3({n});
    y1(b) = loom::sum(a, iv(a) * D(a, b));
    y2(b) = loom::sum(a, iv(a) * C(a, b));
    const auto rg = rel::range<double>(lo, hi, n);
    y3(b) = loom::sum(a, rg(a) * D(a, b));
    for (std::int64_t c = 0; c < n; ++c) {
      double ref = 0;
      for (std::int64_t r = std::max<std::int64_t>(lo, 0); r < std::min(hi, n); ++r) ref += D.at(r, c);
      CHECK(y1.at(c) == ref);
      CHECK(y2.at(c) == ref);
      CHECK(y3.at(c) == ref);
    }
  }
  CHECK(rel::interval<double>(3, 8, 10).nnz() == 1);  // no stored keys: one shared value
}

TEST_CASE("an assembled interval level holds consecutive keys and rejects gaps") {
  const auto t = loom::from_coo<loom::format<rel::interval_level>>({10}, {{4}, {3}, {5}},
                                                                   std::vector<double>{2, 1, 3});
  CHECK(t.at(3) == 1);
  CHECK(t.at(5) == 3);
  CHECK(t.at(6) == 0);
  CHECK(loom::eval(loom::sum(a, t(a) * rel::interval<double>(4, 10, 10)(a))) == 5);
  CHECK_THROWS_AS((loom::from_coo<loom::format<rel::interval_level>>({10}, {{1}, {3}},
                                                                     std::vector<double>{1, 1})),
                  loom::shape_error);
}
