// Tests the sort of the workspaces (format/assembly/workspace.hpp, detail::sort_by_key and sort_bits):
// the radix sort of long rows against std::stable_sort, stability among equal keys, digits every
// key shares, the comparison sort of short rows and of keys too wide for four passes, and a sort
// of the high bits only, which keeps the order of the low bits (the transpose's rows); the
// merge of a dense row's ascending runs (sort_workspace_cells) against std::sort.
// Also the reuse of the workspace arrays between kernels.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/assembly/workspace.hpp>
#include <loom/stream/run.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {
using entry = std::pair<std::int64_t, int>;  // key, arrival order

std::vector<entry> random_entries(std::size_t n, std::int64_t bound, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<entry> v(n);
  for (std::size_t q = 0; q < n; ++q)
    v[q] = {static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(bound)),
            static_cast<int>(q)};
  return v;
}

void check_sorted_like_stable_sort(std::vector<entry> v, std::int64_t bound) {
  std::vector<entry> want = v;
  std::stable_sort(want.begin(), want.end(),
                   [](const entry& a, const entry& b) { return a.first < b.first; });
  std::vector<entry> scratch;
  std::vector<std::size_t> counts;
  loom::stream::detail::sort_by_key(v, scratch, counts, bound,
                                    [](const entry& x) { return x.first; });
  CHECK(v == want);  // same keys, and equal keys in arrival order
}
}  // namespace

TEST_CASE("workspace sort: radix passes by key width") {
  using loom::stream::detail::radix_passes;
  CHECK(radix_passes(1) == 1);
  CHECK(radix_passes(2048) == 1);
  CHECK(radix_passes(2049) == 2);
  CHECK(radix_passes(std::int64_t{1} << 24) == 3);
  CHECK(radix_passes(std::int64_t{1} << 44) == 4);
  CHECK(radix_passes((std::int64_t{1} << 44) + 1) == 5);
}

TEST_CASE("workspace sort: equals std::stable_sort") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    check_sorted_like_stable_sort(random_entries(5000, 100, seed), 100);  // many repeats, 1 pass
    check_sorted_like_stable_sort(random_entries(5000, 1 << 20, seed), 1 << 20);        // 2 passes
    check_sorted_like_stable_sort(random_entries(3000, 64'000'000, seed), 64'000'000);  // 3 passes
    check_sorted_like_stable_sort(random_entries(600, std::int64_t{1} << 40, seed),
                                  std::int64_t{1} << 40);
    check_sorted_like_stable_sort(random_entries(100, 1000, seed), 1000);  // short: compared
    check_sorted_like_stable_sort(random_entries(4000, std::int64_t{1} << 50, seed),
                                  std::int64_t{1} << 50);  // too wide for four passes: compared
  }
  // every key shares its upper digits: those passes are skipped
  std::vector<entry> v = random_entries(2000, 1000, 9);
  for (auto& [key, order] : v) key += std::int64_t{5} << 30;
  check_sorted_like_stable_sort(v, std::int64_t{1} << 33);
  // one key: the input order is kept
  std::vector<entry> same(1000);
  for (std::size_t q = 0; q < same.size(); ++q) same[q] = {7, static_cast<int>(q)};
  check_sorted_like_stable_sort(same, 8);
}

TEST_CASE("workspace sort: plain keys, as the dense workspace's touched list") {
  std::mt19937_64 g(3);
  std::vector<std::int64_t> keys(4096), scratch;
  std::vector<std::size_t> counts;
  for (auto& k : keys) k = static_cast<std::int64_t>(g() % 1'000'000);
  std::vector<std::int64_t> want = keys;
  std::sort(want.begin(), want.end());
  loom::stream::detail::sort_by_key(keys, scratch, counts, 1'000'000,
                                    [](std::int64_t x) { return x; });
  CHECK(keys == want);
}

TEST_CASE("workspace sort: the high bits only, low bits left in arrival order") {
  // keys (row << 13 | column) arriving column by column: sorting bits 13.. makes them sorted
  for (std::size_t rows : {std::size_t{50}, std::size_t{3000}}) {
    CAPTURE(rows);
    std::mt19937_64 g(rows);
    std::vector<entry> v;
    for (std::int64_t column = 0; column < 6000; ++column)
      if (g() % 3 == 0)
        v.push_back(
            {static_cast<std::int64_t>(g() % rows) << 13 | column, static_cast<int>(v.size())});
    std::vector<entry> want = v, scratch;
    std::sort(want.begin(), want.end(),
              [](const entry& a, const entry& b) { return a.first < b.first; });
    std::vector<std::size_t> counts;
    loom::stream::detail::sort_bits(v, scratch, counts, 13, 13 + 12,
                                    [](const entry& x) { return x.first; });
    CHECK(v == want);
  }
  // the short path compares the high bits only, stably
  std::vector<entry> few{
      {(3 << 4) | 9, 0}, {(1 << 4) | 2, 1}, {(3 << 4) | 1, 2}, {(1 << 4) | 7, 3}};
  std::vector<entry> scratch;
  std::vector<std::size_t> counts;
  loom::stream::detail::sort_bits(few, scratch, counts, 4, 8,
                                  [](const entry& x) { return x.first; });
  CHECK(few == std::vector<entry>{
                   {(1 << 4) | 2, 1}, {(1 << 4) | 7, 3}, {(3 << 4) | 9, 0}, {(3 << 4) | 1, 2}});
}

// A finished workspace leaves its arrays to the next one on the thread; one abandoned half-way
// (an exception in the kernel) must not: its accumulators are dirty.
TEST_CASE("workspace buffers: reused when clean, dropped when a kernel stopped half-way") {
  using list = loom::stream::entry_list<double, 1>;
  using sink_t = loom::stream::workspace_sink<double, 1, list>;
  auto& spare = loom::stream::spare_workspace_buffers<double>();
  for (auto kind :
       {loom::workspace_kind::dense, loom::workspace_kind::hashed, loom::workspace_kind::sorted}) {
    CAPTURE(loom::workspace_kind_name(kind));
    auto configure = [&](sink_t& s) {
      s.depth_of_level[0] = 1;  // y(j) = sum(i, ...) with i outer: j arrives in any order
      s.level_extent[0] = 1000;
      s.kind = kind;
      s.expected_row_entries = 4;
      s.init();
    };
    auto put = [](sink_t& s, std::int64_t at, double v) {
      s.at_depth[1] = at;
      s.push(v);
    };
    {
      list out;
      sink_t s{out};
      configure(s);
      put(s, 3, 1.0);
      s.finish();
      REQUIRE(out.vals.size() == 1);
    }
    CHECK(spare.bytes() > 0);  // left for the next workspace
    {
      list out;
      sink_t s{out};
      configure(s);
      put(s, 5, 2.0);  // abandoned: no finish
      CHECK(spare.bytes() == 0);
    }
    CHECK(spare.bytes() == 0);  // dropped, not reused dirty
    list out;
    {
      sink_t s{out};
      configure(s);
      put(s, 7, 1.0);
      put(s, 5, 1.0);
      put(s, 5, 1.0);
      s.finish();
    }
    REQUIRE(out.vals.size() == 2);
    CHECK(out.crd[0][0] == 5);
    CHECK(out.vals[0] == 2.0);
    CHECK(out.crd[1][0] == 7);
    CHECK(out.vals[1] == 1.0);
  }
  CHECK(spare.bytes() > 0);
  loom::stream::release_workspace_buffers<double>();
  CHECK(spare.bytes() == 0);
}

TEST_CASE("workspace sort: a dense row's cells, merged by runs, equal std::sort") {
  // distinct cells made of `runs` ascending runs of up to `length` (repeats dropped, as the
  // workspace's `seen` does), for each path: few cells, long runs, short runs, the radix bound
  std::mt19937_64 g(11);
  const std::vector<std::pair<int, int>> shapes = {
      {1, 1},   {2, 3},   {1, 40}, {3, 3},  {5, 5},   {25, 1},  {40, 1},  {10, 10},
      {2, 100}, {3, 170}, {64, 7}, {9, 56}, {100, 5}, {2, 400}, {13, 13}, {128, 3}};
  std::vector<std::uint32_t> cells, scratch;
  for (const auto& shape : shapes) {
    const int runs = shape.first, length = shape.second;  // clang 14 captures no bindings
    for (int trial = 0; trial < 20; ++trial) {
      CAPTURE(runs);
      CAPTURE(length);
      CAPTURE(trial);
      std::vector<unsigned char> seen(4096, 0);
      cells.clear();
      for (int r = 0; r < runs; ++r) {
        std::vector<std::uint32_t> run(static_cast<std::size_t>(1 + g() % length));
        for (auto& c : run) c = static_cast<std::uint32_t>(g() % 4096);
        std::sort(run.begin(), run.end());
        for (const std::uint32_t c : run)
          if (!seen[c]) {
            seen[c] = 1;
            cells.push_back(c);
          }
      }
      std::vector<std::uint32_t> want = cells;
      std::sort(want.begin(), want.end());
      loom::stream::detail::sort_workspace_cells(cells, scratch);
      CHECK(cells == want);
    }
  }
}
