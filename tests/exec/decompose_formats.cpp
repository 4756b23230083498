// Tests loom::decompose's intermediate formats: every candidate with sorted and with dense
// intermediates against a dense reference, a format given per step, and the estimate that makes an
// intermediate dense when nearly full, sorted when nearly empty (moved from decompose.cpp, which
// took 35 s under g++ -O0 with them: ).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "random_sparse.hpp"

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::candidate;
using loom_test::random_sparse;
}  // namespace

TEST_CASE("decompose: every candidate with sorted and with dense intermediates") {
  const auto A = random_sparse(14, 11, 0.3, 7), B = random_sparse(11, 16, 0.2, 8),
             C = random_sparse(16, 9, 0.4, 9);
  loom::tensor<double, loom::dense_matrix> want({14, 9}), got({14, 9});
  const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
  want(i, l) = rhs;
  const auto plan = loom::plan_decomposition(got(i, l), rhs);
  REQUIRE(plan.format.size() == plan.cost.size());
  for (std::size_t c = 1; c < plan.cost.size(); ++c)
    for (const loom::intermediate_format format :
         {loom::intermediate_format::sorted, loom::intermediate_format::dense}) {
      CAPTURE(c);
      CAPTURE(loom::intermediate_format_name(format));
      std::fill(got.values().begin(), got.values().end(), -1.0);
      loom::decompose(
          got(i, l), rhs,
          loom::options<loom::opt::eliminate>{.candidate = c, .intermediates = {format}});
      for (std::int64_t r = 0; r < 14; ++r)
        for (std::int64_t q = 0; q < 9; ++q) CHECK(got.at(r, q) == doctest::Approx(want.at(r, q)));
    }
  // formats given per step: one format for both is compiled in, a mix only with
  // opt::format_per_step (tests/exec/decompose_per_step.cpp)
  const std::size_t both = candidate(plan, "eliminate j,k:");
  using loom::intermediate_format;
  loom::decompose(got(i, l), rhs,
                  loom::options<loom::opt::eliminate>{
                      .candidate = both,
                      .intermediates = {intermediate_format::dense, intermediate_format::dense}});
  for (std::int64_t r = 0; r < 14; ++r)
    for (std::int64_t q = 0; q < 9; ++q) CHECK(got.at(r, q) == doctest::Approx(want.at(r, q)));
  CHECK_THROWS_WITH_AS(loom::decompose(got(i, l), rhs,
                                       loom::options<loom::opt::eliminate>{
                                           .candidate = both,
                                           .intermediates = {intermediate_format::sorted,
                                                             intermediate_format::dense}}),
                       doctest::Contains("loom::opt::format_per_step"), loom::error);
}

TEST_CASE("decompose: an intermediate is dense when nearly full, sparse when nearly empty") {
  const auto full_a = random_sparse(60, 60, 0.5, 3), full_b = random_sparse(60, 60, 0.5, 4);
  const auto thin_a = random_sparse(3000, 3000, 0.0003, 5),
             thin_b = random_sparse(3000, 3000, 0.0003, 6);
  loom::tensor<double, loom::format<>> s;
  // eliminating j first makes T0(i, k): A * B, about full for the first pair, about empty for the second
  const auto fat = loom::plan_decomposition(
      s(), loom::sum(i, loom::sum(j, loom::sum(k, full_a(i, j) * full_b(j, k)))));
  const auto thin = loom::plan_decomposition(
      s(), loom::sum(i, loom::sum(j, loom::sum(k, thin_a(i, j) * thin_b(j, k)))));
  // the candidate that eliminates j alone: its intermediate is T0(i, k)
  const std::size_t c = candidate(fat, "eliminate j, then i,k fused");
  REQUIRE(c == candidate(thin, "eliminate j, then i,k fused"));
  CHECK(fat.description[c].find("T0(i,k) = sum(j, ...)") != std::string::npos);
  CHECK(fat.description[c].find("dense]") != std::string::npos);
  CHECK(fat.format[c] == loom::intermediate_format::dense);
  CHECK(thin.description[c].find("T0(i,k) = sum(j, ...)") != std::string::npos);
  CHECK(thin.description[c].find("sparse]") != std::string::npos);
  CHECK(thin.format[c] != loom::intermediate_format::dense);
  CHECK(fat.format[c] == loom::intermediate_format::dense);
  CHECK(thin.format[c] == loom::intermediate_format::sorted);
  // bitmap and hashed intermediates need no option (since 2026-11-29 they are kinds of the
  // adaptive level, set at run time): forcing either gives the fused kernel's sum
  loom::tensor<double, loom::format<>> fused, forced;
  fused() = loom::sum(i, loom::sum(j, loom::sum(k, thin_a(i, j) * thin_b(j, k))));
  for (const auto f : {loom::intermediate_format::bitmap, loom::intermediate_format::hashed}) {
    CAPTURE(loom::intermediate_format_name(f));
    loom::decompose(forced(), loom::sum(i, loom::sum(j, loom::sum(k, thin_a(i, j) * thin_b(j, k)))),
                    loom::options<loom::opt::eliminate>{.candidate = c, .intermediates = {f}});
    CHECK(forced.at() == doctest::Approx(fused.at()));
  }
}
