// Tile kernels (tra/kernels.hpp): the strip matmul and the loom-loop kernels against plain loops.
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "support.hpp"

using namespace loom::tra;

namespace {
template <class T> tile<T, 2> filled(std::int64_t m, std::int64_t n, int seed) {
  tile<T, 2> t({m, n});
  for (std::int64_t p = 0; p < t.size(); ++p)
    t.data()[static_cast<std::size_t>(p)] = static_cast<T>((p * 7 + seed) % 11) - static_cast<T>(5);
  return t;
}
template <class T> void check_matmul(std::int64_t m, std::int64_t k, std::int64_t n) {
  const auto a = filled<T>(m, k, 1), b = filled<T>(k, n, 3);
  const auto c = matmul(a, b);
  REQUIRE(c.shape() == shape_t<2>{m, n});
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T s = 0;
      for (std::int64_t p = 0; p < k; ++p) s += a(i, p) * b(p, j);
      wrong += c(i, j) != s;  // small integers: exact in every T
    }
  CHECK(wrong == 0);
  auto acc = c;
  matmul_into(a, b, acc, true);
  CHECK(acc(m - 1, n - 1) == 2 * c(m - 1, n - 1));
}
}  // namespace

TEST_CASE_TEMPLATE("tile matmul equals a triple loop (strip widths, ragged edges)", T, double,
                   float, std::int64_t) {
  check_matmul<T>(1, 1, 1);
  check_matmul<T>(3, 5, 7);
  check_matmul<T>(17, 9, 33);  // not a multiple of the strip width
  check_matmul<T>(64, 64, 64);
  check_matmul<T>(40, 70, 130);
}

TEST_CASE("tile matmul in a non-arithmetic semiring uses loom's scalar loops") {
  using mp = loom::min_plus<double>;
  tile<mp, 2> a({2, 2}, {mp(1), mp(5), mp(2), mp(0)});
  const auto c = matmul(a, a);  // shortest paths of length 2
  CHECK(c(0, 0).value == 2);
  CHECK(c(0, 1).value == 5);
  CHECK(c(1, 0).value == 2);
  CHECK(c(1, 1).value == 0);
}

TEST_CASE("add, transpose, diagonal, shape errors") {
  const auto a = tra_test::t22(1, 2, 3, 4);
  CHECK(add(a, a) == tra_test::t22(2, 4, 6, 8));
  CHECK(transpose(a) == tra_test::t22(1, 3, 2, 4));
  CHECK(diagonal(a) == tra_test::t2(1, 4));
  CHECK(diagonal_matrix(a) == tra_test::t22(1, 0, 0, 4));
  CHECK(add_diagonals(a, a) == tra_test::t2(2, 8));
  auto b = a;
  add_into(b, a);
  CHECK(b == tra_test::t22(2, 4, 6, 8));
  CHECK_THROWS_AS(add(a, tile<double, 2>({2, 3})), loom::shape_error);
  CHECK_THROWS_AS(matmul(a, tile<double, 2>({3, 2})), loom::shape_error);
  auto bad = [] { return tile<double, 2>({2, 2}, std::vector<double>{1, 2, 3}); };
  CHECK_THROWS_AS(bad(), loom::shape_error);
}

TEST_CASE("a tile's loom view shares its buffer") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  tile<double, 2> t({2, 3});
  auto v = t.view();
  v(i, j) = v(i, j) + 1.0;
  CHECK(t(1, 2) == 1.0);
  CHECK(loom::eval(loom::sum(i, j, t.view()(i, j))) == 6.0);
}

template <class A, class B>
concept multipliable = requires(const A& a, const B& b) { matmul(a, b); };

TEST_CASE("static tiles: shapes in the type, loom's static extent checks on their views") {
  static_tile<double, 2, 3> a;
  static_tile<double, 3, 2> b;
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t c = 0; c < 3; ++c) {
      a(r, c) = static_cast<double>(r + c);
      b(c, r) = static_cast<double>(r * c + 1);
    }
  const static_tile<double, 2, 2> c = matmul(a, b);
  CHECK(c.dynamic() == matmul(a.dynamic(), b.dynamic()));
  static_assert(multipliable<static_tile<double, 2, 3>, static_tile<double, 3, 2>>);
  static_assert(!multipliable<static_tile<double, 2, 3>, static_tile<double, 2, 3>>);
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  static_tile<double, 2, 2> d;
  auto D = d.view();
  D(i, j) = loom::sum(k, a.view()(i, k) * b.view()(k, j));  // extents checked statically
  CHECK(d == c);
  auto wrong_shape = [] { return static_tile<double, 2, 2>(tile<double, 2>({2, 3})); };
  CHECK_THROWS_AS(wrong_shape(), loom::shape_error);
  auto wrong_view = [&] { return a.dynamic().static_view<3, 2>(); };
  CHECK_THROWS_AS(wrong_view(), loom::shape_error);
}
