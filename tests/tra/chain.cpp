// The plan search of a chain of distributed matrix products (tra/chain.hpp): its choice against
// a brute-force enumeration of every association order and strategy, the orders a skinny chain
// calls for, and the product in the plan's order against a dense reference.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace loom::tra;

namespace {

// The cheapest cost of [lo, hi) by enumeration (every split, every strategy), as the planner's
// formula: a product costs its strategy's estimate plus the all-gather of its result, and an
// intermediate is read whole (replicated).
double brute(const cost_model& cm, const std::vector<chain_operand>& ops, std::size_t lo,
             std::size_t hi) {
  if (hi - lo == 1) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t mid = lo + 1; mid < hi; ++mid)
    for (const auto st : all_matmul_strategies) {
      matmul_shape sh{ops[lo].rows,
                      ops[mid].rows,
                      ops[hi - 1].cols,
                      ops[lo].tile_rows,
                      ops[mid].tile_rows,
                      ops[hi - 1].tile_cols,
                      mid - lo == 1 ? ops[lo].placed : partitioning::replicated,
                      hi - mid == 1 ? ops[mid].placed : partitioning::replicated};
      const double gather =
          cm.alpha *
          cm.bcast(cm.size(static_cast<double>(sh.I * sh.J), static_cast<double>(sh.m * sh.n))) /
          static_cast<double>(cm.sites);
      best = std::min(best, brute(cm, ops, lo, mid) + brute(cm, ops, mid, hi) +
                                estimate(cm, sh, st).total + gather);
    }
  return best;
}

loom::tensor<double, loom::dense_matrix> random_matrix(std::int64_t m, std::int64_t n,
                                                       std::uint64_t seed) {
  loom::tensor<double, loom::dense_matrix> a({m, n});
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : a.values()) v = u(g);
  return a;
}

}  // namespace

TEST_CASE("chain: the dynamic program finds the enumeration's cheapest plan") {
  std::mt19937_64 g(5);
  std::uniform_int_distribution<std::int64_t> blocks(1, 6);
  for (int trial = 0; trial < 40; ++trial) {
    CAPTURE(trial);
    const std::size_t n = 2 + static_cast<std::size_t>(trial % 4);
    std::vector<std::int64_t> dims(n + 1);
    for (auto& d : dims) d = blocks(g);
    std::vector<chain_operand> ops;
    for (std::size_t k = 0; k < n; ++k)
      ops.push_back(
          {dims[k], dims[k + 1], 64, 64, k == 0 ? partitioning::rows : partitioning::none});
    const cost_model cm{
        .alpha = 1e-9, .beta = 1e-11, .sites = 1 + trial % 4, .policy = cost_policy::corrected};
    const chain_plan p = plan_chain(cm, ops);
    CHECK(p.total == doctest::Approx(brute(cm, ops, 0, n)));
    CHECK(p.steps.size() == n - 1);
    CHECK(p.total <= p.left_to_right * (1 + 1e-12));
  }
}

TEST_CASE("chain: a skinny end is multiplied first; the product matches a dense reference") {
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .sites = 4, .policy = cost_policy::corrected};
  // X0 is one block-row: (X0 X1) X2 keeps every intermediate one block-row
  const std::vector<chain_operand> skinny_left{{1, 8, 32, 32}, {8, 8, 32, 32}, {8, 8, 32, 32}};
  CHECK(plan_chain(cm, skinny_left).order == "((X0 X1) X2)");
  // X2 is one block-column: X0 (X1 X2)
  const std::vector<chain_operand> skinny_right{{8, 8, 32, 32}, {8, 8, 32, 32}, {8, 1, 32, 32}};
  const chain_plan right = plan_chain(cm, skinny_right);
  CHECK(right.order == "(X0 (X1 X2))");
  CHECK(right.total < right.left_to_right);
  const std::string text = right.explain();
  CAPTURE(text);
  CHECK(text.find("matmul chain: (X0 (X1 X2)), estimated cost") != std::string::npos);
  CHECK(text.find("[1,2) x [2,3): ") != std::string::npos);

  // the product, in that order, on ragged tiles
  const std::vector<std::int64_t> d{70, 65, 60, 9};
  std::vector<loom::tensor<double, loom::dense_matrix>> dense;
  std::vector<relation<double, 2, 2>> xs;
  for (std::size_t k = 0; k + 1 < d.size(); ++k) {
    dense.push_back(random_matrix(d[k], d[k + 1], k + 1));
    xs.push_back(to_tiled(dense.back(), {8, 8}).tiles);
  }
  std::vector<chain_operand> ops;
  for (const auto& x : xs) ops.push_back(operand_of(x));
  const chain_plan p = plan_chain(cm, ops);
  CHECK(p.order == "(X0 (X1 X2))");
  const auto product = multiply_chain(xs, p);
  const auto got = from_tiled<loom::dense_matrix>(tiled_tensor<double, 2>{product, {70, 9}});
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  constexpr loom::index<"l"> l;
  loom::tensor<double, loom::dense_matrix> want({70, 9});
  want(i, l) = loom::sum(j, k, dense[0](i, j) * dense[1](j, k) * dense[2](k, l));
  for (std::int64_t r = 0; r < 70; ++r)
    for (std::int64_t c = 0; c < 9; ++c) CHECK(got.at(r, c) == doctest::Approx(want.at(r, c)));
}

TEST_CASE("chain: mismatched operands are named") {
  const cost_model cm{};
  CHECK_THROWS_WITH_AS(plan_chain(cm, {{2, 3, 8, 8}, {4, 2, 8, 8}}),
                       doctest::Contains("operand 0 has 3 tile columns of 8 but operand 1 has 4 "
                                         "tile rows of 8"),
                       loom::shape_error);
  CHECK_THROWS_AS(plan_chain(cm, {}), loom::shape_error);
}
