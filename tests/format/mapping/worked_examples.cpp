// STOREL's worked examples (STOREL) on storage mappings, part 1: CSR, DCSR and
// dense row-major mappings of the matrix C give the same tensor (test 2); triangular,
// tridiagonal, band and Z-order layouts (test 20); Ax, BATAx (test 16) and ΣMMM (test 17).
// Part 2: fusion_and_errors.cpp.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace {

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using entries2 = std::map<std::array<std::int64_t, 2>, double>;

template <class Tensor> auto stored(const Tensor& t) {
  std::map<std::array<std::int64_t, Tensor::order>, double> out;
  t.for_each_stored([&](const auto& c, double v) {
    if (v != 0) out[c] = v;  // compared modulo zeros (notes §2.8.1)
  });
  return out;
}

// C of Fig. 1(b): rows {0: 0->6, 2->9, 3->8}, {}, {0->5, 3->7}
const entries2 expected_c{{{0, 0}, 6}, {{0, 2}, 9}, {{0, 3}, 8}, {{2, 0}, 5}, {{2, 3}, 7}};

auto c_as_csr() {
  return lm::make_tensor<lm::csr>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                  lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 3, 5}),
                                  lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
}
auto c_as_dcsr() {
  return lm::make_tensor<lm::dcsr>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                   lm::bind(nm::pos1, std::vector<std::int64_t>{0, 2}),
                                   lm::bind(nm::idx1, std::vector<std::int32_t>{0, 2}),
                                   lm::bind(nm::pos2, std::vector<std::int64_t>{0, 3, 5}),
                                   lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
}
auto c_as_dense() {
  return lm::make_tensor<lm::dense_rowmajor>(
      {3, 4}, std::vector<double>{6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7});
}

}  // namespace

TEST_CASE("mapping test 2: C as CSR, DCSR and dense row-major mappings is one tensor") {
  CHECK(stored(c_as_csr()) == expected_c);
  CHECK(stored(c_as_dcsr()) == expected_c);
  CHECK(stored(c_as_dense()) == expected_c);
  // and equals the built-in formats, both ways
  loom::tensor<double, loom::csr> builtin(c_as_dcsr());
  CHECK(stored(builtin) == expected_c);
  loom::tensor<double, lm::csr> back(builtin);
  CHECK(stored(back) == expected_c);
  CHECK(c_as_csr().at(2, 3) == 7);
  CHECK(c_as_dcsr().at(1, 1) == 0);
}

TEST_CASE("mapping test 20: lower-triangular, tridiagonal and Z-order layouts") {
  auto L = lm::make_tensor<lm::lower_packed>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(stored(L) ==
        entries2{{{0, 0}, 1}, {{1, 0}, 2}, {{1, 1}, 3}, {{2, 0}, 4}, {{2, 1}, 5}, {{2, 2}, 6}});
  auto B = lm::make_tensor<lm::tridiagonal>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6, 7});
  CHECK(stored(B) == entries2{{{0, 0}, 1},
                              {{0, 1}, 2},
                              {{1, 0}, 3},
                              {{1, 1}, 4},
                              {{1, 2}, 5},
                              {{2, 1}, 6},
                              {{2, 2}, 7}});
  auto Z = lm::make_tensor<lm::zorder>({2, 2}, std::vector<double>{1, 2, 3, 4});  // a b c d
  CHECK(stored(Z) == entries2{{{0, 0}, 1}, {{1, 0}, 2}, {{0, 1}, 3}, {{1, 1}, 4}});
  auto Z4 = lm::make_tensor<lm::zorder>({4, 4}, [] {
    std::vector<double> v(16);
    for (int d = 0; d < 16; ++d) v[d] = d + 1;
    return v;
  }());
  // d = 4 holds (2, 0), d = 9 holds (1, 2) (notes §3.3 (10))
  CHECK(Z4.at(2, 0) == 5);
  CHECK(Z4.at(1, 2) == 10);
  auto U = lm::make_tensor<lm::upper_packed>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(stored(U) ==
        entries2{{{0, 0}, 1}, {{0, 1}, 2}, {{0, 2}, 3}, {{1, 1}, 4}, {{1, 2}, 5}, {{2, 2}, 6}});
  auto S = lm::make_tensor<lm::symmetric_packed>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(S.at(0, 2) == 4);
  CHECK(S.at(2, 0) == 4);
  CHECK(S.at(1, 2) == 5);
  CHECK(stored(S).size() == 9);
  auto W = lm::make_tensor<lm::band<1>>({3, 3}, std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(stored(W) == entries2{{{0, 0}, 1},
                              {{0, 1}, 2},
                              {{1, 0}, 3},
                              {{1, 1}, 4},
                              {{1, 2}, 5},
                              {{2, 1}, 6},
                              {{2, 2}, 7}});
}

TEST_CASE("mapping tests 2 and 16: Ax and BATAx over the CSR and DCSR mappings") {
  loom::tensor<double, loom::dense_vector> x({4}), ax({3}), q({4});
  for (int p = 0; p < 4; ++p) x.at(p) = p + 1;
  auto check = [&](const auto& A) {
    ax(i) = loom::sum(j, A(i, j) * x(j));
    CHECK(ax.at(0) == 65);
    CHECK(ax.at(1) == 0);
    CHECK(ax.at(2) == 33);
    q(j) = loom::sum(i, loom::sum(k, 2.0 * A(i, j) * A(i, k) * x(k)));
    CHECK(q.at(0) == 1110);
    CHECK(q.at(1) == 0);
    CHECK(q.at(2) == 1170);
    CHECK(q.at(3) == 1502);
  };
  check(c_as_csr());
  check(c_as_dcsr());
  check(c_as_dense());
}

TEST_CASE("mapping test 17: sum-MMM with A = C as a CSC mapping and B = C^T as a CSR mapping") {
  using csc = lm::csr::ordered<1, 0>;
  auto A = lm::make_tensor<csc>({3, 4}, std::vector<double>{6, 5, 9, 8, 7},
                                lm::bind(nm::pos2, std::vector<std::int64_t>{0, 2, 2, 3, 5}),
                                lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 0, 0, 2}));
  auto B = lm::make_tensor<lm::csr>({4, 3}, std::vector<double>{6, 5, 9, 8, 7},
                                    lm::bind(nm::pos2, std::vector<std::int64_t>{0, 2, 2, 3, 5}),
                                    lm::bind(nm::idx2, std::vector<std::int32_t>{0, 2, 0, 0, 2}));
  CHECK(stored(A) == expected_c);
  const double naive = loom::eval(loom::sum(i, loom::sum(j, loom::sum(k, A(i, k) * B(k, j)))));
  CHECK(naive == 427);
  loom::tensor<double, loom::dense_vector> colsum({4}), rowsum({4});
  colsum(k) = loom::sum(i, A(i, k));
  rowsum(k) = loom::sum(j, B(k, j));
  CHECK(colsum.at(0) == 11);
  CHECK(colsum.at(3) == 15);
  CHECK(loom::eval(loom::sum(k, colsum(k) * rowsum(k))) == 427);
}
