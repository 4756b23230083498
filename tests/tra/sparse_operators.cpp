// TRA operators over sparse tiles (tra/sparse_operators.hpp): join with a loom tile kernel in the
// tiles' formats, aggregation (sum of tiles by key), the fused join-aggregate and the tile sizes
// of the cost model, each against the dense-tile operators on the same data and a dense reference.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>

#include "../support/random.hpp"
#include "support.hpp"

using namespace loom::tra;
namespace lt = loom::test;

namespace {
using dense = loom::tensor<double, loom::dense_matrix>;

using tra_test::check_same_tiles;

template <class SparseRel> dense assembled(const SparseRel& r, std::array<std::int64_t, 2> shape) {
  return from_sparse_tiles<loom::dense_matrix>(r, shape);
}
}  // namespace

TEST_CASE("sparse operators: join, aggregate and join_aggregate agree with the dense operators") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium}) {
      CAPTURE(seed);
      const auto A = lt::random_tensor<double, loom::csr>({37, 29}, d, seed);
      const auto B = lt::random_tensor<double, loom::csr>({29, 23}, d, seed + 5);
      const auto SA = to_sparse_tiles<loom::csr>(A, {8, 6});
      const auto SB = to_sparse_tiles<loom::dcsr>(B, {6, 7});
      const auto DA = to_tiled(A, {8, 6}, empty_tiles::keep).tiles;
      const auto DB = to_tiled(B, {6, 7}, empty_tiles::keep).tiles;
      const std::array<std::size_t, 1> jl{1}, jr{0};
      // ⋈ with the tile product: keys <I, K, J>, one tile per pair that meets
      const auto J3 = join(SA, SB, jl, jr, sparse_mat_mul<loom::csr>{});
      CHECK(J3.bounds() == std::array<std::int64_t, 3>{5, 5, 4});
      check_same_tiles(J3, join(DA, DB, jl, jr, mat_mul{}));
      // Σ over K of the joined tiles: the block product, as the dense Σ∘⋈ gives it
      const auto C = aggregate(J3, std::array<std::size_t, 2>{0, 2}, sparse_mat_add<loom::csr>{});
      const auto DC =
          join_aggregate(DA, DB, jl, jr, mat_mul{}, std::array<std::size_t, 2>{0, 2}, mat_add{});
      check_same_tiles(C, DC);
      dense want({37, 23});
      want(i, j) = loom::sum(k, A(i, k) * B(k, j));
      const auto got = assembled(C, {37, 23});
      for (std::int64_t r = 0; r < 37; ++r)
        for (std::int64_t c = 0; c < 23; ++c) CHECK(got.at(r, c) == doctest::Approx(want.at(r, c)));
      // fused: the same tiles without the joined relation
      const auto F =
          join_aggregate<loom::dense_matrix>(SA, SB, jl, jr, std::array<std::size_t, 2>{0, 2});
      check_same_tiles(F, DC);
      CHECK(F.size() <= block_matmul<loom::csr>(SA, SB).size());
      // sum of tiles by key: A + A2 in mixed formats
      const auto A2 = lt::random_tensor<double, loom::csr>({37, 29}, d, seed + 9);
      const auto S2 = to_sparse_tiles<loom::csc>(A2, {8, 6});
      const auto sum = add<loom::csr>(SA, S2);
      dense want_sum({37, 29});
      want_sum(i, j) = A(i, j) + A2(i, j);
      const auto got_sum = assembled(sum, {37, 29});
      for (std::int64_t r = 0; r < 37; ++r)
        for (std::int64_t c = 0; c < 29; ++c)
          CHECK(got_sum.at(r, c) == doctest::Approx(want_sum.at(r, c)));
      // ⋈ on both keys with the element-wise product, against the dense tiles' products
      const auto H = join(SA, S2, std::array<std::size_t, 2>{0, 1},
                          std::array<std::size_t, 2>{0, 1}, sparse_hadamard<loom::csr>{});
      CHECK(H.bounds() == SA.bounds());
      const auto DA2 = to_tiled(A2, {8, 6}, empty_tiles::keep).tiles;
      for (const auto& [key, t] : H) {
        const auto& x = DA.at(key);
        const auto& y = DA2.at(key);
        for (std::int64_t r = 0; r < 8; ++r)
          for (std::int64_t c = 0; c < 6; ++c)
            CHECK(t.at(r, c) == doctest::Approx(x(r, c) * y(r, c)));
      }
    }
}

TEST_CASE("sparse operators: aggregate by one key position, and the join's errors") {
  const auto A = lt::random_tensor<double, loom::csr>({24, 24}, lt::density::medium, 4);
  const auto SA = to_sparse_tiles<loom::csr>(A, {8, 8});
  const auto DA = to_tiled(A, {8, 8}, empty_tiles::keep).tiles;
  // the sum of each tile row's tiles, keyed by the tile row: Σ<0>
  const auto R = aggregate(SA, std::array<std::size_t, 1>{0}, sparse_mat_add<loom::dense_matrix>{});
  check_same_tiles(R, aggregate(DA, std::array<std::size_t, 1>{0}, mat_add{}));
  const auto B = to_sparse_tiles<loom::csr>(A, {8, 6});  // 4 tile columns
  CHECK_THROWS_AS(join(SA, B, std::array<std::size_t, 1>{1}, std::array<std::size_t, 1>{1},
                       sparse_mat_mul<loom::csr>{}),
                  loom::shape_error);
  CHECK_THROWS_AS(aggregate(SA, std::array<std::size_t, 2>{0, 0}, sparse_mat_add<loom::csr>{}),
                  loom::shape_error);
}

TEST_CASE("cost model: a sparse tile's bytes are its arrays, and the product's size is estimated") {
  const auto A = lt::random_tensor<double, loom::csr>({64, 64}, lt::density::sparse, 2);
  const auto SA = to_sparse_tiles<loom::csr>(A, {16, 16});
  // a CSR tile: 17 int64 positions, an int32 coordinate and a double per entry
  for (const auto& [key, t] : SA)
    CHECK(tile_bytes(t) == doctest::Approx(17.0 * 8 + static_cast<double>(t.nnz()) * 12));
  const auto D = loom::tensor<double, loom::dense_matrix>(A);
  CHECK(tile_bytes(D) == doctest::Approx(64.0 * 64 * 8));
  const cost_model cm{.alpha = 1, .beta = 0, .sites = 4, .policy = cost_policy::corrected};
  const auto st = stats_of(SA, A.shape());
  CHECK(st.nnz == doctest::Approx(static_cast<double>(A.nnz())));
  CHECK(st.tiles == doctest::Approx(static_cast<double>(SA.size())));
  // the estimate of A A: multiplications counted from tile row/column counts, the product's
  // entries between the exact count and the multiplications
  const auto e = estimate_product(cm, st, st);
  double mults = 0;
  A.for_each_stored([&](const auto& c, double) {
    std::int64_t in_row = 0;
    for (std::int64_t x = 0; x < 64; ++x) in_row += A.at(c[1], x) != 0 ? 1 : 0;
    mults += static_cast<double>(in_row);
  });
  CHECK(e.multiplications > 0.3 * mults);
  CHECK(e.multiplications < 3 * mults);
  CHECK(e.out.nnz <= e.multiplications);
  CHECK(e.out.nnz <= 64.0 * 64);
}

TEST_CASE("plan search over sparse relations: nnz statistics change the chain's order") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  constexpr loom::index<"l"> l;
  // X0 holds one entry per row, X1 and X2 half their cells: X0 X1 is as sparse as X1's rows
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  for (std::int64_t r = 0; r < 32; ++r) {
    coords.push_back({r, (r * 7) % 32});
    values.push_back(static_cast<double>(r % 3) + 1);
  }
  const auto X0 = loom::from_coo<loom::csr>({32, 32}, coords, values);
  const auto X1 = lt::random_tensor<double, loom::csr>({32, 32}, lt::density::medium, 11);
  const auto X2 = lt::random_tensor<double, loom::csr>({32, 32}, lt::density::medium, 12);
  const std::vector<sparse_relation<double, loom::csr>> xs{to_sparse_tiles<loom::csr>(X0, {8, 8}),
                                                           to_sparse_tiles<loom::csr>(X1, {8, 8}),
                                                           to_sparse_tiles<loom::csr>(X2, {8, 8})};
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .sites = 4, .policy = cost_policy::corrected};
  // by dense tile sizes the three are alike: the first order found wins
  const auto dense_plan = plan_chain(cm, {{4, 4, 8, 8}, {4, 4, 8, 8}, {4, 4, 8, 8}});
  CHECK(dense_plan.order == "(X0 (X1 X2))");
  std::vector<sparse_stats> stats;
  for (std::size_t x = 0; x < 3; ++x)
    stats.push_back(stats_of(xs[x], std::array<std::int64_t, 2>{32, 32}));
  const auto plan = plan_sparse_chain(cm, stats);
  CHECK(plan_sparse_chain(cm, xs).explain() == plan.explain());  // the extents are whole tiles
  CAPTURE(plan.explain());
  CHECK(plan.order == "((X0 X1) X2)");
  CHECK(plan.total < plan.left_to_right + 1e-18);
  const auto C = multiply_sparse_chain<loom::csr>(xs, plan);
  dense want({32, 32});
  want(i, l) = loom::sum(j, loom::sum(k, X0(i, j) * X1(j, k) * X2(k, l)));
  const auto got = assembled(C, {32, 32});
  for (std::int64_t r = 0; r < 32; ++r)
    for (std::int64_t c = 0; c < 32; ++c) CHECK(got.at(r, c) == doctest::Approx(want.at(r, c)));
}
