// Tests loom::gather_statistics on every matrix format, a 3-tensor, empty tensors, the array
// path against the generic pass on random tensors, and times a 1M-nonzero matrix (printed, no
// threshold).
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/optimize/statistics/gather_statistics.hpp>

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {

// 4 x 5 matrix, rows 0, 1, 3 used, columns 0, 2, 4 used:
//   row 0: (0,0) (0,2) (0,4)   row 1: (1,2)   row 3: (3,2) (3,4)
const std::array<std::int64_t, 2> shape{4, 5};
const std::vector<std::array<std::int64_t, 2>> coords{{0, 0}, {0, 2}, {0, 4},
                                                      {1, 2}, {3, 2}, {3, 4}};
const std::vector<double> values{1, 2, 3, 4, 5, 6};

// Random coordinates: each cell present with probability p, except in a band of empty slices of
// mode 0 and of mode 1 (so that empty rows and columns occur at every density).
template <std::size_t N>
std::vector<std::array<std::int64_t, N>> random_coords(const std::array<std::int64_t, N>& shape,
                                                       double p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::array<std::int64_t, N>> c;
  std::array<std::int64_t, N> x{};
  std::int64_t cells = 1;
  for (std::int64_t e : shape) cells *= e;
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    std::int64_t rest = cell;
    for (std::size_t m = N; m-- > 0;) x[m] = rest % shape[m], rest /= shape[m];
    bool hole = false;
    for (std::size_t m = 0; m < std::min<std::size_t>(N, 2); ++m)
      hole = hole || (shape[m] >= 4 && x[m] >= shape[m] / 4 && x[m] < shape[m] / 2);
    if (!hole && u(rng) < p) c.push_back(x);
  }
  return c;
}

template <class Format>
void check_matches_generic(const std::array<std::int64_t, Format::order>& shape, double p,
                           unsigned seed) {
  const auto c = random_coords(shape, p, seed);
  const auto t = loom::from_coo<Format>(shape, c, std::vector<double>(c.size(), 1.0));
  CAPTURE(p);
  CAPTURE(seed);
  CAPTURE(c.size());
  CHECK(loom::gather_statistics(t) == loom::detail::gather_statistics_generic(t));
}

template <class Format> void check_matches_generic_2d() {
  const std::array<std::array<std::int64_t, 2>, 8> shapes{
      {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {7, 13}, {40, 30}, {200, 3}, {3, 200}}};
  for (const auto& shape : shapes)
    for (double p : {0.0, 0.01, 0.1, 0.5, 1.0})
      for (unsigned seed : {1u, 2u, 3u}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        check_matches_generic<Format>(shape, p, seed);
      }
}

template <class Format> void check_matches_generic_3d() {
  const std::array<std::array<std::int64_t, 3>, 6> shapes{
      {{0, 0, 0}, {4, 0, 3}, {1, 1, 1}, {5, 6, 7}, {12, 3, 9}, {2, 20, 15}}};
  for (const auto& shape : shapes)
    for (double p : {0.0, 0.02, 0.2, 0.7, 1.0})
      for (unsigned seed : {1u, 2u, 3u}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        CAPTURE(shape[2]);
        check_matches_generic<Format>(shape, p, seed);
      }
}

using narrow_csr =
    loom::format<loom::dense,
                 loom::compressed_level<loom::uniqueness::unique, std::int32_t, std::uint16_t>>;

}  // namespace

TEST_CASE_TEMPLATE("gather_statistics: array path equals the generic pass (matrices)", Format,
                   loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix,
                   loom::dense_matrix::ordered<1, 0>, narrow_csr) {
  check_matches_generic_2d<Format>();
}

TEST_CASE_TEMPLATE("gather_statistics: array path equals the generic pass (3-tensors)", Format,
                   loom::csf<3>, loom::csf<3>::ordered<2, 0, 1>,
                   loom::format<loom::dense, loom::compressed, loom::compressed>,
                   loom::format<loom::compressed, loom::dense, loom::compressed>::ordered<1, 2, 0>,
                   loom::format<loom::compressed, loom::compressed, loom::dense>, loom::dense_n<3>,
                   loom::coo_n<3>) {
  check_matches_generic_3d<Format>();
}

TEST_CASE_TEMPLATE("gather_statistics: array path equals the generic pass (vectors)", Format,
                   loom::sparse_vector, loom::dense_vector) {
  for (std::int64_t n : {0, 1, 9, 100})
    for (double p : {0.0, 0.1, 0.5, 1.0})
      for (unsigned seed : {1u, 2u}) check_matches_generic<Format>({n}, p, seed);
}

TEST_CASE("gather_statistics: views, and a compressed slice with no entries below it") {
  // csr view of rows {0: 1, 4}, {1: -}, {2: 0}; a dcsr view whose row 2 has an empty segment
  const std::vector<std::int64_t> pos{0, 2, 2, 3};
  const std::vector<std::int32_t> crd{1, 4, 0};
  std::vector<double> val{1, 2, 3};
  const auto a = loom::csr_view<double>(3, 5, pos, crd, val);
  const auto b = loom::csc_view<double>(5, 3, pos, crd, val);
  CHECK(loom::gather_statistics(a) == loom::detail::gather_statistics_generic(a));
  CHECK(loom::gather_statistics(b) == loom::detail::gather_statistics_generic(b));

  const std::vector<std::int64_t> pos0{0, 3};
  const std::vector<std::int32_t> crd0{0, 2, 3};
  const std::vector<std::int64_t> pos1{0, 2, 2, 3};
  const std::vector<std::int32_t> crd1{1, 4, 0};
  loom::view<double, loom::dcsr>::level_storages levels{};
  std::get<0>(levels).pos = pos0;
  std::get<0>(levels).crd = crd0;
  std::get<1>(levels).pos = pos1;
  std::get<1>(levels).crd = crd1;
  const loom::view<double, loom::dcsr> d({4, 5}, levels, std::span<double>(val));
  const loom::statistics s = loom::gather_statistics(d);
  CHECK(s == loom::detail::gather_statistics_generic(d));
  CHECK(s.nonempty_fibers == std::vector<std::int64_t>{2, 3});
  CHECK(s.distinct == std::vector<std::int64_t>{2, 3});
}

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
