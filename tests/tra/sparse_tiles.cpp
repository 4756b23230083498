// Block-sparse relations whose tiles are loom tensors in any format (tra/sparse_tiles.hpp):
// conversion both ways, and the block matrix product over csr, dcsr, csc and dense tiles
// against the dense reference over densities, seeds and ragged tile shapes.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>

#include "../support/random.hpp"
#include "../support/reference.hpp"

using namespace loom::tra;
namespace lt = loom::test;

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

template <class T>
void check_same(const loom::tensor<double, loom::dense_matrix>& got, const T& want) {
  for (std::int64_t r = 0; r < got.extent(0); ++r)
    for (std::int64_t c = 0; c < got.extent(1); ++c)
      CHECK(got.at(r, c) == doctest::Approx(want.at(r, c)));
}

// C = A B by tiles, each tile format pair, against the dense reference
template <class FA, class FB, class FOut>
void product(const loom::tensor<double, loom::csr>& A, const loom::tensor<double, loom::csr>& B,
             const shape_t<2>& ta, const shape_t<2>& tb) {
  CAPTURE(loom::format_name<FA>());
  CAPTURE(loom::format_name<FB>());
  CAPTURE(loom::format_name<FOut>());
  const auto RA = to_sparse_tiles<FA>(A, ta);
  const auto RB = to_sparse_tiles<FB>(B, tb);
  if constexpr (!FA::all_dense) CHECK(RA.nnz() == A.nnz());  // a dense tile stores every cell
  block_matmul_report rep;
  const auto RC = block_matmul<FOut>(RA, RB, &rep);
  // the tile pairs that meet: A's (I, K) with B's (K, J)
  std::int64_t pairs = 0;
  std::set<std::array<std::int64_t, 2>> outs;
  for (const auto& [ka, t] : RA)
    for (const auto& [kb, u] : RB)
      if (ka[1] == kb[0]) {
        ++pairs;
        outs.insert({ka[0], kb[1]});
      }
  CHECK(rep.tile_products == pairs);
  CHECK(rep.output_tiles == static_cast<std::int64_t>(outs.size()));
  loom::tensor<double, loom::dense_matrix> want({A.extent(0), B.extent(1)});
  want(i, j) = loom::sum(k, A(i, k) * B(k, j));
  check_same(from_sparse_tiles<loom::dense_matrix>(RC, {A.extent(0), B.extent(1)}), want);
}
}  // namespace

TEST_CASE(
    "sparse tiles: any format in the tiles, round trips and block products match the "
    "reference") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      const auto A = lt::random_tensor<double, loom::csr>({37, 29}, d, seed);
      const auto B = lt::random_tensor<double, loom::csr>({29, 23}, d, seed + 5);
      // round trip, ragged tiles
      const auto RA = to_sparse_tiles<loom::csr>(A, {8, 6});
      CHECK(RA.bounds() == std::array<std::int64_t, 2>{5, 5});
      const auto back = from_sparse_tiles<loom::csr>(RA, A.shape());
      CHECK(back.nnz() == A.nnz());
      check_same(from_sparse_tiles<loom::dense_matrix>(RA, A.shape()), A);
      product<loom::csr, loom::csr, loom::csr>(A, B, {8, 6}, {6, 7});
      product<loom::dcsr, loom::csc, loom::dense_matrix>(A, B, {8, 6}, {6, 7});
      product<loom::dense_matrix, loom::csr, loom::csr>(A, B, {10, 10}, {10, 5});
    }
}

TEST_CASE("sparse tiles: absent tiles are skipped, and errors name the shapes") {
  // block-diagonal: only the two diagonal tiles meet
  const auto A = loom::from_coo<loom::csr>({8, 8}, {{0, 0}, {1, 2}, {5, 5}, {7, 6}},
                                           std::vector<double>{1, 2, 3, 4});
  const auto R = to_sparse_tiles<loom::csr>(A, {4, 4});
  CHECK(R.size() == 2);
  block_matmul_report rep;
  const auto C = block_matmul<loom::csr>(R, R, &rep);
  CHECK(rep.tile_products == 2);
  CHECK(C.size() == 2);
  CHECK_THROWS_WITH_AS(block_matmul<loom::csr>(R, to_sparse_tiles<loom::csr>(A, {2, 4})),
                       doctest::Contains("A has 2 tile columns of 4, B has 4 tile rows of 2"),
                       loom::shape_error);
  sparse_relation<double, loom::csr> S({2, 2}, {4, 4});
  CHECK_THROWS_WITH_AS(S.insert({2, 0}, loom::tensor<double, loom::csr>({4, 4})),
                       doctest::Contains("key (2,0) outside the bounds (2,2)"), loom::shape_error);
  CHECK_THROWS_WITH_AS(S.insert({0, 0}, loom::tensor<double, loom::csr>({4, 3})),
                       doctest::Contains("a tile of shape (4,3)"), loom::shape_error);
  S.insert({0, 0}, loom::tensor<double, loom::csr>({4, 4}));
  CHECK_THROWS_AS(S.insert({0, 0}, loom::tensor<double, loom::csr>({4, 4})), loom::duplicate_error);
}
