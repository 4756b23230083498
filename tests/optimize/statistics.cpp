// Tests loom::gather_statistics on every matrix format, a 3-tensor, empty tensors, and times a
// 1M-nonzero matrix (printed, no threshold).
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/optimize/gather_statistics.hpp>

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace {

// 4 x 5 matrix, rows 0, 1, 3 used, columns 0, 2, 4 used:
//   row 0: (0,0) (0,2) (0,4)   row 1: (1,2)   row 3: (3,2) (3,4)
const std::array<std::int64_t, 2> shape{4, 5};
const std::vector<std::array<std::int64_t, 2>> coords{{0, 0}, {0, 2}, {0, 4},
                                                      {1, 2}, {3, 2}, {3, 4}};
const std::vector<double> values{1, 2, 3, 4, 5, 6};

}  // namespace

TEST_CASE_TEMPLATE("gather_statistics: sparse matrix formats", Format, loom::csr, loom::dcsr,
                   loom::coo, loom::csc, loom::dcsc) {
  const auto a = loom::from_coo<Format>(shape, coords, values);
  const loom::statistics s = loom::gather_statistics(a);
  CHECK(s.shape == std::vector<std::int64_t>{4, 5});
  CHECK(s.nnz == 6);
  CHECK(s.distinct == std::vector<std::int64_t>{3, 3});
  CHECK(s.max_degree == std::vector<std::int64_t>{3, 3});  // row 0 and column 2
  CHECK(s.max_row_degree() == 3);
  CHECK(s.max_column_degree() == 3);
  CHECK(s.mean_degree[0] == doctest::Approx(2.0));
  CHECK(s.mean_degree[1] == doctest::Approx(2.0));
  CHECK(s.density() == doctest::Approx(6.0 / 20.0));
  // Level 0 stores rows (csr, dcsr, coo) or columns (csc, dcsc): 3 non-empty slices either way.
  CHECK(s.nonempty_fibers == std::vector<std::int64_t>{3, 6});
}

TEST_CASE("gather_statistics: dense matrix counts every stored entry") {
  const auto a = loom::from_coo<loom::dense_matrix>(shape, coords, values);
  const loom::statistics s = loom::gather_statistics(a);
  CHECK(s.nnz == 20);
  CHECK(s.distinct == std::vector<std::int64_t>{4, 5});
  CHECK(s.max_degree == std::vector<std::int64_t>{5, 4});
  CHECK(s.nonempty_fibers == std::vector<std::int64_t>{4, 20});
}

TEST_CASE("gather_statistics: 3-tensor in csf<3>") {
  const std::vector<std::array<std::int64_t, 3>> c{{0, 0, 0}, {0, 0, 1}, {0, 2, 1}, {2, 1, 1}};
  const auto t = loom::from_coo<loom::csf<3>>({3, 3, 2}, c, std::vector<double>{1, 1, 1, 1});
  const loom::statistics s = loom::gather_statistics(t);
  CHECK(s.nnz == 4);
  CHECK(s.nonempty_fibers == std::vector<std::int64_t>{2, 3, 4});
  CHECK(s.distinct == std::vector<std::int64_t>{2, 3, 2});
  CHECK(s.max_degree == std::vector<std::int64_t>{3, 2, 3});
  CHECK(s.mean_degree[2] == doctest::Approx(2.0));
}

TEST_CASE("gather_statistics: empty tensor") {
  const loom::tensor<double, loom::csr> a({3, 7});
  const loom::statistics s = loom::gather_statistics(a);
  CHECK(s.nnz == 0);
  CHECK(s.distinct == std::vector<std::int64_t>{0, 0});
  CHECK(s.max_degree == std::vector<std::int64_t>{0, 0});
  CHECK(s.mean_degree == std::vector<double>{0.0, 0.0});
  CHECK(s.nonempty_fibers == std::vector<std::int64_t>{0, 0});
}

TEST_CASE("gather_statistics: timing on a generated 1M-nonzero csr matrix") {
  constexpr std::int64_t rows = 100000, cols = 100000, per_row = 10;
  std::vector<std::array<std::int64_t, 2>> c;
  c.reserve(rows * per_row);
  std::uint64_t x = 88172645463325252ull;  // xorshift64
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < per_row; ++k) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      // column block k of width cols / per_row keeps each row's columns ascending and distinct
      c.push_back({r, k * (cols / per_row) + static_cast<std::int64_t>(x % (cols / per_row))});
    }
  }
  const auto a = loom::from_coo<loom::csr>({rows, cols}, c, std::vector<double>(c.size(), 1.0));
  const auto start = std::chrono::steady_clock::now();
  const loom::statistics s = loom::gather_statistics(a);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("gather_statistics on a " << rows << " x " << cols << " csr matrix with " << s.nnz
                                    << " nonzeros took " << ms << " ms");
  CHECK(s.nnz == rows * per_row);
  CHECK(s.max_row_degree() == per_row);
  CHECK(s.nonempty_fibers[0] == rows);
}
