// Helpers of the complexity guards (tests/work): indices, a random csr with a fixed number of
// entries per row, the work counters of one call, and the rewritten-against-written check.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_WORK_SUPPORT_HPP
#define LOOM_TESTS_WORK_SUPPORT_HPP

#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace loom::test::work {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

// An n x m csr with `per_row` distinct random columns in each row.
inline loom::tensor<double, loom::csr> rows_of(std::int64_t n, std::int64_t m, std::int64_t per_row,
                                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::array<std::int64_t, 2>> crd;
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<std::int64_t> cols;
    while (static_cast<std::int64_t>(cols.size()) < per_row) {
      const auto c = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(m));
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    for (auto c : cols) crd.push_back({r, c});
  }
  return loom::from_coo<loom::csr>({n, m}, crd, std::vector<double>(crd.size(), 1.5));
}

template <class F> loom::work_counts work_of(F&& run) {
  loom::reset_work_counters();
  run();
  return loom::work_counters();
}

// Runs `out = e` as written (no rules, no hoisting) and as the evaluator does, from the same
// starting output, and checks that the evaluator's work is not larger, but for `allowed`: what
// a rule is known to add (a sum of sums run one kernel per term writes a dense output once per
// term; a product distributed over a sum probes its factor once per term at a shared entry).
template <class Out, class Lhs, class E>
void rewritten_not_worse(const char* what, Out& out, Lhs lhs, const E& e,
                         std::uint64_t allowed = 0) {
  const auto written = loom::expr::as_expr(e);
  (void)out;  // lhs names it
  const auto as_written = work_of([&] {
    loom::detail::run_decided(
        loom::detail::decide_fused(lhs, written, std::false_type{}, loom::default_options{}));
  });
  const auto as_run = work_of([&] { lhs = e; });
  INFO(std::string(what) << ": as written " << as_written.total() << ", as run " << as_run.total()
                         << ", allowed " << allowed << " more");
  CHECK(as_run.total() <= as_written.total() + allowed);
}
}  // namespace loom::test::work

#endif  // LOOM_TESTS_WORK_SUPPORT_HPP
