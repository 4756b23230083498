// Cyclic joins as one fused loop nest (a generic, worst-case-optimal join) against brute-force
// counts: the triangle query Σ_{a,b,c} R(a,b)·S(b,c)·T(a,c) on the skewed instance of the notes
// (T9) and on random graphs, the 4-cycle and the 4-clique.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>
#include <loom/relational.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace {
namespace rel = loom::relational;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
constexpr loom::index<"c"> c;
constexpr loom::index<"d"> d;

using edges = std::set<std::pair<std::int64_t, std::int64_t>>;

// The relation as CSV, read back as a set: exercises the whole path from text to tensor.
loom::tensor<std::int64_t, loom::csf<2>> relation(const edges& e, std::int64_t extent) {
  std::ostringstream csv;
  csv << "src,dst\n";
  for (const auto& [x, y] : e) csv << x << "," << y << "\n";
  const rel::table t = rel::read_csv_text(
      csv.str(), "edges.csv", {{"src", rel::column_type::int64}, {"dst", rel::column_type::int64}});
  return rel::key_by<2>(t, {"src", "dst"}, rel::exists(), {extent, extent});
}

std::int64_t triangles(const loom::tensor<std::int64_t, loom::csf<2>>& R,
                       const loom::tensor<std::int64_t, loom::csf<2>>& S,
                       const loom::tensor<std::int64_t, loom::csf<2>>& T) {
  return loom::eval(loom::sum(a, b, c, R(a, b) * S(b, c) * T(a, c)));
}

// Brute force over edge lists: for each (a,b) in R and (b,c) in S, test (a,c) in T.
std::int64_t brute(const edges& r, const edges& s, const edges& t) {
  std::int64_t n = 0;
  for (const auto& [x, y] : r)
    for (auto it = s.lower_bound({y, INT64_MIN}); it != s.end() && it->first == y; ++it)
      n += t.count({x, it->second});
  return n;
}
}  // namespace

TEST_CASE("triangle count on R = S = T = {(1,x),(x,1)}: right answer for several n") {
  for (std::int64_t n : {1, 2, 3, 10, 100, 1000}) {
    edges e;
    for (std::int64_t x = 1; x <= n; ++x) e.insert({1, x}), e.insert({x, 1});
    const auto R = relation(e, n + 1);
    const std::int64_t expected = brute(e, e, e);
    CHECK(expected == 3 * n - 2);  // the closed form of the notes (T9) agrees with brute force
    CHECK(triangles(R, R, R) == expected);
  }
}

TEST_CASE("triangle count on random graphs with distinct R, S, T") {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 5; ++trial) {
    const std::int64_t n = 5 + trial * 7;
    edges r, s, t;
    for (int k = 0; k < 3 * n; ++k) {
      r.insert({gen() % n, gen() % n});
      s.insert({gen() % n, gen() % n});
      t.insert({gen() % n, gen() % n});
    }
    CHECK(triangles(relation(r, n), relation(s, n), relation(t, n)) == brute(r, s, t));
  }
}

TEST_CASE("4-cycles and 4-cliques on random graphs against brute force") {
  std::mt19937 gen(3);
  for (int trial = 0; trial < 3; ++trial) {
    const std::int64_t n = 12 + 6 * trial;
    edges e, up;  // e: directed edges; up: e oriented low -> high, no loops (each clique once)
    for (int k = 0; k < 4 * n; ++k) {
      const std::int64_t x = gen() % n, y = gen() % n;
      e.insert({x, y});
      if (x != y) up.insert({std::min(x, y), std::max(x, y)});
    }
    const auto E = relation(e, n), U = relation(up, n);
    const std::int64_t cycles =
        loom::eval(loom::sum(a, b, c, d, E(a, b) * E(b, c) * E(c, d) * E(a, d)));
    const std::int64_t cliques = loom::eval(
        loom::sum(a, b, c, d, U(a, b) * U(a, c) * U(a, d) * U(b, c) * U(b, d) * U(c, d)));
    std::int64_t cycles_ref = 0, cliques_ref = 0;
    for (std::int64_t w = 0; w < n; ++w)
      for (std::int64_t x = 0; x < n; ++x)
        for (std::int64_t y = 0; y < n; ++y)
          for (std::int64_t z = 0; z < n; ++z) {
            cycles_ref += e.count({w, x}) * e.count({x, y}) * e.count({y, z}) * e.count({w, z});
            cliques_ref += up.count({w, x}) * up.count({w, y}) * up.count({w, z}) *
                           up.count({x, y}) * up.count({x, z}) * up.count({y, z});
          }
    CHECK(cycles == static_cast<std::int64_t>(cycles_ref));
    CHECK(cliques == static_cast<std::int64_t>(cliques_ref));
  }
}
