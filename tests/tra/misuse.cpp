// The tensor relational algebra misused: tile extents of 0, negative or past 64 bits,
// ragged shapes, mismatched tilings and relations of impossible shape. Each is a loom::error
// naming the values, or (ragged edges, empty extents) a right answer; never a crash.
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

using namespace loom::tra;

namespace {
constexpr std::int64_t two32 = std::int64_t{1} << 32;

// The message of the loom::error that `f` throws ("" when it throws none).
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const loom::error& e) {
    return e.what();
  }
  return "";
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE(
    "tra misuse: a tile whose volume overflows 64 bits is a shape_error, not a short buffer") {
  // (2^32)^2 wrapped to 0 values: the tile was made over an empty buffer, and to_tiled wrote
  // the entries of a 3 x 3 matrix past its end (heap-buffer-overflow)
  const std::string e = error_of([] { tile<double, 2> t({two32, two32}); });
  CHECK(has(e, "loom::tra::tile"));
  CHECK(has(e, "(4294967296,4294967296)"));
  CHECK(has(error_of([] { tile<double, 3> t({two32, 2, two32}); }), "overflows"));
  const auto A = loom::from_coo<loom::csr>({3, 3}, {{0, 0}, {2, 2}}, std::vector<double>{1, 2});
  CHECK(has(error_of([&] { (void)to_tiled(A, {two32, two32}); }), "loom::tra::tile"));
  CHECK_THROWS_AS((tile<double, 2>({two32, two32}, std::vector<double>{})), loom::shape_error);
}

TEST_CASE("tra misuse: tile extents of 0 or below") {
  const auto A = loom::from_coo<loom::csr>({3, 3}, {{0, 0}, {2, 2}}, std::vector<double>{1, 2});
  CHECK(has(error_of([&] { (void)to_tiled(A, {0, 2}); }), "tile extent 0 of dimension 0"));
  CHECK(has(error_of([&] { (void)to_tiled(A, {2, -1}); }), "tile extent -1 of dimension 1"));
  CHECK(has(error_of([] { tile<double, 2> t({2, -3}); }), "extent -3 of dimension 1"));
  // a relation of such tiles, or of negative key bounds, is refused when it is made
  CHECK(has(error_of([] {
              relation<double, 2, 2> r({2, 2}, {2, -1});
            }),
            "loom::tra::relation: tile shape (2,-1)"));
  CHECK(has(error_of([] {
              relation<double, 2, 2> r({-1, 2}, {2, 2});
            }),
            "loom::tra::relation: key bounds (-1,2)"));
  // tile extents of 0 are a valid (empty) relation; cutting one into pieces is not
  relation<double, 1, 2> empty_tiles({2}, {0, 3});
  empty_tiles.insert({0}, tile<double, 2>({0, 3}));
  empty_tiles.insert({1}, tile<double, 2>({0, 3}));
  CHECK(has(error_of([&] { (void)tile_dim(empty_tiles, 0, 1); }),
            "dimension 0 of tiles (0,3) cannot be cut"));
  CHECK(has(error_of([&] { (void)tile_dim(empty_tiles, 1, 0); }), "pieces of 0"));
  // duplicate with a negative count
  CHECK(has(error_of([&] { (void)duplicate<0>(empty_tiles, -2); }), "-2"));
}

TEST_CASE("tra misuse: a tiled tensor of zero extent, and ragged edges, round-trip") {
  const auto Z = loom::from_coo<loom::csr>({0, 4}, {}, std::vector<double>{});
  const auto tz = to_tiled(Z, {2, 2});
  CHECK(tz.tiles.bounds() == key_array<2>{0, 2});
  CHECK(tz.tiles.empty());
  CHECK(from_tiled<loom::csr>(tz).shape() == std::array<std::int64_t, 2>{0, 4});
  // 5 x 7 in 2 x 3 tiles (padded edges) times 7 x 3 in 3 x 2 tiles: the product of the tiles
  // is the product of the matrices; the padding adds nothing
  const auto A = loom::from_coo<loom::csr>({5, 7}, {{0, 0}, {0, 6}, {4, 6}, {3, 2}},
                                           std::vector<double>{1, 2, 3, 4});
  const auto B = loom::from_coo<loom::csr>({7, 3}, {{0, 1}, {6, 0}, {6, 2}, {2, 2}},
                                           std::vector<double>{5, 6, 7, 8});
  const auto TA = to_tiled(A, {2, 3}), TB = to_tiled(B, {3, 2});
  const auto TC = einsum<"ij,jk->ik">(TA.tiles, TB.tiles);
  const auto C = from_tiled<loom::dense_matrix>(tiled_tensor<double, 2>{TC, {5, 3}});
  CHECK(C.at(0, 0) == 12);  // A(0,6) B(6,0)
  CHECK(C.at(0, 1) == 5);   // A(0,0) B(0,1)
  CHECK(C.at(0, 2) == 14);  // A(0,6) B(6,2)
  CHECK(C.at(4, 0) == 18);
  CHECK(C.at(3, 2) == 32);
  CHECK(C.at(1, 1) == 0);
}

TEST_CASE("tra misuse: mismatched tilings are a shape_error naming both tile shapes") {
  // A 4 x 4 in 2 x 2 tiles against B 6 x 6 in 3 x 3 tiles: the key bounds agree (2), the tiles
  // do not
  relation<double, 2, 2> A({2, 2}, {2, 2}), B({2, 2}, {3, 3});
  A.insert({0, 0}, tile<double, 2>({2, 2}, {1, 2, 3, 4}));
  B.insert({0, 0}, tile<double, 2>({3, 3}));
  const std::string e = error_of([&] { (void)einsum<"ij,jk->ik">(A, B); });
  CHECK(has(e, "(2,2)"));
  CHECK(has(e, "(3,3)"));
  // the same with the unfused operators, and with no matching tuples at all
  const std::string j = error_of([&] {
    (void)join(A, B, std::array<std::size_t, 1>{1}, std::array<std::size_t, 1>{0}, mat_mul{});
  });
  CHECK(has(j, "(2,2)"));
  const relation<double, 2, 2> none({2, 2}, {3, 3});
  CHECK(has(error_of([&] { (void)einsum<"ij,jk->ik">(A, none); }), "(3,3)"));
  // key bounds that differ are the join's integrity error
  relation<double, 2, 2> wide({3, 2}, {2, 2});
  CHECK(has(error_of([&] { (void)einsum<"ij,jk->ik">(A, wide); }), "extended join integrity"));
  // inserting a tile of another shape
  CHECK(has(error_of([&] {
              A.insert({1, 1}, tile<double, 2>({3, 3}));
            }),
            "tile of shape (3,3) in a relation of tile shape (2,2)"));
  // adding tiles of different shapes
  CHECK(has(error_of([] {
              (void)add(tile<double, 2>({2, 2}), tile<double, 2>({2, 3}));
            }),
            "tile shapes differ"));
}
