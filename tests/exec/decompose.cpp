// Tests loom::decompose: variable-elimination orders of sum-products (notes 001 §3.4-3.7, T8, T9),
// every candidate's result against a dense reference, and the choice on skewed inputs.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_sparse.hpp"

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using loom_test::candidate;
using loom_test::dense_of;
using loom_test::random_graph;
using loom_test::random_sparse;
}  // namespace

TEST_CASE("decompose: every candidate of a 3-matrix chain equals the fused kernel") {
  for (unsigned seed = 1; seed <= 3; ++seed) {
    const auto A = random_sparse(12, 20, 0.2, seed), B = random_sparse(20, 9, 0.3, seed + 10),
               C = random_sparse(9, 15, 0.25, seed + 20);
    loom::tensor<double, loom::dense_matrix> want({12, 15}), got({12, 15});
    want(i, l) = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    // reference: plain loops
    std::vector<double> ref(12 * 15, 0.0);
    for (std::int64_t a = 0; a < 12; ++a)
      for (std::int64_t b = 0; b < 20; ++b)
        for (std::int64_t c = 0; c < 9; ++c)
          for (std::int64_t d = 0; d < 15; ++d)
            ref[static_cast<std::size_t>(a * 15 + d)] += A.at(a, b) * B.at(b, c) * C.at(c, d);
    CHECK(dense_of(want) == ref);
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    const auto plan = loom::plan_decomposition(got(i, l), rhs);
    // fused; j eliminated, k summed in the last kernel; k, then j; the full orders (j,k) and (k,j)
    REQUIRE(plan.cost.size() == 5);
    for (std::size_t c = 0; c < plan.cost.size(); ++c) {
      loom::decompose(got(i, l), rhs, loom::options<loom::opt::eliminate>{.candidate = c});
      CHECK(dense_of(got) == ref);
    }
    const std::size_t ran = loom::decompose(got(i, l), rhs);
    CHECK(ran == plan.chosen);
    CHECK(dense_of(got) == ref);
  }
}

TEST_CASE("T9: the dense chain 10x100 * 100x5 * 5x50 eliminates j first") {
  auto full = [](std::int64_t r, std::int64_t c) {
    coords2 x;
    for (std::int64_t a = 0; a < r; ++a)
      for (std::int64_t b = 0; b < c; ++b) x.push_back({a, b});
    return loom::from_coo<loom::csr>({r, c}, x, std::vector<double>(x.size(), 1.0));
  };
  const auto A = full(10, 100), B = full(100, 5), C = full(5, 50);
  loom::tensor<double, loom::dense_matrix> E({10, 50});
  const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
  const auto plan = loom::plan_decomposition(E(i, l), rhs);
  CHECK(plan.chosen == 1);  // j eliminated (T0 = A * B), k summed in the last kernel
  CHECK(plan.description[1].find("[5000 products") != std::string::npos);
  CHECK(plan.description[1].find("[2500 products") != std::string::npos);
  CHECK(plan.description[2].find("[25000 products") != std::string::npos);
  CHECK(plan.description[2].find("[50000 products") != std::string::npos);
  loom::decompose(E(i, l), rhs);
  CHECK(E.at(3, 7) == doctest::Approx(500));  // every product term is 1: 100 * 5 paths
  const std::string text = loom::explain(E(i, l), rhs, loom::options<loom::opt::eliminate>{});
  CHECK(text.find("* #1 cost") != std::string::npos);
}

TEST_CASE("T8: a triangle is one fused kernel; its count on K4 is 24") {
  coords2 c;
  for (std::int64_t a = 0; a < 4; ++a)
    for (std::int64_t b = 0; b < 4; ++b)
      if (a != b) c.push_back({a, b});
  const auto K = loom::from_coo<loom::csr>({4, 4}, c, std::vector<double>(c.size(), 1.0));
  loom::tensor<double, loom::format<>> count;
  const auto rhs = loom::sum(i, loom::sum(j, loom::sum(k, K(i, j) * K(j, k) * K(i, k))));
  const auto plan = loom::plan_decomposition(count(), rhs);
  CHECK(plan.chosen == 0);  // the fused kernel: no intermediate beats the triangle join
  loom::decompose(count(), rhs);
  CHECK(count.values()[0] == 24);
  for (std::size_t which = 1; which < plan.cost.size(); ++which) {
    loom::decompose(count(), rhs, loom::options<loom::opt::eliminate>{.candidate = which});
    CHECK(count.values()[0] == 24);
  }
}

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
  // without opt::bitmap_intermediates or opt::hashed_intermediates, asking for those formats is an
  // error, not a silent fallback
  loom::tensor<double, loom::format<>> none;
  CHECK_THROWS_WITH_AS(
      loom::decompose(none(), loom::sum(i, loom::sum(j, loom::sum(k, thin_a(i, j) * thin_b(j, k)))),
                      loom::options<loom::opt::eliminate>{
                          .candidate = c, .intermediates = {loom::intermediate_format::bitmap}}),
      doctest::Contains("loom::opt::bitmap_intermediates"), loom::error);
  CHECK_THROWS_WITH_AS(
      loom::decompose(none(), loom::sum(i, loom::sum(j, loom::sum(k, thin_a(i, j) * thin_b(j, k)))),
                      loom::options<loom::opt::eliminate>{
                          .candidate = c, .intermediates = {loom::intermediate_format::hashed}}),
      doctest::Contains(
          "hashed intermediates are not compiled in (add loom::opt::hashed_intermediates to the "
          "options)"),
      loom::error);
}

TEST_CASE(
    "decompose: a sparse intermediate's indices follow a loop order concordant with its step") {
  // eliminating l from A(l,i) * B(k,l): with B csr the step loops k, l, i and writes T(k, i) in
  // order; with B csc (stored l-major) it loops l, i, k, and T(i, k) keeps the written order
  namespace ve = loom::detail::ve;
  using boost::mp11::mp_list;
  using boost::mp11::mp_size_t;
  using I = decltype(i);
  using K = decltype(k);
  using L = decltype(l);
  using factors =
      mp_list<mp_list<mp_size_t<0>, mp_list<L, I>>, mp_list<mp_size_t<1>, mp_list<K, L>>>;
  using csr_t = const loom::tensor<double, loom::csr>;
  using csc_t = const loom::tensor<double, loom::csc>;
  static_assert(
      std::is_same_v<ve::concordant_made_t<mp_list<csr_t, csr_t>, factors, L>, mp_list<K, I>>);
  static_assert(
      std::is_same_v<ve::concordant_made_t<mp_list<csr_t, csc_t>, factors, L>, mp_list<I, K>>);
  // and the written order where the operands disagree (a cycle): i before l before i
  using cyclic = mp_list<mp_list<mp_size_t<0>, mp_list<I, L>>, mp_list<mp_size_t<1>, mp_list<L, I>>,
                         mp_list<mp_size_t<2>, mp_list<L, K>>>;
  static_assert(std::is_same_v<ve::concordant_made_t<mp_list<csr_t, csr_t, csr_t>, cyclic, L>,
                               mp_list<I, K>>);
  // a kernel whose sparse factors disagree must transpose one: the cost counts that copy
  static_assert(ve::concordant_exists<mp_list<I, L, K>>(mp_list<mp_list<I, L>, mp_list<L, K>>{}));
  static_assert(!ve::concordant_exists<mp_list<I, L, K>>(mp_list<mp_list<I, L>, mp_list<L, I>>{}));
  // every candidate's sparse variant runs with these orders: "decompose: a sum computed twice over
  // the same tensor is computed once" (decompose_shared.cpp) checks their results
}

TEST_CASE(
    "decompose: the fused kernel pays a leapfrog with a sparse vector at every visit of a fiber") {
  // y(i) = sum(j, k, A(i,j) C(j,k) x(k)), C one entry per row, x 8 entries of 20000. Fused, the
  // row of C is intersected with x at every entry of A; eliminating k first intersects each row of
  // C once (T0 = C x), then reads T0 at A's entries. Which wins depends on how many entries A has.
  constexpr std::int64_t n = 20000;
  const auto C = loom_test::random_rows(n, n, 1, 61);
  const auto x = loom_test::spread_vector(n, 8);
  loom::tensor<double, loom::dense_vector> y({n}), want({n});
  const auto chosen = [&](const loom::tensor<double, loom::csr>& A) {
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * C(j, k) * x(k)));
    const auto plan = loom::plan_decomposition(y(i), rhs);
    CAPTURE(plan.description[0]);
    CAPTURE(plan.description[plan.chosen]);
    CHECK(plan.description[0].find("leapfrog steps against sparse vectors") != std::string::npos);
    want(i) = rhs;
    loom::decompose(y(i), rhs);
    for (std::int64_t r = 0; r < n; ++r) REQUIRE(y.at(r) == doctest::Approx(want.at(r)));
    return plan.description[plan.chosen];
  };
  // A with 10 entries in every row: 200K intersections fused, 20K after eliminating k
  CHECK(chosen(loom_test::random_rows(n, n, 10, 62)).rfind("eliminate k, then j fused", 0) == 0);
  // A with 30 entries: the fused kernel meets 30 rows of C, fewer than T0 = C x would
  CHECK(chosen(loom_test::random_rows(n, 30, 1, 63)).rfind("one fused kernel", 0) == 0);
}
