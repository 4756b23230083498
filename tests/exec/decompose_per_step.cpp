// Tests loom::decompose with a format per intermediate (opt::format_per_step): a
// candidate whose first intermediate is nearly empty and whose second is nearly full keeps the
// first sparse (sorted, or a bitmap that its reader locates) and makes the second dense, which no
// uniform assignment does; every format assignment of every candidate computes the fused
// kernel's result. Sorted, bitmap and hashed intermediates share a kernel (the adaptive level), so
// the mixes among them cost no compile time; mixes with dense ones do.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "random_sparse.hpp"

namespace {

// decompose chooses a format per intermediate
using per_step = loom::options<loom::opt::eliminate, loom::opt::format_per_step>;

constexpr loom::index<"u"> u;
constexpr loom::index<"v"> v;
constexpr loom::index<"w"> w;

using loom::intermediate_format;
using loom_test::candidate;
using loom_test::random_sparse;

// y(u) = sum(v, w, B(u,v) C(v,w) x(w)); eliminating w then v makes T0(v) = C x, then T1(u) = B T0
auto program(const auto& B, const auto& C, const auto& x) {
  return loom::sum(v, loom::sum(w, B(u, v) * C(v, w) * x(w)));
}

// x with entries at `at` only
loom::tensor<double, loom::sparse_vector> sparse_x(std::int64_t n,
                                                   const std::vector<std::int64_t>& at) {
  std::vector<std::array<std::int64_t, 1>> crd;
  std::vector<double> val;
  for (std::int64_t k : at) crd.push_back({k}), val.push_back(1.0 + static_cast<double>(k % 7));
  return loom::from_coo<loom::sparse_vector>({n}, crd, val);
}

}  // namespace

TEST_CASE(
    "decompose, a format per intermediate: sorted where nearly empty, dense where nearly full") {
  // C about one entry per row, x three entries: T0(v) = C x holds a few entries of 600; B half
  // full: T1(u) = B T0 fills nearly every one of its 600 cells
  const auto B = random_sparse(600, 600, 0.5, 31), C = random_sparse(600, 600, 0.002, 32);
  const auto x = sparse_x(600, {5, 250, 480});
  loom::tensor<double, loom::dense_vector> y({600}), want({600});
  const auto rhs = program(B, C, x);
  const auto plan = loom::plan_decomposition(y(u), rhs, per_step{});
  const std::size_t c = candidate(plan, "eliminate w,v:");
  CAPTURE(plan.description[c]);
  // the four uniform assignments, then the twelve mixes; a mix is chosen only when strictly cheaper
  // than the uniform assignments, which are costed first
  CHECK(plan.variants[c] == 16);
  REQUIRE(plan.step_formats[c].size() == 2);
  CHECK(plan.step_formats[c][0] != intermediate_format::dense);
  CHECK(plan.step_formats[c][1] == intermediate_format::dense);
  CHECK(plan.format[c] == plan.step_formats[c][0]);  // the first one's
  CHECK(plan.description[c].find("T0(v) = sum(w, ...)") != std::string::npos);
  CHECK(plan.description[c].find("dense]; T1(u) = sum(v, ...)") == std::string::npos);
  CHECK(plan.description[c].find("dense]") != std::string::npos);
  // every assignment, forced step by step, computes the fused kernel's result
  loom::tensor<double, loom::dense_vector> got({600});
  want(u) = rhs;
  for (const intermediate_format first : loom::intermediate_formats)
    for (const intermediate_format second : loom::intermediate_formats) {
      CAPTURE(loom::intermediate_format_name(first));
      CAPTURE(loom::intermediate_format_name(second));
      std::fill(got.values().begin(), got.values().end(), -1.0);
      loom::decompose(got(u), rhs, per_step{.candidate = c, .intermediates = {first, second}});
      for (std::int64_t k = 0; k < 600; ++k) CHECK(got.at(k) == doctest::Approx(want.at(k)));
    }
  // one format per step: two here
  CHECK_THROWS_WITH_AS(loom::decompose(got(u), rhs,
                                       per_step{.candidate = c,
                                                .intermediates = std::vector<intermediate_format>(
                                                    3, intermediate_format::dense)}),
                       doctest::Contains("has 2 steps, but 3 intermediate formats were given"),
                       loom::shape_error);
  loom::decompose(y(u), rhs, per_step{});
  for (std::int64_t k = 0; k < 600; ++k) CHECK(y.at(k) == doctest::Approx(want.at(k)));
}

// n x n with about 8 entries per row plus one in each row among the first `hubs` columns
loom::tensor<double, loom::csr> with_hubs(std::int64_t n, std::int64_t hubs, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::array<std::int64_t, 2>> crd;
  for (std::int64_t r = 0; r < n; ++r) {
    crd.push_back({r, static_cast<std::int64_t>(rng() % static_cast<unsigned>(hubs))});
    for (int e = 0; e < 8; ++e)
      crd.push_back({r, static_cast<std::int64_t>(rng() % static_cast<unsigned>(n))});
  }
  return loom::from_coo<loom::csr>({n, n}, crd, std::vector<double>(crd.size(), 1.0),
                                   loom::duplicates::sum);
}

TEST_CASE(
    "decompose, a format per intermediate: a sorted T0(v) pays a leapfrog per row of B that meets "
    "it") {
  // T1(u) = sum(v, B(u,v) T0(v)) visits all 2000 rows of B (about 9 entries each) and, with T0
  // sorted, intersects each with T0: about 9 * (1 + log2(|T0| / 9)) steps a row, against 9 when
  // T0 is dense and located. C maps x onto the first `hubs` rows, so |T0| is about `hubs`.
  const std::int64_t n = 2000;
  const auto x = sparse_x(n, {3, 900, 1500, 1999});
  for (const std::int64_t hubs : {std::int64_t{4}, std::int64_t{512}}) {
    CAPTURE(hubs);
    const auto B = with_hubs(n, hubs, 41);
    std::vector<std::array<std::int64_t, 2>> crd;
    for (std::int64_t r = 0; r < hubs; ++r)
      crd.push_back(
          {r, std::array<std::int64_t, 4>{3, 900, 1500, 1999}[static_cast<std::size_t>(r % 4)]});
    const auto C = loom::from_coo<loom::csr>({n, n}, crd, std::vector<double>(crd.size(), 1.0));
    loom::tensor<double, loom::dense_vector> y({n});
    const auto plan = loom::plan_decomposition(y(u), program(B, C, x), per_step{});
    const std::size_t c = candidate(plan, "eliminate w,v:");
    CAPTURE(plan.description[c]);
    REQUIRE(plan.step_formats[c].size() == 2);
    // a few entries: intersecting (sorted) or locating a bitmap is cheaper than writing 2000
    // dense cells and reading them all; 512: not
    CHECK((plan.step_formats[c][0] == intermediate_format::dense) == (hubs == 512));
  }
}

TEST_CASE("decompose, a format per intermediate: every assignment of every candidate") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const auto B = random_sparse(40, 30, 0.2, seed), C = random_sparse(30, 25, 0.15, seed + 10);
    const auto x = sparse_x(25, {1, 7, 8, 20});
    loom::tensor<double, loom::dense_vector> y({40}),
        want({40});  // the first case's types: no new kernels
    const auto rhs = program(B, C, x);
    want(u) = rhs;
    const auto plan = loom::plan_decomposition(y(u), rhs, per_step{});
    std::size_t mixed = 0;
    for (std::size_t c = 1; c < plan.cost.size(); ++c)
      for (std::size_t variant = 0; variant < plan.variants[c]; ++variant) {
        CAPTURE(seed);
        CAPTURE(plan.description[c]);
        CAPTURE(variant);
        mixed += variant >= 4 ? 1 : 0;  // after the four uniform assignments
        loom::detail::ve::run_candidate<loom::detail::ve::flags_of<per_step>>(
            c, variant, {}, plan.reuse[c], y(u), rhs);
        for (std::int64_t k = 0; k < 40; ++k) CHECK(y.at(k) == doctest::Approx(want.at(k)));
      }
    CHECK(mixed == 2 * 12);  // two candidates eliminate both indices, each with twelve mixes
  }
}

TEST_CASE("decompose, a format per intermediate without the tag: mixes of sorted, bitmap, hashed") {
  // sorted, bitmap and hashed share the adaptive level's kernel, so their mixes are costed by
  // default; a mix with a dense intermediate needs opt::format_per_step
  using plain = loom::options<loom::opt::eliminate>;
  const auto B = random_sparse(40, 30, 0.2, 7), C = random_sparse(30, 25, 0.15, 17);
  const auto x = sparse_x(25, {1, 7, 8, 20});
  loom::tensor<double, loom::dense_vector> y({40}), want({40});
  const auto rhs = program(B, C, x);
  want(u) = rhs;
  const auto plan = loom::plan_decomposition(y(u), rhs, plain{});
  const std::size_t c = candidate(plan, "eliminate w,v:");
  CHECK(plan.variants[c] == 4 + (3 * 3 - 3));  // the uniform four, then six mixes
  for (std::size_t variant = 0; variant < plan.variants[c]; ++variant) {
    CAPTURE(variant);
    loom::detail::ve::run_candidate<loom::detail::ve::flags_of<plain>>(c, variant, {},
                                                                       plan.reuse[c], y(u), rhs);
    for (std::int64_t k = 0; k < 40; ++k) CHECK(y.at(k) == doctest::Approx(want.at(k)));
  }
  loom::decompose(
      y(u), rhs,
      plain{.candidate = c,
            .intermediates = {intermediate_format::bitmap, intermediate_format::hashed}});
  for (std::int64_t k = 0; k < 40; ++k) CHECK(y.at(k) == doctest::Approx(want.at(k)));
  CHECK_THROWS_WITH_AS(loom::decompose(y(u), rhs,
                                       plain{.candidate = c,
                                             .intermediates = {intermediate_format::hashed,
                                                               intermediate_format::dense}}),
                       doctest::Contains("loom::opt::format_per_step"), loom::error);
}
