// Shared data of the tra tests: the paper's R_A and R_B (the TRA paper) and a dense reference.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_TRA_SUPPORT_HPP
#define LOOM_TESTS_TRA_SUPPORT_HPP

#include <loom/tra.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace tra_test {
using loom::tra::relation;
using loom::tra::tile;

inline tile<double, 2> t22(double a, double b, double c, double d) {
  return tile<double, 2>({2, 2}, {a, b, c, d});
}
inline tile<double, 1> t2(double a, double b) { return tile<double, 1>({2}, {a, b}); }

/// A = [[1,2,5,6],[3,4,7,8],[9,10,13,14],[11,12,15,16]] in 2x2 tiles.
inline relation<double, 2, 2> r_a() {
  relation<double, 2, 2> r({2, 2}, {2, 2});
  r.insert({0, 0}, t22(1, 2, 3, 4));
  r.insert({0, 1}, t22(5, 6, 7, 8));
  r.insert({1, 0}, t22(9, 10, 11, 12));
  r.insert({1, 1}, t22(13, 14, 15, 16));
  return r;
}

/// A relation of 2x2 tiles holding a row-major n x n matrix `m`.
inline relation<double, 2, 2> tiles_of(const std::vector<double>& m, std::int64_t n) {
  relation<double, 2, 2> r({n / 2, n / 2}, {2, 2});
  for (std::int64_t bi = 0; bi < n / 2; ++bi)
    for (std::int64_t bj = 0; bj < n / 2; ++bj) {
      tile<double, 2> t({2, 2});
      for (std::int64_t x = 0; x < 2; ++x)
        for (std::int64_t y = 0; y < 2; ++y)
          t(x, y) = m[static_cast<std::size_t>((bi * 2 + x) * n + bj * 2 + y)];
      r.insert({bi, bj}, std::move(t));
    }
  return r;
}

/// Plain triple loop: C = A B, row-major.
inline std::vector<double> dense_matmul(const std::vector<double>& a, const std::vector<double>& b,
                                        std::int64_t m, std::int64_t k, std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p)
        s += a[static_cast<std::size_t>(i * k + p)] * b[static_cast<std::size_t>(p * n + j)];
      c[static_cast<std::size_t>(i * n + j)] = s;
    }
  return c;
}

/// Every cell of a sparse relation's tiles equals the same cell of the dense relation `d`'s (a
/// key absent on one side holds only zeros on the other); the bounds agree.
template <class SparseRel, std::size_t K>
void check_same_tiles(const SparseRel& s, const relation<double, K, 2>& d) {
  REQUIRE(s.bounds() == d.bounds());
  for (const auto& [key, t] : d) {
    const auto* st = s.find(key);
    for (std::int64_t r = 0; r < t.shape()[0]; ++r)
      for (std::int64_t c = 0; c < t.shape()[1]; ++c)
        CHECK((st ? st->at(r, c) : 0.0) == doctest::Approx(t(r, c)));
  }
  for (const auto& [key, t] : s)
    if (!d.find(key)) CHECK(t.nnz() == 0);
}

}  // namespace tra_test

#endif  // LOOM_TESTS_TRA_SUPPORT_HPP
