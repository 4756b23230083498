// Tests loom::decompose's hashed intermediates (costed by default since 2026-11-29: a kind of the
// adaptive level): a nearly empty one-index intermediate read by a kernel that visits many rows is
// hashed or a bitmap (located at each row's entries instead of intersected with every row); it
// stays sorted when few rows meet it and becomes dense when it fills; every candidate's result in
// each format, a two-index hashed intermediate included.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "random_sparse.hpp"

namespace {

// the tag is accepted and changes nothing: hashed intermediates are costed by default
using with_hashed = loom::options<loom::opt::eliminate, loom::opt::hashed_intermediates>;
static_assert(std::is_same_v<loom::detail::ve::flags_of<with_hashed>,
                             loom::detail::ve::flags_of<loom::options<loom::opt::eliminate>>>);

constexpr loom::index<"he"> e;
constexpr loom::index<"hf"> f;
constexpr loom::index<"hg"> g;

using loom::intermediate_format;
using loom_test::candidate;
using loom_test::random_rows;
using loom_test::random_sparse;
using loom_test::spread_vector;

// y(e) = sum(f, g, B(e,f) C(f,g) x(g)); eliminating g makes T0(f) = C x, then y = B T0 fused
auto two_hops(const auto& B, const auto& C, const auto& x) {
  return loom::sum(f, loom::sum(g, B(e, f) * C(f, g) * x(g)));
}

double max_difference(const loom::tensor<double, loom::dense_vector>& a,
                      const loom::tensor<double, loom::dense_vector>& b) {
  double d = 0;
  for (std::int64_t r = 0; r < a.extent(0); ++r) d = std::max(d, std::abs(a.at(r) - b.at(r)));
  return d;
}

// The chosen format of T0 in "eliminate hg, then hf fused", after checking every format computes
// the fused kernel's result.
intermediate_format chosen_t0(const loom::tensor<double, loom::csr>& B,
                              const loom::tensor<double, loom::csr>& C,
                              const loom::tensor<double, loom::sparse_vector>& x) {
  const std::int64_t n = B.extent(0);
  loom::tensor<double, loom::dense_vector> y({n}), want({n});
  const auto rhs = two_hops(B, C, x);
  want(e) = rhs;
  const auto plan = loom::plan_decomposition(y(e), rhs, with_hashed{});
  const std::size_t c = candidate(plan, "eliminate hg, then hf fused");
  CAPTURE(plan.description[c]);
  CHECK(plan.variants[c] == 4);  // sorted, dense, bitmap, hashed
  for (const intermediate_format fmt : loom::intermediate_formats) {
    CAPTURE(loom::intermediate_format_name(fmt));
    std::fill(y.values().begin(), y.values().end(), -1.0);
    loom::decompose(y(e), rhs, with_hashed{.candidate = c, .intermediates = {fmt}});
    CHECK(max_difference(y, want) < 1e-9);
  }
  loom::decompose(y(e), rhs, with_hashed{});
  CHECK(max_difference(y, want) < 1e-9);
  return plan.format[c];
}

}  // namespace

TEST_CASE(
    "decompose, hashed intermediates: sorted, hashed or dense by who reads the intermediate") {
  constexpr std::int64_t n = 100000;
  // C: every row has one entry; x: 12 entries, so T0 = C x holds about 12
  const auto C = random_rows(n, n, 1, 41);
  const auto tiny_x = spread_vector(n, 12);
  // B with entries in every row: every row would be intersected with T0 (sorted) or T0 would be
  // n cells (dense); located in a table, T0 costs a probe per entry of B
  const intermediate_format located = chosen_t0(random_rows(n, n, 3, 42), C, tiny_x);
  CHECK((located == intermediate_format::hashed || located == intermediate_format::bitmap));
  // B with 40 rows: 40 short intersections are cheaper than building the tables
  CHECK(chosen_t0(random_rows(n, 40, 3, 43), C, tiny_x) == intermediate_format::sorted);
  // x with half the vertices: T0 fills about 40% of its cells, dense
  CHECK(chosen_t0(random_rows(n, n, 3, 42), C, spread_vector(n, n / 2)) ==
        intermediate_format::dense);
}

TEST_CASE(
    "decompose, hashed intermediates: every candidate in every format, two-index ones included") {
  // y(e) = sum(f, g, A(e,f) B(f,g) C(g,e)): candidates materialise T(e,g) or T(f,e), some read
  // transposed by the last kernel
  const auto A = random_sparse(120, 120, 0.05, 51), B = random_sparse(120, 120, 0.05, 52),
             C = random_sparse(120, 120, 0.1, 53);
  const auto rhs = loom::sum(f, loom::sum(g, A(e, f) * B(f, g) * C(g, e)));
  loom::tensor<double, loom::dense_vector> y({120}), want({120});
  want(e) = rhs;
  const auto plan = loom::plan_decomposition(y(e), rhs, with_hashed{});
  std::size_t hashed_two_index = 0;
  for (std::size_t d = 1; d < plan.cost.size(); ++d)
    for (const intermediate_format fmt : loom::intermediate_formats) {
      if (!with_hashed::compiles(fmt)) continue;
      CAPTURE(plan.description[d]);
      CAPTURE(loom::intermediate_format_name(fmt));
      std::fill(y.values().begin(), y.values().end(), -1.0);
      loom::decompose(y(e), rhs, with_hashed{.candidate = d, .intermediates = {fmt}});
      for (std::int64_t r = 0; r < 120; ++r) CHECK(y.at(r) == doctest::Approx(want.at(r)));
      if (fmt == intermediate_format::hashed &&
          plan.description[d].find("T0(he,hg)") != std::string::npos)
        ++hashed_two_index;
    }
  CHECK(hashed_two_index > 0);
}
