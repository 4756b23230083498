// Tests the workspace choice of sparse outputs written out of order (optimize/
// workspace_choice.hpp): worked costs of the three kinds, the estimate read from statistics,
// the override, and what explain prints. The kernels' results under every kind are in
// tests/differential/workspaces.cpp.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {
// index names of their own: the plan caches are per kernel type, shared by the folder's files
constexpr loom::index<"wi"> wi;
constexpr loom::index<"wj"> wj;
constexpr loom::index<"wk"> wk;
using coords2 = std::vector<std::array<std::int64_t, 2>>;
using loom::optimize::choose_workspace;
using loom::optimize::workspace_estimate;

loom::tensor<double, loom::csr> matrix(std::int64_t m, std::int64_t n, const coords2& c) {
  return loom::from_coo<loom::csr>({m, n}, c, std::vector<double>(c.size(), 1.0));
}
}  // namespace

TEST_CASE("workspace choice: worked costs") {
  // A group-by: a million writes into 100 keys of 2^24 (one row). Hashed: 10^6 (hash 5 + write
  // 1, a table of 3.2 KB that stays in cache) + 100 appends 1.5 + 100 log2(100) pair compares 3
  // + 100 emits 3 = 6 002 443.16. Dense zeroes 151 MB of fresh pages at 0.4 ns a byte; sorted
  // radix-sorts 10^6 pairs (24-bit keys: 3 passes of 8 per pair).
  const auto g = choose_workspace(workspace_estimate{
      .rows = 1, .writes = 1e6, .entries = 100, .cells = 16777216, .value_bytes = 8});
  CHECK(g.kind == loom::workspace_kind::hashed);
  CHECK(g.cost[1] == doctest::Approx(6002443.16));
  CHECK(g.cost[0] == doctest::Approx(61410232.5));
  CHECK(g.cost[2] == doctest::Approx(1e6 * 1.5 + 1e6 * 3 * 8 + 300));  // 3 radix passes of 11 bits
  CHECK(g.row_entries() == 100);

  // The same writes into 100 of 16 384 keys: a 144 KB dense row, zeroed at 0.1 ns a byte
  // (14 745.6) + 10^6 writes + 100 log2(100) key compares 1.5 + 100 emits = 1 015 742.
  const auto small = choose_workspace(workspace_estimate{
      .rows = 1, .writes = 1e6, .entries = 100, .cells = 16384, .value_bytes = 8});
  CHECK(small.kind == loom::workspace_kind::dense);
  CHECK(small.cost[0] ==
        doctest::Approx(16384 * 9 * 0.1 + 1e6 + 100 * std::log2(100.0) * 1.5 + 300));

  // A transpose: every write is a distinct entry, in one row of 6.4e7 cells: sorting the
  // writes beats zeroing the row and hashing each of them.
  const auto t = choose_workspace(workspace_estimate{
      .rows = 1, .writes = 1e5, .entries = 1e5, .cells = 6.4e7, .value_bytes = 8});
  CHECK(t.kind == loom::workspace_kind::sorted);
  CHECK(t.cost[2] == doctest::Approx(1e5 * 1.5 + 1e5 * 3 * 8 + 1e5 * 3));
  // A row of 100 writes is sorted by comparisons: 1.5 + log2(100) * 3 + 3 per write.
  const auto rows = choose_workspace(workspace_estimate{
      .rows = 1000, .writes = 1e5, .entries = 1e5, .cells = 1e6, .value_bytes = 8});
  CHECK(rows.cost[2] == doctest::Approx(1e5 * (1.5 + std::log2(100.0) * 3 + 3)));

  // Past 2^26 cells a dense row is never allocated.
  const auto huge = choose_workspace(
      workspace_estimate{.rows = 10, .writes = 10, .entries = 10, .cells = 1e9, .value_bytes = 8});
  CHECK(std::isinf(huge.cost[0]));
  CHECK(huge.kind != loom::workspace_kind::dense);
}

TEST_CASE("workspace choice: the estimate of a plan") {
  // A: 4 x 6, rows 0, 1 and 3 hold entries; B = its transpose (6 x 4).
  auto A = matrix(4, 6, {{0, 1}, {0, 5}, {1, 3}, {3, 0}, {3, 5}});
  auto B = matrix(6, 4, {{1, 0}, {5, 0}, {3, 1}, {0, 3}, {5, 3}});
  loom::statistics_cache stats;

  SUBCASE("a transpose: one workspace over the whole output") {
    loom::tensor<double, loom::csr> T({6, 4});
    using P = loom::plan::order_plan<decltype(T(wj, wi)), decltype(A(wi, wj))>;
    static_assert(!P::output_in_order && P::output_prefix == 0);
    const workspace_estimate e = loom::optimize::estimate_workspace<P>(T(wj, wi), A(wi, wj), stats);
    CHECK(e.rows == 1);
    CHECK(e.cells == 24);
    CHECK(e.writes == doctest::Approx(5));
    CHECK(e.entries == doctest::Approx(5));
    CHECK(e.value_bytes == 8);
  }
  SUBCASE("SpGEMM: a row per i") {
    loom::tensor<double, loom::csr> C({4, 4});
    const auto rhs = loom::sum(wj, A(wi, wj) * B(wj, wk));
    using P = loom::plan::order_plan<decltype(C(wi, wk)), std::remove_cvref_t<decltype(rhs)>>;
    static_assert(!P::output_in_order && P::output_prefix == 1);
    const workspace_estimate e = loom::optimize::estimate_workspace<P>(C(wi, wk), rhs, stats);
    CHECK(e.rows == doctest::Approx(3));  // the rows of A that hold entries
    CHECK(e.cells == 4);                  // one row of C
    CHECK(e.writes >= 7);                 // 7 products: a bound, not below
    CHECK(e.entries >= 6);                // C has 6 entries
    CHECK(e.entries <= 12);               // at most every cell of the 3 rows
  }
}

TEST_CASE("workspace choice: scoped_workspace forces a kind, nests and restores") {
  auto A = matrix(4, 6, {{0, 1}, {0, 5}, {1, 3}, {3, 0}, {3, 5}});
  A.set_name("A");
  loom::tensor<double, loom::csr> T({6, 4});
  T.set_name("T");
  using P = loom::plan::order_plan<decltype(T(wj, wi)), decltype(A(wi, wj))>;
  const auto chosen = loom::optimize::cached_workspace_choice<P>(T(wj, wi), A(wi, wj));
  CHECK(chosen.estimate.cells == 24);  // costed, not forced
  {
    loom::scoped_workspace outer(loom::workspace_kind::hashed);
    CHECK(loom::optimize::cached_workspace_choice<P>(T(wj, wi), A(wi, wj)).kind ==
          loom::workspace_kind::hashed);
    CHECK(loom::explain(T(wj, wi), A(wi, wj))
              .find("hashed workspace, forced by loom::scoped_workspace") != std::string::npos);
    {
      loom::scoped_workspace inner(loom::workspace_kind::dense);
      CHECK(loom::optimize::cached_workspace_choice<P>(T(wj, wi), A(wi, wj)).kind ==
            loom::workspace_kind::dense);
      T(wj, wi) = A(wi, wj);
      CHECK(T.nnz() == 5);
      CHECK(T.at(5, 3) == 1.0);
    }
    CHECK(loom::optimize::cached_workspace_choice<P>(T(wj, wi), A(wi, wj)).kind ==
          loom::workspace_kind::hashed);
  }
  CHECK(loom::optimize::cached_workspace_choice<P>(T(wj, wi), A(wi, wj)).kind == chosen.kind);
  const std::string text = loom::explain(T(wj, wi), A(wi, wj));
  CHECK(text.find("assembled through a workspace, one for the whole output, placed by row when it "
                  "ends (a counting sort, unless dense)") != std::string::npos);
  // a dcsr output is not filled by rows: its rows are compressed too
  loom::tensor<double, loom::dcsr> D({6, 4});
  CHECK(loom::explain(D(wj, wi), A(wi, wj))
            .find("one for the whole output, appended in order when it ends") != std::string::npos);
  CHECK(text.find(std::string(loom::workspace_kind_name(chosen.kind)) +
                  " workspace (estimated 5 writes, 5 entries in 1 rows of 24 cells; cost dense") !=
        std::string::npos);
}
