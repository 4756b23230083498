// Tests loom::decompose: variable-elimination orders of sum-products (Galley §3.4-3.7, T8, T9),
// every candidate's result against a dense reference, and the loop order of a sparse intermediate
// (the intermediates' formats are tested in decompose_formats.cpp, the fused kernel's cases in
// decompose_fused.cpp).
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

using loom_test::dense_of;
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
