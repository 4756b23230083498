// Robustness: narrow position and coordinate widths overflow with an overflow_error on
// every path that writes them (append, workspace/transpose, parallel rows, assembly), never a
// crash, and the output is left a valid empty tensor.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using pos16 = loom::compressed_level<loom::uniqueness::unique, std::int16_t, std::int32_t>;
using csr16 = loom::format<loom::dense, pos16>;
using crd8 =
    loom::format<loom::dense,
                 loom::compressed_level<loom::uniqueness::unique, std::int64_t, std::int8_t>>;

// n x n with `per_row` entries per row (spread over the columns): n * per_row entries
loom::tensor<double, loom::csr> spread(std::int64_t n, std::int64_t per_row) {
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t s = 0; s < per_row; ++s) {
      c.push_back({r, (s * 7919 + r) % n});
      v.push_back(1);
    }
  return loom::from_coo<loom::csr>({n, n}, c, v, loom::duplicates::sum);
}

template <class Tensor> void check_valid_empty(const Tensor& T) {
  CHECK(T.nnz() == 0);
  CHECK(T.at(1, 1) == 0);
  loom::validate(T);
}
}  // namespace

TEST_CASE("a transpose into 16-bit positions that overflow throws before writing") {
  // 40 000 entries: the counting sort of the transpose (appender::fill_by_rows) once built the
  // positions in int16, wrapped, and wrote out of bounds (a heap-use-after-free)
  const auto A = spread(20000, 2);
  loom::tensor<double, csr16> T({20000, 20000});
  CHECK_THROWS_AS((T(j, i) = A(i, j)), loom::overflow_error);
  check_valid_empty(T);
  // the same transpose that fits is right
  const auto S = spread(100, 3);
  loom::tensor<double, csr16> U({100, 100});
  U(j, i) = S(i, j);
  CHECK(U.nnz() == S.nnz());
  S.for_each_stored([&](const auto& c, double v) { CHECK(U.at(c[1], c[0]) == v); });
}

TEST_CASE("appends, assembly and parallel rows into 16-bit positions throw overflow_error") {
  const auto A = spread(200, 200);  // 40 000 entries
  loom::tensor<double, csr16> C({200, 200});
  CHECK_THROWS_AS((C(i, j) = A(i, j) * 2.0), loom::overflow_error);  // in-order appends
  check_valid_empty(C);
  {
    loom::parallel_scope two({.threads = 2, .min_work = 0});
    CHECK_THROWS_AS((C(i, j) = A(i, j) * 2.0), loom::overflow_error);  // parallel rows
  }
  check_valid_empty(C);
  CHECK_THROWS_AS(loom::convert<csr16>(A), loom::overflow_error);  // assembly
}

TEST_CASE("a coordinate that does not fit the coordinate type throws overflow_error") {
  // the extent is checked when a tensor is made, so no kernel can write a wider coordinate
  CHECK_THROWS_AS((loom::tensor<double, crd8>({300, 300})), loom::overflow_error);
  CHECK_THROWS_AS(loom::convert<crd8>(spread(300, 1)), loom::overflow_error);
  const auto A = spread(128, 1);
  loom::tensor<double, crd8> C({128, 128});  // 127 fits
  C(i, j) = A(i, j) * 2.0;
  CHECK(C.nnz() == 128);
}
