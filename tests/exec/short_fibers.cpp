// The short-fiber hint (exec/bind.hpp): which loops the driver scans, what the scan finds, and
// that a nested intersection gives the same result with the hint on (short fibers) and off (a hub
// whose fiber is long enough to gallop).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <set>
#include <type_traits>
#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using csr_t = loom::tensor<double, loom::csr>;
using skip_standard = loom::stream::skip::standard;
using skip_short = loom::stream::skip::standard_short;

// A ring with chords (x ~ x+1, x ~ x+2: four neighbours each), plus `hub` edges from vertex 0 to
// vertices 3, 4, ...: a symmetric pattern with unit values.
csr_t ring(std::int64_t n, std::int64_t hub) {
  std::set<std::array<std::int64_t, 2>> edges;
  auto edge = [&](std::int64_t a, std::int64_t b) {
    edges.insert({a, b});
    edges.insert({b, a});
  };
  for (std::int64_t x = 0; x < n; ++x) {
    edge(x, (x + 1) % n);
    edge(x, (x + 2) % n);
  }
  for (std::int64_t y = 3; y < 3 + hub; ++y) edge(0, y);
  const std::vector<std::array<std::int64_t, 2>> crd(edges.begin(), edges.end());
  return loom::from_coo<loom::csr>({n, n}, crd, std::vector<double>(crd.size(), 1.0));
}

// C(i, j) = number of k adjacent to both i and j, for each edge (i, j), by set intersection.
std::vector<double> common_neighbours(const csr_t& S) {
  const std::int64_t n = S.shape()[0];
  std::vector<std::set<std::int64_t>> adj(static_cast<std::size_t>(n));
  S.for_each_stored([&](const auto& c, double) { adj[c[0]].insert(c[1]); });
  std::vector<double> out;
  S.for_each_stored([&](const auto& c, double) {
    double count = 0;
    for (const std::int64_t x : adj[c[0]]) count += adj[c[1]].count(x) != 0 ? 1.0 : 0.0;
    out.push_back(count);
  });
  return out;
}
}  // namespace

TEST_CASE("short fibers: the loops scanned, and what the scan finds") {
  const csr_t short_rows = ring(500, 0);
  const csr_t with_hub = ring(500, 200);  // vertex 0: 204 neighbours, 51 times the others' 4
  csr_t C({500, 500});
  using Rhs = std::remove_cvref_t<decltype(loom::sum(
      k, short_rows(i, j) * short_rows(j, k) * short_rows(i, k)))>;
  using Plan = loom::plan::order_plan<decltype(C(i, j)), Rhs>;
  // i dense in every operand, j iterated in one, k intersected below it: only k is scanned
  constexpr auto& worth = loom::detail::short_fiber_loops<Plan>;
  static_assert(!worth[0] && !worth[1] && worth[2]);
  static_assert(
      std::is_same_v<loom::detail::hinted_skips<Plan, loom::stream::skip::per_loop<>>,
                     loom::stream::skip::per_loop<skip_standard, skip_standard, skip_short>>);
  // forced policies are kept as given
  using forced = loom::stream::skip::per_loop<loom::stream::skip::merge>;
  static_assert(std::is_same_v<loom::detail::hinted_skips<Plan, forced>, forced>);

  std::array<bool, loom::stream::skip::max_loops> flags{};
  loom::detail::note_short_fibers<Plan>({&short_rows, &short_rows, &short_rows}, flags);
  CHECK(!flags[0]);
  CHECK(!flags[1]);
  CHECK(flags[2]);
  loom::detail::note_short_fibers<Plan>({&with_hub, &with_hub, &with_hub}, flags);
  CHECK(!flags[2]);  // the hub's fiber is longer than skip::gallop_ratio
}

TEST_CASE("short fibers: a coo operand's singleton level is never taken as short") {
  // a singleton below a non-unique level iterates its parent's segment, of any length
  const csr_t S = ring(200, 0);
  const auto T = loom::convert<loom::coo>(S);
  csr_t C({200, 200});
  using Rhs = std::remove_cvref_t<decltype(loom::sum(k, S(i, j) * T(j, k) * S(i, k)))>;
  using Plan = loom::plan::order_plan<decltype(C(i, j)), Rhs>;
  constexpr auto& worth = loom::detail::short_fiber_loops<Plan>;
  static_assert(worth[2]);
  std::array<bool, loom::stream::skip::max_loops> flags{};
  loom::detail::note_short_fibers<Plan>({&S, &T, &S}, flags);
  CHECK(!flags[2]);
  C(i, j) = loom::sum(k, S(i, j) * T(j, k) * S(i, k));
  const csr_t want = [&] {
    csr_t w({200, 200});
    w(i, j) = loom::sum(k, S(i, j) * S(j, k) * S(i, k));
    return w;
  }();
  CHECK(C.nnz() == want.nnz());
  CHECK(C.values().size() == want.values().size());
  bool same = true;
  for (std::size_t e = 0; e < C.values().size(); ++e)
    same = same && C.values()[e] == want.values()[e];
  CHECK(same);
}

TEST_CASE("short fibers: an inner product scans nothing (one pair of fibers per row)") {
  csr_t A = ring(100, 0);
  loom::tensor<double, loom::dense_vector> y({100});
  using Rhs = std::remove_cvref_t<decltype(loom::sum(j, A(i, j) * A(i, j)))>;
  using Plan = loom::plan::order_plan<decltype(y(i)), Rhs>;
  constexpr auto& worth = loom::detail::short_fiber_loops<Plan>;
  static_assert(!worth[0] && !worth[1]);
  static_assert(std::is_same_v<loom::detail::hinted_skips<Plan, loom::stream::skip::per_loop<>>,
                               loom::stream::skip::per_loop<>>);
}

TEST_CASE("short fibers: a nested intersection is the same with the hint on and off") {
  for (const std::int64_t hub : {0, 10, 200}) {  // hint on; on (14 < 24 entries); off
    INFO("hub edges: " << hub);
    const csr_t S = ring(300, hub);
    csr_t C({300, 300});
    C(i, j) = loom::sum(k, S(i, j) * S(j, k) * S(i, k));
    const std::vector<double> want = common_neighbours(S);
    std::vector<double> got(want.size(), 0.0);
    // C holds the edges with a common neighbour; compare on S's pattern
    std::vector<std::array<std::int64_t, 2>> pattern;
    S.for_each_stored([&](const auto& c, double) { pattern.push_back({c[0], c[1]}); });
    C.for_each_stored([&](const auto& c, double v) {
      for (std::size_t e = 0; e < pattern.size(); ++e)
        if (pattern[e][0] == c[0] && pattern[e][1] == c[1]) got[e] = v;
    });
    CHECK(got == want);
    const double triangles = loom::eval(loom::sum(i, j, k, S(i, j) * S(j, k) * S(i, k)));
    double total = 0;
    for (const double w : want) total += w;
    CHECK(triangles == total);
  }
}
