// Tests the sort of the workspaces (stream/workspace.hpp, detail::sort_by_key): the radix sort
// of long rows against std::stable_sort, stability among equal keys, digits every key shares,
// and the comparison sort of short rows and of keys too wide for four passes.
// SPDX-License-Identifier: BSL-1.0
#include <loom/stream/workspace.hpp>

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
    v[q] = {static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(bound)), static_cast<int>(q)};
  return v;
}

void check_sorted_like_stable_sort(std::vector<entry> v, std::int64_t bound) {
  std::vector<entry> want = v;
  std::stable_sort(want.begin(), want.end(), [](const entry& a, const entry& b) { return a.first < b.first; });
  std::vector<entry> scratch;
  loom::stream::detail::sort_by_key(v, scratch, bound, [](const entry& x) { return x.first; });
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
    check_sorted_like_stable_sort(random_entries(5000, 100, seed), 100);               // many repeats, 1 pass
    check_sorted_like_stable_sort(random_entries(5000, 1 << 20, seed), 1 << 20);       // 2 passes
    check_sorted_like_stable_sort(random_entries(3000, 64'000'000, seed), 64'000'000);  // 3 passes
    check_sorted_like_stable_sort(random_entries(600, std::int64_t{1} << 40, seed), std::int64_t{1} << 40);
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
  for (auto& k : keys) k = static_cast<std::int64_t>(g() % 1'000'000);
  std::vector<std::int64_t> want = keys;
  std::sort(want.begin(), want.end());
  loom::stream::detail::sort_by_key(keys, scratch, 1'000'000, [](std::int64_t x) { return x; });
  CHECK(keys == want);
}
