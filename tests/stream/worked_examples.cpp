// The worked examples of the indexed-streams paper (T2–T12) through the public API.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <map>

namespace {
using namespace loom;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
constexpr loom::index<"c"> c;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

template <class T = double, class Format = sparse_vector>
tensor<T, Format> vec(std::int64_t n, std::map<std::int64_t, double> entries) {
  std::vector<std::array<std::int64_t, 1>> cs;
  std::vector<T> vs;
  for (auto [k, v] : entries) {
    cs.push_back({k});
    vs.push_back(static_cast<T>(v));
  }
  return from_coo<Format>({n}, cs, vs);
}

template <class T = double, class Format = dcsr>
tensor<T, Format> mat(std::int64_t m, std::int64_t n,
                      std::map<std::pair<std::int64_t, std::int64_t>, double> entries) {
  std::vector<std::array<std::int64_t, 2>> cs;
  std::vector<T> vs;
  for (auto [k, v] : entries) {
    cs.push_back({k.first, k.second});
    vs.push_back(static_cast<T>(v));
  }
  return from_coo<Format>({m, n}, cs, vs);
}

template <class Tensor> std::map<std::vector<std::int64_t>, double> entries(const Tensor& t) {
  std::map<std::vector<std::int64_t>, double> out;
  t.for_each_stored([&](const auto& co, const auto& v) {
    if constexpr (requires { v.value; })
      out[{co.begin(), co.end()}] = static_cast<double>(v.value);
    else
      out[{co.begin(), co.end()}] = static_cast<double>(v);
  });
  return out;
}
}  // namespace

TEST_CASE("T2: fused three-way product and its dot product") {
  auto x = vec(10, {{0, 1}, {2, 2}, {5, 3}, {7, 4}});
  auto y = vec(10, {{2, 10}, {3, 20}, {5, 30}, {7, 40}, {9, 50}});
  auto z = vec(10, {{1, 5}, {2, 6}, {7, 7}});
  tensor<double, sparse_vector> out({10});
  out(i) = x(i) * y(i) * z(i);
  CHECK(entries(out) == std::map<std::vector<std::int64_t>, double>{{{2}, 120}, {{7}, 1120}});
  CHECK(loom::eval(loom::sum(i, x(i) * y(i) * z(i))) == 1240);
}

TEST_CASE("T3: union trace") {
  auto x = vec(10, {{1, 1}, {4, 2}, {6, 3}});
  auto y = vec(10, {{2, 10}, {4, 20}, {7, 30}});
  tensor<double, sparse_vector> out({10});
  out(i) = x(i) + y(i);
  CHECK(entries(out) == std::map<std::vector<std::int64_t>, double>{
                            {{1}, 1}, {{2}, 10}, {{4}, 22}, {{6}, 3}, {{7}, 30}});
}

TEST_CASE("T4: the union compares (index, ready) lexicographically") {
  auto x = vec(10, {{5, 2}});
  auto y = vec(10, {{3, 10}, {5, 3}});
  auto z = vec(10, {{5, 7}});
  tensor<double, sparse_vector> out({10});
  out(i) = x(i) * y(i) + z(i);
  CHECK(entries(out) == std::map<std::vector<std::int64_t>, double>{{{5}, 13}});  // not {5: 7}
}

TEST_CASE("T5: a product of two sums over the same index is materialised, not zipped") {
  auto u = vec(2, {{0, 1}, {1, 2}});
  auto v = vec(2, {{0, 3}, {1, 4}});
  CHECK(loom::eval(loom::sum(i, u(i)) * loom::sum(i, v(i))) == 21);  // naive zip gives 11
  CHECK(loom::eval(loom::sum(i, u(i)) + loom::sum(i, v(i))) == 10);
  CHECK(loom::eval(loom::sum(i, u(i)) * loom::sum(j, v(j))) == 21);
}

TEST_CASE("T6, T8: nested evaluation and SpMV with an absent row") {
  auto A = mat(3, 3, {{{0, 0}, 1}, {{0, 2}, 2}, {{2, 1}, 3}, {{2, 2}, 4}});
  auto v = vec<double, dense_vector>(3, {{0, 10}, {1, 20}, {2, 30}});
  tensor<double, sparse_vector> y({3});
  y(i) = loom::sum(j, A(i, j) * v(j));
  CHECK(entries(y) == std::map<std::vector<std::int64_t>, double>{{{0}, 70}, {{2}, 180}});
}

TEST_CASE("T7: matrix multiply as sum over b of x(a,b) y(b,c)") {
  auto X = mat(2, 3, {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}});
  auto Y = mat(3, 2, {{{0, 1}, 4}, {{1, 0}, 5}, {{1, 1}, 6}, {{2, 1}, 7}});
  tensor<double, dcsr> Z({2, 2});
  Z(a, c) = loom::sum(b, X(a, b) * Y(b, c));
  CHECK(entries(Z) ==
        std::map<std::vector<std::int64_t>, double>{{{0, 1}, 18}, {{1, 0}, 15}, {{1, 1}, 18}});
}

TEST_CASE("T9: triangle query R = S = T = {0}x[n] u [n]x{0} gives 3n - 2") {
  for (std::int64_t n : {10, 100, 1000}) {
    std::map<std::pair<std::int64_t, std::int64_t>, double> e;
    for (std::int64_t k = 0; k < n; ++k) {
      e[{0, k}] = 1;
      e[{k, 0}] = 1;
    }
    auto R = mat(n, n, e);
    auto T = mat(n, n, e);  // T(c, a) is read transposed: T is symmetric, so store T(a, c)
    CHECK(loom::eval(loom::sum(a, b, c, R(a, b) * R(b, c) * T(a, c))) == 3 * n - 2);
  }
}

TEST_CASE("T10: a join, a projection by sum and a selection") {
  auto R = mat(3, 4, {{{1, 2}, 1}, {{1, 3}, 1}, {{2, 3}, 1}});
  auto S = mat(4, 7, {{{2, 5}, 1}, {{3, 5}, 1}, {{3, 6}, 1}});
  tensor<double, dcsr> P({3, 7});
  P(a, c) = loom::sum(b, R(a, b) * S(b, c));
  CHECK(entries(P) == std::map<std::vector<std::int64_t>, double>{
                          {{1, 5}, 2}, {{1, 6}, 1}, {{2, 5}, 1}, {{2, 6}, 1}});
  auto select = vec(7, {{5, 1}});
  P(a, c) = loom::sum(b, R(a, b) * S(b, c)) * select(c);
  CHECK(entries(P) == std::map<std::vector<std::int64_t>, double>{{{1, 5}, 2}, {{2, 5}, 1}});
}

TEST_CASE("T11: the (min, +) semiring: two hops") {
  using mp = min_plus<double>;
  auto W = mat<mp>(3, 3, {{{0, 1}, 1}, {{1, 2}, 2}, {{0, 2}, 5}, {{2, 0}, 1}});
  tensor<mp, dcsr> H({3, 3});
  H(a, c) = loom::sum(b, W(a, b) * W(b, c));
  CHECK(entries(H) == std::map<std::vector<std::int64_t>, double>{
                          {{0, 0}, 6}, {{0, 2}, 3}, {{1, 0}, 3}, {{2, 1}, 2}, {{2, 2}, 6}});
}

TEST_CASE("T12: filtered SpMV never enters a filtered-out row") {
  auto A = mat<double, csr>(3, 3, {{{0, 0}, 1}, {{0, 1}, 2}, {{1, 1}, 3}, {{2, 0}, 4}});
  auto v = vec<double, dense_vector>(3, {{0, 0.5}, {1, 2}, {2, 3}});
  CHECK(loom::eval(loom::sum(i, j, loom::where(v(i) > 1.0, v(i)) * A(i, j))) == 18);
}
