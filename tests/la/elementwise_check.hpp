// The check behind tests/la/elementwise_functions_*.cpp: each element-wise function of loom::la
// over one storage format, against the same arithmetic done entry by entry on the dense twin and
// against the naive operation-at-a-time plan. One format per translation unit: the three formats
// in one unit took 60 s and 3.9 GB under g++ -O0 (no test unit over 30 s).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_LA_ELEMENTWISE_CHECK_HPP
#define LOOM_TESTS_LA_ELEMENTWISE_CHECK_HPP

#include <loom/la.hpp>
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../support/random.hpp"

namespace loom_test_elementwise {

namespace lt = loom::test;

// The dense twin of a matrix, row-major.
template <class T> std::vector<double> dense_of(const T& t) {
  std::vector<double> d(static_cast<std::size_t>(t.extent(0) * t.extent(1)));
  for (std::int64_t r = 0; r < t.extent(0); ++r)
    for (std::int64_t c = 0; c < t.extent(1); ++c)
      d[static_cast<std::size_t>(r * t.extent(1) + c)] = t.at(r, c);
  return d;
}

template <class T> void check_matrix(const T& got, const std::vector<double>& want) {
  const auto d = dense_of(got);
  REQUIRE(d.size() == want.size());
  for (std::size_t p = 0; p < d.size(); ++p) {
    CAPTURE(p);
    if (std::isinf(want[p]))
      CHECK(d[p] == want[p]);
    else
      CHECK(d[p] == doctest::Approx(want[p]));
  }
}

template <class Format> void check_formats(lt::density density, std::uint64_t seed) {
  const auto A = lt::random_tensor<double, Format>({7, 9}, density, seed);
  const auto B = lt::random_tensor<double, Format>({7, 9}, lt::density::medium, seed + 5);
  const auto a = loom::la::mat(A), b = loom::la::mat(B);
  const auto da = dense_of(A), db = dense_of(B);
  auto each = [&](auto expression, auto f) {
    std::vector<double> want(da.size());
    for (std::size_t p = 0; p < da.size(); ++p) want[p] = f(da[p], db[p]);
    check_matrix(loom::la::eval(expression), want);
    check_matrix(loom::la::eval_naive(expression), want);
  };
  each(loom::la::exp(a), [](double x, double) { return std::exp(x); });
  each(loom::la::log(loom::la::abs(a) + 1.0),
       [](double x, double) { return std::log(std::abs(x) + 1); });
  each(loom::la::sigmoid(a), [](double x, double) { return 1 / (1 + std::exp(-x)); });
  each(loom::la::abs(a - b), [](double x, double y) { return std::abs(x - y); });
  each(loom::la::max(a, b), [](double x, double y) { return std::max(x, y); });
  each(loom::la::min(a, b), [](double x, double y) { return std::min(x, y); });
  each(loom::la::max(a, 2.0), [](double x, double) { return std::max(x, 2.0); });
  each(loom::la::min(1.0, a), [](double x, double) { return std::min(1.0, x); });
  each(a > b, [](double x, double y) { return x > y ? 1.0 : 0.0; });
  each(a <= b, [](double x, double y) { return x <= y ? 1.0 : 0.0; });
  each(a < 2.0, [](double x, double) { return x < 2.0 ? 1.0 : 0.0; });
  each(a >= 2.0, [](double x, double) { return x >= 2.0 ? 1.0 : 0.0; });
  each(loom::la::where(a > 2.0, b), [](double x, double y) { return x > 2.0 ? y : 0.0; });
  each(loom::la::where(b, loom::la::exp(a)),
       [](double x, double y) { return y != 0 ? std::exp(x) : 0.0; });
}

// check_formats at every density and three seeds.
template <class Format> void check_every_case() {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d :
         {lt::density::empty, lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      check_formats<Format>(d, seed);
    }
}

}  // namespace loom_test_elementwise

#endif  // LOOM_TESTS_LA_ELEMENTWISE_CHECK_HPP
