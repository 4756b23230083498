// IA plans over sparse tiles (tra/ia/execute.hpp with tra/sparse_maps.hpp and
// sparse_operators.hpp): the four matmul plans for three input placements, the two-phase
// aggregation, filter, REKEY, the transposing map and duplicate, each run by ia::evaluate over
// sparse_relations in any loom format at 1 to 4 sites and checked against the dense-tile plans on
// the same data and a plain dense product.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "../support/random.hpp"
#include "support.hpp"

using namespace loom::tra;
namespace lt = loom::test;

namespace {
using dense = loom::tensor<double, loom::dense_matrix>;

using tra_test::check_same_tiles;

// Every matmul strategy over the placements of Parts, sparse A (FA tiles) times sparse B (FB
// tiles), against the plain product of the dense matrices and the dense-tile plan.
template <class XPart, class YPart, class FA, class FB>
void check_matmul_plans(const lt::density d, std::uint64_t seed) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  const auto A = lt::random_tensor<double, loom::csr>({29, 22}, d, seed);
  const auto B = lt::random_tensor<double, loom::csr>({22, 17}, d, seed + 11);
  const auto SA = to_sparse_tiles<FA>(A, {6, 5});
  const auto SB = to_sparse_tiles<FB>(B, {5, 4});
  const auto DA = to_tiled(A, {6, 5}, empty_tiles::keep).tiles;
  const auto DB = to_tiled(B, {5, 4}, empty_tiles::keep).tiles;
  dense want({29, 17});
  want(i, j) = loom::sum(k, A(i, k) * B(k, j));
  for (std::int64_t s : {1, 2, 3, 4})
    for (auto st : all_matmul_strategies) {
      CAPTURE(s);
      CAPTURE(name(st));
      ia::local_sites sparse_sites(s), dense_sites(s);
      const auto C = with_matmul_plan<XPart, YPart>(
          st, [&](auto plan) { return ia::evaluate<decltype(plan)>(sparse_sites, SA, SB); });
      const auto DC = with_matmul_plan<XPart, YPart>(
          st, [&](auto plan) { return ia::evaluate<decltype(plan)>(dense_sites, DA, DB); });
      static_assert(std::is_same_v<std::remove_cvref_t<decltype(C)>, sparse_relation<double, FA>>,
                    "mat_mul and mat_add over sparse tiles give the left operand's format");
      check_same_tiles(C, DC);
      const auto got = from_sparse_tiles<loom::dense_matrix>(C, {29, 17});
      for (std::int64_t r = 0; r < 29; ++r)
        for (std::int64_t c = 0; c < 17; ++c) CHECK(got.at(r, c) == doctest::Approx(want.at(r, c)));
      // what moved: stored entries, never more than a dense tile's cells would be
      CHECK(sparse_sites.moved() <= dense_sites.moved());
      if (s == 1) CHECK(sparse_sites.moved() == 0);
    }
}
}  // namespace

TEST_CASE("IA matmul plans run over sparse tiles at 1 to 4 sites (csr x dcsr, csc x coo)") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium}) {
      CAPTURE(seed);
      check_matmul_plans<ia::arbitrary, ia::arbitrary, loom::csr, loom::dcsr>(d, seed);
      check_matmul_plans<ia::partitioned<ia::dims<0>>, ia::partitioned<ia::dims<1>>, loom::csc,
                         loom::coo>(d, seed);
      check_matmul_plans<ia::partitioned<ia::dims<1>>, ia::partitioned<ia::dims<0>>, loom::csr,
                         loom::csr>(d, seed);
    }
}

TEST_CASE("sparse tiles: a broadcast moves the stored entries of the tiles a site lacks") {
  const auto A = lt::random_tensor<double, loom::csr>({24, 24}, lt::density::sparse, 3);
  const auto SA = to_sparse_tiles<loom::csr>(A, {8, 8});
  ia::local_sites tr(3);
  using plan = ia::bcast<ia::leaf<0, 2>>;  // placed round-robin, then everywhere
  const auto placed = ia::execute<ia::leaf<0, 2>>(tr, SA);
  double expect = 0;
  for (const auto& site : placed) expect += static_cast<double>(SA.nnz() - site.nnz());
  const auto everywhere = ia::execute<plan>(tr, SA);
  CHECK(tr.moved() == expect);
  for (const auto& site : everywhere) CHECK(site.size() == SA.size());
  const auto collected = ia::evaluate<plan>(ia::local_sites(2), SA);
  REQUIRE(collected.size() == SA.size());
  for (const auto& [key, t] : SA) {
    REQUIRE(collected.find(key));
    CHECK(tiles_equal(*collected.find(key), t));
  }
}

TEST_CASE("sparse tiles: two-phase aggregation, filter, REKEY, transpose and duplicate in plans") {
  const auto A = lt::random_tensor<double, loom::csr>({30, 28}, lt::density::medium, 7);
  const auto SA = to_sparse_tiles<loom::dcsr>(A, {6, 7});
  const auto DA = to_tiled(A, {6, 7}, empty_tiles::keep).tiles;
  for (std::int64_t s : {1, 2, 3, 4}) {
    CAPTURE(s);
    ia::local_sites tr(s);
    // R2-5: the column sums of tiles, pre-aggregated per site, then shuffled and summed
    using plan = ia::lagg<ia::dims<1>, mat_add, ia::shuf<ia::dims<1>, ia::leaf<0, 2>>>;
    using two = ia::rewrite_t<plan, boost::mp11::mp_list<rules::two_phase_aggregation>>;
    static_assert(!std::is_same_v<plan, two>);
    check_same_tiles(ia::evaluate<two>(tr, SA),
                     aggregate(DA, std::array<std::size_t, 1>{1}, mat_add{}));
    // σ then a key permutation and the tiles transposed: the transpose of the kept block rows
    using moved =
        ia::lmap<project<1, 0>, transpose_tile, ia::lfilter<in_range<0, 1, 3>, ia::leaf<0, 2>>>;
    const auto T = ia::evaluate<moved>(tr, SA);
    check_same_tiles(T, ia::evaluate<moved>(ia::local_sites(1), DA));
    CHECK(T.tile_shape() == shape_t<2>{7, 6});
    for (const auto& [key, t] : T) CHECK(key[1] >= 1);
    // λᴸ(duplicate): three copies under a new first key, then the sum over the copies
    using copies = ia::lagg<ia::dims<1, 2>, mat_add, ia::ldup<0, 0, 0, ia::leaf<0, 2, ia::single>>>;
    const auto D = ia::evaluate<copies>(tr, SA);
    check_same_tiles(D, ia::evaluate<copies>(ia::local_sites(1), DA));
  }
}

TEST_CASE("sparse tiles: an incomplete local aggregation is reported at collection") {
  const auto A = lt::random_tensor<double, loom::csr>({16, 16}, lt::density::full, 5);
  const auto SA = to_sparse_tiles<loom::csr>(A, {4, 4});
  using bad = ia::lagg<ia::dims<0>, mat_add, ia::leaf<0, 2>>;  // one group's tiles on two sites
  CHECK_THROWS_AS(ia::evaluate<bad>(ia::local_sites(2), SA), loom::shape_error);
  CHECK(ia::evaluate<bad>(ia::local_sites(1), SA).size() == 4);
  // tiles_equal: the same entries in two formats, an explicit zero equal to an absent entry
  const auto t = SA.find({0, 0});
  REQUIRE(t);
  CHECK(tiles_equal(*t, loom::tensor<double, loom::dcsc>(*t)));
  CHECK(!tiles_equal(*t, loom::tensor<double, loom::csr>({4, 4})));
  CHECK(tiles_equal(loom::tensor<double, loom::csr>({4, 4}),
                    loom::tensor<double, loom::coo>({4, 4})));
  CHECK(!tiles_equal(loom::tensor<double, loom::csr>({4, 4}),
                     loom::tensor<double, loom::csr>({4, 5})));
}
