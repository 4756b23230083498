// IA plans, the rules R1-x and R2-x (UT-10 type tests, UT-5 diag(X+Y) with flop counts) and the
// matmul plans under the single-machine executor with 1, 2 and 4 sites (UT-7).
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
using namespace loom::tra::ia;
using tra_test::r_a;
using tra_test::t2;

namespace {
struct opaque_map {  // declares no distributivity
  template <class T> tile<T, 1> operator()(const tile<T, 2>& a) const { return diagonal(a); }
};
struct f1 {
  template <class K> bool operator()(const K& k) const { return k[0] == 0; }
};
}  // namespace

// UT-10: rule type tests, positive and negative -------------------------------------------------
using R = leaf<0, 3, partitioned<dims<2>>>;
static_assert(std::is_same_v<rewrite_t<lfilter<f1, lfilter<eq<0, 1>, R>>,
                                       boost::mp11::mp_list<rules::merge_filters>>,
                             lfilter<and_<f1, eq<0, 1>>, R>>);
static_assert(
    std::is_same_v<rewrite_t<lmap<project<1, 0>, same_tile, lmap<same_key, diag_extract, R>>,
                             boost::mp11::mp_list<rules::merge_maps>>,
                   lmap<project<1, 0>, diag_extract, R>>);
static_assert(std::is_same_v<rewrite_t<shuf<dims<0>, shuf<dims<1>, shuf<dims<2>, R>>>,
                                       boost::mp11::mp_list<rules::collapse_shuffles>>,
                             shuf<dims<0>, R>>);
static_assert(
    std::is_same_v<rewrite_t<lagg<dims<0, 2>, mat_add, shuf<dims<0, 2>, R>>, rules::repartition>,
                   lagg<dims<0, 2>, mat_add, R>>);
// R2-4 must not fire when the input's partition is not inside the group-by keys
static_assert(!rule_applies_to<rules::skip_shuffle_before_aggregation,
                               lagg<dims<0>, mat_add, shuf<dims<0>, R>>>);
// R1-4 fires for a distributive map with an identity key map, and only then
static_assert(rule_applies_to<rules::map_into_aggregation,
                              lmap<same_key, diag_extract, lagg<dims<0>, mat_add, R>>>);
static_assert(!rule_applies_to<rules::map_into_aggregation,
                               lmap<same_key, opaque_map, lagg<dims<0>, mat_add, R>>>);
static_assert(!rule_applies_to<rules::map_into_aggregation,
                               lmap<project<0>, diag_extract, lagg<dims<0>, mat_add, R>>>);
// R1-6 needs a predicate that reads only the join-key segment of the output
using X2 = leaf<0, 2>;
using Y2 = leaf<1, 2, replicated>;
static_assert(rule_applies_to<rules::filter_into_join,
                              lfilter<eq<0, 1>, ljoin<dims<0, 1>, dims<0, 1>, mat_add, X2, Y2>>>);
static_assert(!rule_applies_to<rules::filter_into_join,
                               lfilter<eq<0, 1>, ljoin<dims<1>, dims<0>, mat_mul, X2, Y2>>>);
static_assert(!rule_applies_to<rules::filter_into_join,
                               lfilter<f1, ljoin<dims<0, 1>, dims<0, 1>, mat_add, X2, Y2>>>);
// R2-5: a combiner for an associative, commutative op
static_assert(std::is_same_v<rewrite_t<lagg<dims<0, 2>, mat_add, shuf<dims<0, 2>, leaf<0, 3>>>,
                                       boost::mp11::mp_list<rules::two_phase_aggregation>>,
                             lagg<dims<0, 1>, mat_add,
                                  shuf<dims<0, 1>, lpartial<dims<0, 2>, mat_add, leaf<0, 3>>>>>);
// partition propagation through joins and aggregations
static_assert(std::is_same_v<partition_t<ljoin<dims<1>, dims<0>, mat_mul, bcast<leaf<0, 2>>,
                                               leaf<1, 2, partitioned<dims<1>>>>>,
                             partitioned<dims<2>>>);
static_assert(arity_v<ljoin<dims<1>, dims<0>, mat_mul, leaf<0, 2>, leaf<1, 2>>> == 3);

// UT-5 ------------------------------------------------------------------------------------------
namespace {
relation<double, 2, 2> x_rel(double scale) {
  std::vector<double> m(16);
  for (std::size_t p = 0; p < 16; ++p) m[p] = scale * static_cast<double>(p + 1);
  return tra_test::tiles_of(m, 4);
}
using XL = leaf<0, 2, partitioned<dims<0, 1>>>;
using YL = leaf<1, 2, partitioned<dims<0, 1>>>;
using diag_sum = lmap<project<0>, diag_extract,
                      lfilter<eq<0, 1>, ljoin<dims<0, 1>, dims<0, 1>, mat_add, XL, YL>>>;
using with_r16 = rewrite_t<diag_sum, boost::mp11::mp_list<rules::filter_into_join>>;
using with_r17 = rewrite_t<diag_sum, rules::lambda_composition>;
static_assert(!std::is_same_v<with_r16, diag_sum> && !std::is_same_v<with_r17, with_r16>);

template <class Plan> std::int64_t adds_of(std::int64_t sites, relation<double, 1, 1>& out) {
  const auto X = x_rel(1), Y = x_rel(2);
  local_sites tr(sites);
  counters() = {};
  out = evaluate<Plan>(tr, X, Y);
  return counters().adds;
}
}  // namespace

TEST_CASE("UT-5 diag(X+Y): R1-6 then R1-7 keep the result and cut additions 16 -> 8 -> 4") {
  for (std::int64_t s : {1, 2, 4}) {
    relation<double, 1, 1> a, b, c;
    CHECK(adds_of<diag_sum>(s, a) == 16);
    CHECK(adds_of<with_r16>(s, b) == 8);
    CHECK(adds_of<with_r17>(s, c) == 4);
    CHECK(a.at({0}) == t2(3, 18));
    CHECK(a.at({1}) == t2(33, 48));
    CHECK(a == b);
    CHECK(b == c);
  }
}

TEST_CASE("R1-5 and R2-2 keep results: predicate pushdown below aggregation and data movement") {
  using plan = lfilter<in_range<0, 1, 2>, lagg<dims<0>, mat_add, shuf<dims<0>, leaf<0, 2>>>>;
  using pushed = rewrite_t<plan, rules::all>;
  static_assert(!std::is_same_v<plan, pushed>);
  for (std::int64_t s : {1, 2, 4}) {
    local_sites tr(s);
    const auto a = evaluate<plan>(tr, r_a());
    const auto b = evaluate<pushed>(tr, r_a());
    CHECK(a == b);
    CHECK(a.size() == 1);
    CHECK(a.at({1}) == tra_test::t22(22, 24, 26, 28));
  }
}

// UT-7 and every matmul plan, under 1, 2 and 4 sites -------------------------------------------
TEST_CASE_TEMPLATE("UT-7 the four matmul plans equal the TRA result at s = 1, 2, 4", Parts,
                   matmul_plans<arbitrary, arbitrary>,
                   matmul_plans<partitioned<dims<0>>, partitioned<dims<1>>>,
                   matmul_plans<partitioned<dims<1>>, partitioned<dims<0>>>) {
  // a 6x6 grid of 2x2 tiles, against the dense triple loop
  std::vector<double> a(144), b(144);
  for (std::size_t p = 0; p < 144; ++p) {
    a[p] = static_cast<double>(p % 13) - 6;
    b[p] = static_cast<double>(p % 7) - 3;
  }
  const auto X = tra_test::tiles_of(a, 12), Y = tra_test::tiles_of(b, 12);
  const auto expect = tra_test::tiles_of(tra_test::dense_matmul(a, b, 12, 12, 12), 12);
  for (std::int64_t s : {1, 2, 4})
    for (auto st : all_matmul_strategies) {
      CAPTURE(s);
      CAPTURE(name(st));
      local_sites tr(s);
      const auto got = with_matmul_plan<typename Parts::X, typename Parts::Y>(
          st, [&](auto plan) { return evaluate<decltype(plan)>(tr, X, Y); });
      CHECK(got == expect);
    }
}

TEST_CASE("IA plans print in the paper's notation") {
  using cols = matmul_plans<arbitrary, partitioned<dims<1>>>;
  CHECK(to_string<cols::broadcast_left>() == "Σᴸ<0,2>(add, ⋈ᴸ<1>,<0>(matmul, BCAST(R0), R1{1}))");
  CHECK(to_string<matmul_plans<>::cross_product>() ==
        "Σᴸ<0,2>(add, SHUF<0,2>(⋈ᴸ<1>,<0>(matmul, SHUF<1>(R0), SHUF<0>(R1))))");
  CHECK(to_string<with_r17>() ==
        "λᴸ(project, _, ⋈ᴸ<0,1>,<0,1>(add, λᴸ(_, diag, σᴸ(checkEq, R0{0,1})), λᴸ(_, diag, "
        "σᴸ(checkEq, R1{0,1}))))");
}

TEST_CASE("broadcast left drops the final shuffle when Y is column-partitioned (R2-4)") {
  using cols = matmul_plans<arbitrary, partitioned<dims<1>>>;
  using none = matmul_plans<arbitrary, arbitrary>;
  static_assert(std::is_same_v<cols::broadcast_left,
                               lagg<dims<0, 2>, mat_add, cols::mm_join<bcast<cols::X>, cols::Y>>>);
  static_assert(!std::is_same_v<none::broadcast_left,
                                lagg<dims<0, 2>, mat_add, none::mm_join<bcast<none::X>, none::Y>>>);
}

TEST_CASE("R2-5's combiner keeps partial sums of one group apart until they meet") {
  using plan = lagg<dims<1>, mat_add, shuf<dims<1>, leaf<0, 2>>>;
  using two = rewrite_t<plan, boost::mp11::mp_list<rules::two_phase_aggregation>>;
  static_assert(!std::is_same_v<plan, two>);
  for (std::int64_t s : {1, 2, 3, 4}) {
    local_sites tr(s);
    CHECK(evaluate<two>(tr, r_a()) == aggregate(r_a(), std::array<std::size_t, 1>{1}, mat_add{}));
  }
}

TEST_CASE("an incomplete local aggregation is reported at collection, not hidden") {
  using bad = lagg<dims<0>, mat_add, leaf<0, 2>>;  // tuples of one group on two sites
  local_sites tr(2);
  CHECK_THROWS_AS(evaluate<bad>(tr, r_a()), loom::shape_error);
  local_sites one(1);
  CHECK(evaluate<bad>(one, r_a()).size() == 2);
}
