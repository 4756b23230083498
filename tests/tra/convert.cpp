// Tiled tensors (tra/convert.hpp): from and to dense, CSR, COO and 3-D tensors, ragged edges.
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "support.hpp"

using namespace loom::tra;

namespace {
loom::tensor<double, loom::csr> sample_csr() {
  // 5 x 7 with entries on the tile edges
  return loom::from_coo<loom::csr>({5, 7}, {{0, 0}, {0, 6}, {1, 3}, {2, 2}, {4, 0}, {4, 6}},
                                   std::vector<double>{1, 2, 3, 4, 5, 6});
}
template <class A, class B> int differences(const A& a, const B& b) {
  int n = 0;
  for (std::int64_t i = 0; i < a.shape()[0]; ++i)
    for (std::int64_t j = 0; j < a.shape()[1]; ++j) n += a.at(i, j) != b.at(i, j);
  return n;
}
}  // namespace

TEST_CASE("to_tiled of CSR: key bounds round up, edge tiles are zero-padded") {
  const auto A = sample_csr();
  const auto T = to_tiled(A, {2, 3});
  CHECK(T.tiles.bounds() == key_array<2>{3, 3});
  CHECK(T.tiles.is_full_box());
  CHECK(T.shape == shape_t<2>{5, 7});
  CHECK(T.tiles.at({0, 2})(0, 0) == 2);  // A(0,6)
  CHECK(T.tiles.at({2, 2})(0, 0) == 6);  // A(4,6)
  CHECK(T.tiles.at({2, 2})(1, 2) == 0);  // padding
  const auto S = to_tiled(A, {2, 3}, empty_tiles::drop);
  CHECK(S.tiles.size() == 6);  // tiles holding an entry: <0,0> <0,1> <0,2> <1,0> <2,0> <2,2>
  CHECK(!S.tiles.is_full_box());
}

TEST_CASE("round trips through every format keep every entry") {
  const auto A = sample_csr();
  for (auto shape : {shape_t<2>{1, 1}, shape_t<2>{2, 3}, shape_t<2>{5, 7}, shape_t<2>{8, 8}}) {
    const auto T = to_tiled(A, shape);
    const auto D = from_tiled<loom::dense_matrix>(T);
    const auto C = from_tiled<loom::csr>(T);
    const auto O = from_tiled<loom::coo>(T);
    CHECK(differences(A, D) == 0);
    CHECK(differences(A, C) == 0);
    CHECK(differences(A, O) == 0);
    CHECK(C.nnz() == A.nnz());
    CHECK(O.nnz() == A.nnz());
    const auto back = to_tiled(D, shape);
    CHECK(back.tiles == T.tiles);
    const auto fromcoo = to_tiled(O, shape);
    CHECK(fromcoo.tiles == T.tiles);
  }
}

TEST_CASE("a 3-D tensor tiles and comes back") {
  auto X = loom::from_coo<loom::csf<3>>({3, 4, 5}, {{0, 0, 0}, {1, 2, 3}, {2, 3, 4}},
                                        std::vector<double>{1, 2, 3});
  const auto T = to_tiled(X, {2, 2, 2});
  CHECK(T.tiles.bounds() == key_array<3>{2, 2, 3});
  CHECK(T.tiles.at({0, 1, 1})(1, 0, 1) == 2);
  const auto Y = from_tiled<loom::csf<3>>(T);
  CHECK(Y.nnz() == 3);
  CHECK(Y.at(2, 3, 4) == 3);
}

TEST_CASE("tiled matmul equals the loom product of the untiled matrices") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  loom::tensor<double, loom::dense_matrix> A({6, 6}), B({6, 6}), C({6, 6});
  for (std::int64_t r = 0; r < 6; ++r)
    for (std::int64_t c = 0; c < 6; ++c) {
      A.at(r, c) = static_cast<double>(r + 2 * c);
      B.at(r, c) = static_cast<double>(r * c % 5);
    }
  C(i, j) = loom::sum(k, A(i, k) * B(k, j));
  auto TA = to_tiled(A, {3, 3});
  auto TB = to_tiled(B, {3, 3});
  tiled_tensor<double, 2> TC{aggregate(join(TA.tiles, TB.tiles, std::array<std::size_t, 1>{1},
                                            std::array<std::size_t, 1>{0}, mat_mul{}),
                                       std::array<std::size_t, 2>{0, 2}, mat_add{}),
                             {6, 6}};
  const auto D = from_tiled<loom::dense_matrix>(TC);
  CHECK(differences(C, D) == 0);
}

TEST_CASE("to_tiled rejects a non-positive tile extent") {
  CHECK_THROWS_AS(to_tiled(sample_csr(), {0, 2}), loom::shape_error);
}
