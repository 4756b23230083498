// loom::max(j, e) and loom::min(j, e): e computed first, reduced over j with absent entries
// counting as zero, against a dense computation over formats, densities and seeds; a max of a
// sum (the largest entry of each row of a product), inside a larger expression, as a scalar, and
// in explain.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

namespace lt = loom::test;
constexpr loom::index<"agg_i"> i;
constexpr loom::index<"agg_j"> j;
constexpr loom::index<"agg_k"> k;

// rows x cols of e as a dense row-major array, reduced per row by max or min (absent = 0)
std::vector<double> reduce_rows(const lt::dense_result<double, 2>& e, bool take_max) {
  const auto rows = e.shape[0], cols = e.shape[1];
  std::vector<double> out(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    double best = e.values[static_cast<std::size_t>(r * cols)];
    for (std::int64_t c = 1; c < cols; ++c) {
      const double v = e.values[static_cast<std::size_t>(r * cols + c)];
      best = take_max ? std::max(best, v) : std::min(best, v);
    }
    out[static_cast<std::size_t>(r)] = best;
  }
  return out;
}

}  // namespace

TEST_CASE(
    "aggregate: max and min over an index of products and sums match a dense "
    "computation") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      const auto A = lt::random_tensor<double, loom::csr>({12, 9}, d, seed);
      const auto B = lt::random_tensor<double, loom::dcsr>({9, 11}, d, seed + 3);
      const auto x = lt::random_tensor<double, loom::dense_vector>({9}, lt::density::full, seed);
      const auto b = lt::random_tensor<double, loom::dense_vector>({12}, lt::density::full, seed);
      loom::tensor<double, loom::dense_vector> y({12});
      loom::tensor<double, loom::dense_matrix> E({12, 9}), P({12, 11});
      const auto ax = lt::reference_eval(E(i, j), A(i, j) * x(j));
      const auto ab = lt::reference_eval(P(i, k), loom::sum(j, A(i, j) * B(j, k)));
      auto check = [&](const std::vector<double>& want) {
        const auto got = lt::to_dense(y);
        for (std::size_t r = 0; r < want.size(); ++r)
          CHECK(got.values[r] == doctest::Approx(want[r]));
      };
      y(i) = loom::max(j, A(i, j) * x(j));
      check(reduce_rows(ax, true));
      y(i) = loom::min(j, A(i, j) * x(j));
      check(reduce_rows(ax, false));
      // the largest entry of each row of a product: a max of a sum
      y(i) = loom::max(k, loom::sum(j, A(i, j) * B(j, k)));
      check(reduce_rows(ab, true));
      // inside a larger expression, and accumulated
      y(i) = 2.0 * loom::max(k, loom::sum(j, A(i, j) * B(j, k))) + b(i);
      auto want = reduce_rows(ab, true);
      for (std::size_t r = 0; r < want.size(); ++r)
        want[r] = 2 * want[r] + b.at(static_cast<std::int64_t>(r));
      check(want);
      y(i) += loom::min(j, A(i, j) * x(j));
      const auto mins = reduce_rows(ax, false);
      for (std::size_t r = 0; r < want.size(); ++r) want[r] += mins[r];
      check(want);
      // a scalar: the largest row sum
      std::vector<double> row_sums(12, 0.0);
      for (std::int64_t r = 0; r < 12; ++r)
        for (std::int64_t c = 0; c < 9; ++c) row_sums[static_cast<std::size_t>(r)] += A.at(r, c);
      CHECK(loom::eval(loom::max(i, loom::sum(j, A(i, j)))) ==
            doctest::Approx(*std::max_element(row_sums.begin(), row_sums.end())));
    }
}

TEST_CASE("aggregate: an absent entry counts as zero") {
  // row 0: -1 and -2 stored among 4 columns (max 0); row 1: all four stored (max -1); row 2 empty
  const auto A = loom::from_coo<loom::csr>({3, 4}, {{0, 0}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {1, 3}},
                                           std::vector<double>{-1, -2, -1, -3, -4, -5});
  loom::tensor<double, loom::dense_vector> y({3});
  y(i) = loom::max(j, A(i, j));
  CHECK(y.at(0) == 0);
  CHECK(y.at(1) == -1);
  CHECK(y.at(2) == 0);
  y(i) = loom::min(j, A(i, j));
  CHECK(y.at(0) == -2);
  CHECK(y.at(1) == -5);
  CHECK(y.at(2) == 0);
}

TEST_CASE("aggregate: explain shows the aggregate's own kernel first") {
  auto A = lt::random_tensor<double, loom::csr>({10, 8}, lt::density::medium, 2);
  A.set_name("A");
  loom::tensor<double, loom::dense_vector> y({10});
  const std::string text = loom::explain(y(i), 3.0 * loom::max(j, A(i, j)));
  CAPTURE(text);
  CHECK(text.find("aggregate computed first: A(agg_i,agg_j) into a temporary") !=
        std::string::npos);
}

TEST_CASE("aggregate: nested aggregates, and one read through a program") {
  const auto A = lt::random_tensor<double, loom::csr>({7, 5}, lt::density::full, 8);
  double most = 0;
  bool first = true;
  for (std::int64_t r = 0; r < 7; ++r)
    for (std::int64_t c = 0; c < 5; ++c) {
      most = first ? A.at(r, c) : std::max(most, A.at(r, c));
      first = false;
    }
  CHECK(loom::eval(loom::max(i, loom::max(j, A(i, j)))) == doctest::Approx(most));
  loom::tensor<double, loom::dense_vector> y({7}), z({7});
  const auto m = loom::max(j, A(i, j));
  auto p = loom::program(loom::let(y(i), 2.0 * m), loom::let(z(i), m + 1.0));
  p.run();
  for (std::int64_t r = 0; r < 7; ++r) CHECK(z.at(r) == doctest::Approx(y.at(r) / 2 + 1));
  std::size_t ordinal = 0;
  CHECK(loom::detail::to_string(m, ordinal) == "max(agg_j, T0(agg_i,agg_j))");
}
