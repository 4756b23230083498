// Tests loom::decompose with bitmap intermediates compiled in (opt::bitmap_intermediates):
// the choice between sorted, dense and bitmap by estimated fill, no bitmap where the next kernel
// would have to transpose it, and every candidate's result in each format.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "random_sparse.hpp"

namespace {

// decompose may store intermediates as bitmaps
using with_bitmaps = loom::options<loom::opt::eliminate, loom::opt::bitmap_intermediates>;

constexpr loom::index<"p"> p;
constexpr loom::index<"q"> q;
constexpr loom::index<"r"> r;

using loom_test::candidate;
using loom_test::random_sparse;

}  // namespace

TEST_CASE("decompose, bitmap intermediates: sorted, bitmap or dense by the intermediate's fill") {
  loom::tensor<double, loom::format<>> out;
  const auto sum_of_product = [](const auto& A, const auto& B) {
    return loom::sum(p, loom::sum(q, loom::sum(r, A(p, q) * B(q, r))));
  };
  // eliminating q makes T0(p, r) = A * B: about empty, about a fifth full, about full
  const auto thin_a = random_sparse(3000, 3000, 0.0003, 5),
             thin_b = random_sparse(3000, 3000, 0.0003, 6);
  const auto mid_a = random_sparse(300, 300, 0.03, 7), mid_b = random_sparse(300, 300, 0.03, 8);
  const auto fat_a = random_sparse(60, 60, 0.5, 3), fat_b = random_sparse(60, 60, 0.5, 4);
  const auto thin = loom::plan_decomposition(out(), sum_of_product(thin_a, thin_b), with_bitmaps{});
  const auto mid = loom::plan_decomposition(out(), sum_of_product(mid_a, mid_b), with_bitmaps{});
  const auto fat = loom::plan_decomposition(out(), sum_of_product(fat_a, fat_b), with_bitmaps{});
  const std::size_t c = candidate(mid, "eliminate q, then p,r fused");
  REQUIRE(c == candidate(thin, "eliminate q, then p,r fused"));
  REQUIRE(c == candidate(fat, "eliminate q, then p,r fused"));
  CAPTURE(thin.description[c]);
  CAPTURE(mid.description[c]);
  CAPTURE(fat.description[c]);
  CHECK(thin.format[c] == loom::intermediate_format::sorted);
  CHECK(mid.format[c] == loom::intermediate_format::bitmap);
  CHECK(mid.description[c].find("bitmap]") != std::string::npos);
  CHECK(mid.format[c] != loom::intermediate_format::dense);
  CHECK(fat.format[c] == loom::intermediate_format::dense);
  // each format computes the fused kernel's sum
  loom::tensor<double, loom::format<>> fused, got;
  fused() = sum_of_product(mid_a, mid_b);
  for (const loom::intermediate_format f : loom::intermediate_formats) {
    if (!with_bitmaps::compiles(f)) continue;
    CAPTURE(loom::intermediate_format_name(f));
    loom::decompose(got(), sum_of_product(mid_a, mid_b),
                    with_bitmaps{.candidate = c, .intermediates = {f}});
    CHECK(got.values()[0] == doctest::Approx(fused.values()[0]));
  }
}

TEST_CASE("decompose, bitmap intermediates: none where a kernel would transpose one") {
  // y(p) = sum(q, r, A(p,q) B(q,r) C(r,p)): eliminating q writes T0(p,r) (concordant with its
  // step), which the last kernel must read with C(r,p), stored r-major: one of them is
  // transposed. A bitmap would be copied entry by entry (4x the sorted plan on the zenios
  // 4-walks), so that candidate keeps a sorted or dense T0, although T0 is in the bitmap range.
  const auto A = random_sparse(300, 300, 0.02, 21), B = random_sparse(300, 300, 0.02, 22),
             C = random_sparse(300, 300, 0.05, 23);
  const auto rhs = loom::sum(q, loom::sum(r, A(p, q) * B(q, r) * C(r, p)));
  loom::tensor<double, loom::dense_vector> y({300}), want({300});
  const auto plan = loom::plan_decomposition(y(p), rhs, with_bitmaps{});
  const std::size_t c = candidate(plan, "eliminate q, then r fused");
  CAPTURE(plan.description[c]);
  CHECK(plan.description[c].find("one factor transposed") != std::string::npos);
  CHECK(plan.format[c] != loom::intermediate_format::bitmap);
  // the same intermediate with nothing transposed after it is a bitmap (first test case)
  const auto untransposed =
      loom::plan_decomposition(y(p), loom::sum(q, loom::sum(r, A(p, q) * B(q, r))), with_bitmaps{});
  CHECK(untransposed.format[candidate(untransposed, "eliminate q, then r fused")] ==
        loom::intermediate_format::bitmap);
  loom::decompose(y(p), rhs, with_bitmaps{});
  want(p) = rhs;
  for (std::int64_t k = 0; k < 300; ++k) CHECK(y.at(k) == doctest::Approx(want.at(k)));
  // every candidate in every format computes the fused kernel's result
  for (std::size_t d = 1; d < plan.cost.size(); ++d)
    for (const loom::intermediate_format f : loom::intermediate_formats) {
      if (!with_bitmaps::compiles(f)) continue;
      CAPTURE(d);
      CAPTURE(loom::intermediate_format_name(f));
      std::fill(y.values().begin(), y.values().end(), -1.0);
      loom::decompose(y(p), rhs, with_bitmaps{.candidate = d, .intermediates = {f}});
      for (std::int64_t k = 0; k < 300; ++k) CHECK(y.at(k) == doctest::Approx(want.at(k)));
    }
}
