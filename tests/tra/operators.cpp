// The TRA operators against the worked tests of the TRA paper (UT-1..4, 6, 8, 9, 12, 13).
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
using tra_test::r_a;
using tra_test::t2;
using tra_test::t22;

template <std::size_t... I> constexpr std::array<std::size_t, sizeof...(I)> pos{I...};

TEST_CASE("UT-1 aggregation: by key 1, by key 0, and into one tile") {
  const auto RA = r_a();
  const auto by1 = aggregate(RA, pos<1>, mat_add{});
  CHECK(by1.size() == 2);
  CHECK(by1.at({0}) == t22(10, 12, 14, 16));
  CHECK(by1.at({1}) == t22(18, 20, 22, 24));
  const auto by0 = aggregate(RA, pos<0>, mat_add{});
  CHECK(by0.at({0}) == t22(6, 8, 10, 12));
  CHECK(by0.at({1}) == t22(22, 24, 26, 28));
  const auto all = aggregate(RA, std::array<std::size_t, 0>{}, mat_add{});
  static_assert(std::remove_cvref_t<decltype(all)>::key_arity == 0);
  CHECK(all.at({}) == t22(28, 32, 36, 40));
  CHECK(aggregate(by1, std::array<std::size_t, 0>{}, mat_add{}).at({}) == all.at({}));
  CHECK(aggregate(by0, std::array<std::size_t, 0>{}, mat_add{}).at({}) == all.at({}));
}

TEST_CASE("UT-2 join + aggregation = A*A, with the 8 joined tuples of the notes") {
  const auto RA = r_a();
  const auto J = join(RA, RA, pos<1>, pos<0>, mat_mul{});
  static_assert(std::remove_cvref_t<decltype(J)>::key_arity == 3);
  CHECK(J.size() == 8);
  CHECK(J.bounds() == key_array<3>{2, 2, 2});
  CHECK(J.at({0, 0, 0}) == t22(7, 10, 15, 22));
  CHECK(J.at({0, 0, 1}) == t22(19, 22, 43, 50));
  CHECK(J.at({0, 1, 0}) == t22(111, 122, 151, 166));
  CHECK(J.at({0, 1, 1}) == t22(155, 166, 211, 226));
  CHECK(J.at({1, 0, 0}) == t22(39, 58, 47, 70));
  CHECK(J.at({1, 0, 1}) == t22(115, 134, 139, 162));
  CHECK(J.at({1, 1, 0}) == t22(271, 298, 311, 342));
  CHECK(J.at({1, 1, 1}) == t22(379, 406, 435, 466));
  const auto C = aggregate(J, pos<0, 2>, mat_add{});
  CHECK(C.at({0, 0}) == t22(118, 132, 166, 188));
  CHECK(C.at({0, 1}) == t22(174, 188, 254, 276));
  CHECK(C.at({1, 0}) == t22(310, 356, 358, 412));
  CHECK(C.at({1, 1}) == t22(494, 540, 574, 628));
}

TEST_CASE("join_aggregate (fused matmul into its sum) equals aggregate of join") {
  const auto RA = r_a();
  const auto fused = join_aggregate(RA, RA, pos<1>, pos<0>, mat_mul{}, pos<0, 2>, mat_add{});
  CHECK(fused == aggregate(join(RA, RA, pos<1>, pos<0>, mat_mul{}), pos<0, 2>, mat_add{}));
  CHECK(fused.at({1, 1}) == t22(494, 540, 574, 628));
  // keeping the join key: no sum happens, every joined tile stands alone
  const auto kept = join_aggregate(RA, RA, pos<1>, pos<0>, mat_mul{}, pos<0, 1, 2>, mat_add{});
  CHECK(kept == join(RA, RA, pos<1>, pos<0>, mat_mul{}));
  relation<double, 2, 2> L({2, 2}, {2, 2}), R({3, 2}, {2, 2});
  CHECK_THROWS_AS(join_aggregate(L, R, pos<1>, pos<0>, mat_mul{}, pos<0, 2>, mat_add{}),
                  loom::shape_error);
}

TEST_CASE("join key layout is [L minus jl, jl, R minus jr] when the join keys are not trailing") {
  relation<double, 2, 1> L({2, 3}, {2});  // key <a, b>, join on a (leading)
  relation<double, 2, 1> R({4, 2}, {2});  // key <c, d>, join on d (trailing)
  L.insert({1, 2}, t2(1, 2));
  R.insert({3, 1}, t2(10, 20));
  R.insert({3, 0}, t2(5, 5));
  const auto J = join(L, R, pos<0>, pos<1>, mat_add{});
  CHECK(J.size() == 1);
  CHECK(J.bounds() == key_array<3>{3, 2, 4});  // [b, a, c]
  CHECK(J.at({2, 1, 3}) == t2(11, 22));
}

TEST_CASE("UT-9 the extended join integrity condition is checked") {
  relation<double, 2, 2> L({2, 2}, {2, 2}), R({3, 2}, {2, 2});
  CHECK_THROWS_AS(join(L, R, pos<1>, pos<0>, mat_mul{}), loom::shape_error);
  CHECK_THROWS_AS(aggregate(L, pos<2>, mat_add{}), loom::shape_error);
  CHECK_THROWS_AS(L.insert({2, 0}, t22(0, 0, 0, 0)), loom::shape_error);
  L.insert({0, 0}, t22(0, 0, 0, 0));
  CHECK_THROWS_AS(L.insert({0, 0}, t22(0, 0, 0, 0)), loom::duplicate_error);
  static_assert(decltype(aggregate(L, pos<1>, mat_add{}))::key_arity == 1);
  // REKEY project<0> without a filter is not injective on R_A: flagged, not silently merged
  CHECK_THROWS_AS(rekey<project<0>>(r_a()), loom::duplicate_error);
  static_assert(!project<0>::injective<2>() && project<1, 0>::injective<2>());
}

TEST_CASE(
    "UT-3 TILE along the column axis (array dimension 1; the paper's 'dimension 0'), "
    "REKEY and STACK") {
  relation<double, 1, 2> RB({2}, {2, 4});
  RB.insert({0}, tile<double, 2>({2, 4}, {1, 2, 5, 6, 3, 4, 7, 8}));
  RB.insert({1}, tile<double, 2>({2, 4}, {9, 10, 13, 14, 11, 12, 15, 16}));
  const auto T = tile_dim(RB, 1, 2);
  static_assert(decltype(T)::key_arity == 2);
  CHECK(T.tile_shape() == shape_t<2>{2, 2});
  CHECK(T == r_a());
  const auto L = rekey<linearize<2, 1>>(T);
  CHECK(L.bounds() == key_array<1>{4});
  CHECK(L.at({0}) == t22(1, 2, 3, 4));
  CHECK(L.at({1}) == t22(5, 6, 7, 8));
  CHECK(L.at({2}) == t22(9, 10, 11, 12));
  CHECK(L.at({3}) == t22(13, 14, 15, 16));
  const auto S = stack(T, 1, 1);
  static_assert(decltype(S)::key_arity == 1);
  CHECK(S.tile_shape() == shape_t<2>{2, 4});
  CHECK(S == RB);
  // rows: tiling along dimension 0 then stacking back
  CHECK(stack(tile_dim(RB, 0, 1), 1, 0) == RB);
  CHECK_THROWS_AS(tile_dim(RB, 1, 3), loom::shape_error);
  CHECK_THROWS_AS(stack(filter(T, in_range<1, 0, 1>{}), 1, 1), loom::shape_error);
}

TEST_CASE("UT-4 diagonal: filter, rekey, transform") {
  const auto F = filter(r_a(), eq<0, 1>{});
  CHECK(F.size() == 2);
  const auto P = rekey<project<0>>(F);
  CHECK(P.at({0}) == t22(1, 2, 3, 4));
  CHECK(P.at({1}) == t22(13, 14, 15, 16));
  const auto D = transform(P, diag_extract{});
  static_assert(decltype(D)::rank == 1);
  CHECK(D.at({0}) == t2(1, 4));
  CHECK(D.at({1}) == t2(13, 16));
  const auto M = transform(P, [](const tile<double, 2>& t) { return diagonal_matrix(t); });
  CHECK(M.at({0}) == t22(1, 0, 0, 4));
  CHECK(M.at({1}) == t22(13, 0, 0, 16));
}

TEST_CASE("UT-6 insert_dim + duplicate: 8 distinct keys, each holding its source block") {
  const auto D = duplicate<2>(r_a(), 2);
  CHECK(D.size() == 8);
  CHECK(D.bounds() == key_array<3>{2, 2, 2});
  CHECK(D.at({0, 1, 0}) == t22(5, 6, 7, 8));
  CHECK(D.at({0, 1, 1}) == t22(5, 6, 7, 8));
  CHECK(D.at({1, 1, 1}) == t22(13, 14, 15, 16));
}

TEST_CASE("UT-8 transpose via REKEY permute<1,0> then transform") {
  const auto T = transform(rekey<permute<1, 0>>(r_a()), transpose_tile{});
  CHECK(T.at({0, 0}) == t22(1, 3, 2, 4));
  CHECK(T.at({0, 1}) == t22(9, 11, 10, 12));
  CHECK(T.at({1, 0}) == t22(5, 7, 6, 8));
  CHECK(T.at({1, 1}) == t22(13, 15, 14, 16));
}

TEST_CASE("UT-12 continuity, full box and the dual REKEY") {
  const auto U = filter(r_a(), lt_eq<0, 1>{});
  CHECK(U.size() == 3);
  CHECK(!U.is_continuous());  // <1,1> needs <1,0>
  const auto C = dual_rekey(U);
  CHECK(C.bounds() == key_array<1>{3});
  CHECK(C.is_continuous());
  CHECK(C.at({0}) == t22(1, 2, 3, 4));
  CHECK(C.at({1}) == t22(5, 6, 7, 8));
  CHECK(C.at({2}) == t22(13, 14, 15, 16));
  relation<double, 2, 2> V({2, 2}, {2, 2});
  V.insert({0, 0}, t22(0, 0, 0, 0));
  V.insert({0, 1}, t22(0, 0, 0, 0));
  V.insert({1, 0}, t22(0, 0, 0, 0));
  CHECK(V.is_continuous());
  CHECK(!V.is_full_box());
  CHECK(V.size() == 3);  // the count, not the box formula's 4
  CHECK(V.box_size() == 4);
}

// UT-13: einsum lowering, as types
static_assert(
    std::is_same_v<
        einsum_plan_t<"ij,jk->ik">,
        ia::lagg<ia::dims<0, 2>, mat_add,
                 ia::ljoin<ia::dims<1>, ia::dims<0>, mat_mul, ia::leaf<0, 2>, ia::leaf<1, 2>>>>);
static_assert(std::is_same_v<einsum_plan_t<"bij,bjk->bik">,
                             ia::lagg<ia::dims<1, 0, 3>, mat_add,
                                      ia::ljoin<ia::dims<0, 2>, ia::dims<0, 1>, mat_mul,
                                                ia::leaf<0, 3>, ia::leaf<1, 3>>>>);
static_assert(!detail::einsum_spec<"ii,ij->j">::valid && !detail::einsum_spec<"ij,jk->iz">::valid);

TEST_CASE("UT-13 einsum: a batched product bij,bjk->bik is a join on (b, j) keeping b") {
  relation<double, 3, 2> B({2, 2, 2}, {2, 2});  // two copies of A, key <b, i, j>
  for (std::int64_t b = 0; b < 2; ++b)
    for (const auto& [k, t] : r_a()) B.insert({b, k[0], k[1]}, t);
  // left <b,i,j> joins right <b,j,k> on (b, j): output [i, b, j, k]; keep b: Σ<1,0,3>
  const auto J = join(B, B, pos<0, 2>, pos<0, 1>, mat_mul{});
  const auto C = aggregate(J, pos<1, 0, 3>, mat_add{});
  const auto A2 = aggregate(join(r_a(), r_a(), pos<1>, pos<0>, mat_mul{}), pos<0, 2>, mat_add{});
  for (std::int64_t b = 0; b < 2; ++b)
    for (const auto& [k, t] : A2) CHECK(C.at({b, k[0], k[1]}) == t);
  CHECK(einsum<"bij,bjk->bik">(B, B) == C);
  CHECK(einsum<"ij,jk->ik">(r_a(), r_a()) == A2);
  using placed = einsum_plan_t<"ij,jk->ik", ia::partitioned<ia::dims<0>>, ia::replicated>;
  CHECK(ia::evaluate<placed>(ia::local_sites(3), r_a(), r_a()) == A2);
  // a transposed output transposes the tiles too (every spec: tests/tra/einsum_specs.cpp)
  CHECK(einsum<"ij,jk->ki">(r_a(), r_a()).at({1, 0}) == transpose(A2.at({0, 1})));
}
