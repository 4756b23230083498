// core/clock.hpp and core/algorithms.hpp: the monotonic clock never goes back and agrees with
// itself in nanoseconds and seconds; the sort and append wrappers do what std::sort,
// std::stable_sort and a range insert do.
// SPDX-License-Identifier: BSL-1.0
#include <loom/core/algorithms.hpp>
#include <loom/core/clock.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

TEST_CASE("the monotonic clock never goes back") {
  std::int64_t last = loom::detail::monotonic_ns();
  for (int k = 0; k < 10000; ++k) {
    const std::int64_t now = loom::detail::monotonic_ns();
    CHECK(now >= last);
    last = now;
  }
  const std::int64_t start = loom::detail::monotonic_ns();
  volatile double sink = 0;
  for (int k = 0; k < 100000; ++k) sink = sink + k;
  const double elapsed = loom::detail::seconds_since(start);
  CHECK(elapsed >= 0);
  CHECK(elapsed < 60);  // the same clock, in seconds: not some other epoch
  const double a = loom::detail::monotonic_seconds();
  const double b = 1e-9 * static_cast<double>(loom::detail::monotonic_ns());
  CHECK(b >= a);
  CHECK(b - a < 60);
}

TEST_CASE("sort_range, stable_sort_range and append_range") {
  std::vector<std::string> names{"k", "i", "l", "j"};
  loom::detail::sort_range(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"i", "j", "k", "l"});
  loom::detail::sort_range(names.begin(), names.end(),
                           [](const auto& x, const auto& y) { return x > y; });
  CHECK(names == std::vector<std::string>{"l", "k", "j", "i"});

  // equal keys keep their order
  std::vector<std::pair<int, int>> keyed{{2, 0}, {1, 1}, {2, 2}, {1, 3}, {0, 4}};
  loom::detail::stable_sort_range(keyed.begin(), keyed.end(),
                                  [](const auto& x, const auto& y) { return x.first < y.first; });
  CHECK(keyed == std::vector<std::pair<int, int>>{{0, 4}, {1, 1}, {1, 3}, {2, 0}, {2, 2}});

  std::vector<int> to{1, 2};
  loom::detail::append_range(to, std::vector<int>{3, 4});
  loom::detail::append_range(to, std::vector<int>{});
  CHECK(to == std::vector<int>{1, 2, 3, 4});
}
