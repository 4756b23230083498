// loom::la's element-wise functions: the sparsity rules (abs, max, min and
// where keep a sparse operand's pattern), SPORES' GLM and MLR gradients and the SVM hinge loss
// written with them, and functions of scalars. Each function against the entry-by-entry
// arithmetic and the naive plan, per format, is in elementwise_functions_{csr,dense_matrix,dcsc}.cpp
// (moved from here: one format per translation unit).
// SPDX-License-Identifier: BSL-1.0
#include <loom/la.hpp>
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../support/random.hpp"
#include "elementwise_check.hpp"

namespace {
namespace lt = loom::test;
using loom_test_elementwise::check_matrix;
}  // namespace

TEST_CASE("la element-wise functions: f(0) decides whether a sparse operand stays sparse") {
  // abs is zero-preserving as a type and runs over the stored entries only; max and min decide
  // at run time from f(0, c) (a constant operand may make them dense); exp, log and sigmoid are
  // dense
  static_assert(loom::fn::is_zero_preserving_v<loom::fn::abs>);
  static_assert(!loom::fn::is_zero_preserving_v<loom::fn::maximum>);
  static_assert(!loom::fn::is_zero_preserving_v<loom::fn::minimum>);
  static_assert(!loom::fn::is_zero_preserving_v<loom::fn::exp>);
  static_assert(!loom::fn::is_zero_preserving_v<loom::fn::sigmoid>);
  static_assert(!loom::fn::is_zero_preserving_v<loom::fn::log>);
  const auto A = lt::random_tensor<double, loom::csr>({20, 30}, lt::density::sparse, 9);
  const auto a = loom::la::mat(A);
  // the printed index notation names the function
  CHECK(loom::la::explain(loom::la::abs(a)).find("abs(") != std::string::npos);
  CHECK(loom::la::explain(loom::la::max(a, 0.0)).find("max(") != std::string::npos);
  // a sparse output of abs(A) holds A's pattern: no more entries than A
  loom::tensor<double, loom::csr> out({20, 30});
  constexpr loom::index<"ef_i"> i;
  constexpr loom::index<"ef_j"> j;
  out(i, j) = loom::map(loom::fn::abs{}, A(i, j));
  CHECK(out.values().size() <= A.values().size());
  out(i, j) = loom::map(loom::fn::maximum{}, A(i, j), A(i, j));
  CHECK(out.values().size() <= A.values().size());
}

TEST_CASE("la: the logistic-regression gradient of SPORES' GLM, X^T (sigmoid(X w) - y)") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const auto X = lt::random_tensor<double, loom::csr>({40, 12}, lt::density::medium, seed);
    const auto w = lt::random_tensor<double, loom::dense_vector>({12}, lt::density::full, seed + 1);
    const auto y =
        lt::random_tensor<double, loom::dense_vector>({40}, lt::density::medium, seed + 2);
    const auto x = loom::la::mat(X);
    const auto ww = loom::la::mat(w), yy = loom::la::mat(y);
    const auto gradient = loom::la::transpose(x) * (loom::la::sigmoid(x * ww) - yy);
    std::vector<double> want(12, 0.0);
    for (std::int64_t r = 0; r < 40; ++r) {
      double z = 0;
      for (std::int64_t c = 0; c < 12; ++c) z += X.at(r, c) * w.at(c);
      const double residual = 1 / (1 + std::exp(-z)) - y.at(r);
      for (std::int64_t c = 0; c < 12; ++c)
        want[static_cast<std::size_t>(c)] += X.at(r, c) * residual;
    }
    const auto got = loom::la::eval(gradient);
    const auto naive = loom::la::eval_naive(gradient);
    for (std::int64_t c = 0; c < 12; ++c) {
      CHECK(got.at(c) == doctest::Approx(want[static_cast<std::size_t>(c)]));
      CHECK(naive.at(c) == doctest::Approx(want[static_cast<std::size_t>(c)]));
    }
    // the SVM hinge loss, sum(max(0, 1 - y o (X w)))
    const auto hinge = loom::la::sum(loom::la::max(0.0, 1.0 - loom::la::hadamard(yy, x * ww)));
    double want_hinge = 0;
    for (std::int64_t r = 0; r < 40; ++r) {
      double z = 0;
      for (std::int64_t c = 0; c < 12; ++c) z += X.at(r, c) * w.at(c);
      want_hinge += std::max(0.0, 1 - y.at(r) * z);
    }
    CHECK(loom::la::eval(hinge) == doctest::Approx(want_hinge));
    CHECK(loom::la::eval_naive(hinge) == doctest::Approx(want_hinge));
  }
}

TEST_CASE(
    "la: the multinomial logistic regression gradient of SPORES' MLR, X^T (softmax(X W) - Y)") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const auto X = lt::random_tensor<double, loom::csr>({30, 8}, lt::density::medium, seed);
    auto W = lt::random_tensor<double, loom::dense_matrix>({8, 3}, lt::density::full, seed + 1);
    for (double& v : W.values()) v /= 8;  // keep exp in range
    loom::tensor<double, loom::dense_matrix> Y({30, 3});
    for (std::int64_t r = 0; r < 30; ++r) Y.at(r, r % 3) = 1;  // one-hot classes
    const auto x = loom::la::mat(X);
    const auto w = loom::la::mat(W), y = loom::la::mat(Y);
    const auto scores = loom::la::exp(x * w);
    const auto gradient = loom::la::transpose(x) * (scores / loom::la::row_sums(scores) - y);
    std::vector<double> want(8 * 3, 0.0);
    for (std::int64_t r = 0; r < 30; ++r) {
      double e[3], total = 0;
      for (std::int64_t k = 0; k < 3; ++k) {
        double z = 0;
        for (std::int64_t c = 0; c < 8; ++c) z += X.at(r, c) * W.at(c, k);
        e[k] = std::exp(z);
        total += e[k];
      }
      for (std::int64_t c = 0; c < 8; ++c)
        for (std::int64_t k = 0; k < 3; ++k)
          want[static_cast<std::size_t>(c * 3 + k)] += X.at(r, c) * (e[k] / total - Y.at(r, k));
    }
    check_matrix(loom::la::eval(gradient), want);
    check_matrix(loom::la::eval_naive(gradient), want);
    // exp(X W) is computed once for both of its uses, the softmax once, then two sparse products
    const std::string plan = loom::la::explain(gradient);
    CAPTURE(plan);
    CHECK(plan.find("computed once: exp(") != std::string::npos);
    CHECK(plan.find("reused: exp(") != std::string::npos);
    CHECK(plan.find("computed once: (") != std::string::npos);  // the division
  }
}

TEST_CASE("la element-wise functions of scalars: exp(sum(A)), max(sum(A), 1) + sum(A)") {
  const auto A = lt::random_tensor<double, loom::csr>({6, 5}, lt::density::medium, 4);
  const auto a = loom::la::mat(A);
  double total = 0;
  for (std::int64_t r = 0; r < 6; ++r)
    for (std::int64_t c = 0; c < 5; ++c) total += A.at(r, c);
  // a function of a sum that is a scalar is computed once into a scalar, then folded
  CHECK(loom::la::eval(loom::la::exp(loom::la::sum(a) / 100.0)) ==
        doctest::Approx(std::exp(total / 100)));
  CHECK(loom::la::eval(loom::la::max(loom::la::sum(a), 1.0) + loom::la::sum(a)) ==
        doctest::Approx(std::max(total, 1.0) + total));
  CHECK(loom::la::eval_naive(loom::la::max(loom::la::sum(a), 1.0) + loom::la::sum(a)) ==
        doctest::Approx(std::max(total, 1.0) + total));
  CHECK(loom::la::explain(loom::la::exp(loom::la::sum(a) / 100.0)).find("computed once: sum(") !=
        std::string::npos);
}
