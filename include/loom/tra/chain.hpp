// Defines the plan search for a chain of distributed matrix products X1 X2 ... Xn over tensor
// relations: every association order (the join-aggregate is associative) times every strategy of
// each product (broadcast either side, shuffle both, replicate: the R2 alternatives), costed by
// the paper's model and searched by dynamic programming; for sparse relations the sizes come
// from nnz statistics (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_CHAIN_HPP
#define LOOM_TRA_CHAIN_HPP

#include <loom/core/error.hpp>
#include <loom/tra/cost.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/operators.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/sparse_operators.hpp>
#include <loom/tra/sparse_tiles.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace loom::tra {

/// One operand of a chain: its tile grid (rows x cols of tiles), its tiles' shape, and how it
/// is placed over the sites.
struct chain_operand {
  std::int64_t rows = 1, cols = 1;            // tile keys
  std::int64_t tile_rows = 1, tile_cols = 1;  // elements per tile
  partitioning placed = partitioning::none;
};

/// The operand shape of a relation of matrix tiles.
template <class T>
chain_operand operand_of(const relation<T, 2, 2>& r, partitioning placed = partitioning::none) {
  return {r.bounds()[0], r.bounds()[1], r.tile_shape()[0], r.tile_shape()[1], placed};
}

/// One product of a chain plan: operands [lo, mid) times [mid, hi), by `cost.strategy`.
struct chain_step {
  std::size_t lo = 0, mid = 0, hi = 0;
  strategy_cost cost;
  double gather = 0;  // α × the bytes of the product's all-gather (the next product reads it whole)
};

/// A chain's plan: the products in the order they run (each operand's products first), the
/// total estimated cost, and the same for the left-to-right order with each product's best
/// strategy (what a plan without the search runs).
struct chain_plan {
  std::vector<chain_step> steps;
  double total = 0;
  double left_to_right = 0;
  std::string order;  // "((X0 X1) X2)"

  /// The order, each product's strategy and cost, and the left-to-right plan's cost.
  std::string explain() const {
    auto fmt = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g", v);
      return std::string(buf);
    };
    std::string s = "matmul chain: " + order + ", estimated cost " + fmt(total) +
                    " (left to right: " + fmt(left_to_right) + ")\n";
    for (const auto& st : steps)
      s += "  [" + std::to_string(st.lo) + "," + std::to_string(st.mid) + ") x [" +
           std::to_string(st.mid) + "," + std::to_string(st.hi) +
           "): " + std::string(name(st.cost.strategy)) + ", Cn " + fmt(st.cost.cn) + ", Cc " +
           fmt(st.cost.cc) + ", gather " + fmt(st.gather) + ", cost " +
           fmt(st.cost.total + st.gather) + "\n";
    return s;
  }
};

namespace detail {
inline void check_chain(const std::vector<chain_operand>& ops) {
  if (ops.empty()) throw shape_error("loom::tra::plan_chain: the chain has no operand");
  for (std::size_t k = 1; k < ops.size(); ++k)
    if (ops[k - 1].cols != ops[k].rows || ops[k - 1].tile_cols != ops[k].tile_rows)
      throw shape_error("loom::tra::plan_chain: operand " + std::to_string(k - 1) + " has " +
                        std::to_string(ops[k - 1].cols) + " tile columns of " +
                        std::to_string(ops[k - 1].tile_cols) + " but operand " + std::to_string(k) +
                        " has " + std::to_string(ops[k].rows) + " tile rows of " +
                        std::to_string(ops[k].tile_rows));
}
}  // namespace detail

namespace detail {
// The dynamic programme over the intervals of an n-operand chain: step_cost(lo, mid, hi, st)
// gives the chain_step of [lo, mid) x [mid, hi) by strategy st; the cheapest plan and the cost
// of the left-to-right order with each product's cheapest strategy.
template <class StepCost> chain_plan search_chain(std::size_t n, StepCost&& step_cost) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  // best[lo][hi]: the cheapest cost of [lo, hi); split[lo][hi]: its last product
  std::vector<std::vector<double>> best(n + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<chain_step>> split(n + 1, std::vector<chain_step>(n + 1));
  for (std::size_t k = 0; k < n; ++k) best[k][k + 1] = 0;
  for (std::size_t len = 2; len <= n; ++len)
    for (std::size_t lo = 0; lo + len <= n; ++lo) {
      const std::size_t hi = lo + len;
      for (std::size_t mid = lo + 1; mid < hi; ++mid)
        for (const matmul_strategy st : all_matmul_strategies) {
          const chain_step s = step_cost(lo, mid, hi, st);
          const double c = best[lo][mid] + best[mid][hi] + s.cost.total + s.gather;
          if (c < best[lo][hi]) {
            best[lo][hi] = c;
            split[lo][hi] = s;
          }
        }
    }
  chain_plan plan;
  plan.total = best[0][n];
  // the steps in a runnable order (children first), and the parenthesised order
  auto walk = [&](auto&& self, std::size_t lo, std::size_t hi) -> std::string {
    if (hi - lo == 1) return "X" + std::to_string(lo);
    const chain_step& s = split[lo][hi];
    std::string l = self(self, lo, s.mid), r = self(self, s.mid, hi);
    plan.steps.push_back(s);
    return "(" + l + " " + r + ")";
  };
  plan.order = walk(walk, 0, n);
  // left to right, each product by its cheapest strategy
  for (std::size_t hi = 2; hi <= n; ++hi) {
    double cheapest = inf;
    for (const matmul_strategy st : all_matmul_strategies) {
      const chain_step s = step_cost(0, hi - 1, hi, st);
      cheapest = std::min(cheapest, s.cost.total + s.gather);
    }
    plan.left_to_right += cheapest;
  }
  return plan;
}
// α × the bytes of an all-gather of a product of `size`: the next product reads it whole.
inline double gather_cost(const cost_model& cm, double size) {
  return cm.total(cm.bcast(size) / static_cast<double>(std::max<std::int64_t>(cm.sites, 1)), 0);
}
}  // namespace detail

/// The cheapest plan of X0 X1 ... Xn-1 under `cm`: over every association order and every
/// strategy of each product (dynamic programming over the intervals, O(n^3) x 4 strategies).
/// A product's result is all-gathered (its cost counted) and read whole by the next product, so
/// an intermediate is `replicated` there (no broadcast of it needed); the operands are placed as
/// `chain_operand::placed` says.
inline chain_plan plan_chain(const cost_model& cm, const std::vector<chain_operand>& ops) {
  detail::check_chain(ops);
  return detail::search_chain(
      ops.size(), [&](std::size_t lo, std::size_t mid, std::size_t hi, matmul_strategy st) {
        matmul_shape sh{ops[lo].rows,
                        ops[mid].rows,
                        ops[hi - 1].cols,
                        ops[lo].tile_rows,
                        ops[mid].tile_rows,
                        ops[hi - 1].tile_cols,
                        mid - lo == 1 ? ops[lo].placed : partitioning::replicated,
                        hi - mid == 1 ? ops[mid].placed : partitioning::replicated};
        return chain_step{lo, mid, hi, estimate(cm, sh, st),
                          detail::gather_cost(cm, cm.size(static_cast<double>(sh.I * sh.J),
                                                          static_cast<double>(sh.m * sh.n)))};
      });
}

/// The cheapest plan of a chain of block-sparse matrices, costed from their statistics
/// (`stats_of`) instead of dense tile sizes: an operand moves its tiles' bytes, a product's
/// multiplications, entries and bytes are `estimate_product`'s (an interval's product is
/// estimated left to right, whatever order the plan picks, so every plan sees one estimate),
/// and intermediates are CSR tiles, all-gathered as in plan_chain. Sparsity changes the order:
/// a very sparse operand is best multiplied first, and broadcast rather than its dense-sized
/// partner.
inline chain_plan plan_sparse_chain(const cost_model& cm, const std::vector<sparse_stats>& ops) {
  std::vector<chain_operand> shapes;
  for (const auto& o : ops)
    shapes.push_back({static_cast<std::int64_t>(o.row_nnz.size()),
                      static_cast<std::int64_t>(o.col_nnz.size()), o.tile_rows, o.tile_cols,
                      o.placed});
  detail::check_chain(shapes);
  const std::size_t n = ops.size();
  // the estimated product of each interval, left to right
  std::vector<std::vector<sparse_stats>> made(n + 1, std::vector<sparse_stats>(n + 1));
  for (std::size_t lo = 0; lo < n; ++lo) {
    made[lo][lo + 1] = ops[lo];
    for (std::size_t hi = lo + 2; hi <= n; ++hi) {
      made[lo][hi] = estimate_product(cm, made[lo][hi - 1], ops[hi - 1]).out;
      made[lo][hi].placed = partitioning::replicated;
    }
  }
  return detail::search_chain(
      n, [&](std::size_t lo, std::size_t mid, std::size_t hi, matmul_strategy st) {
        const sparse_stats& a = made[lo][mid];
        const sparse_stats& b = made[mid][hi];
        const auto e = estimate_product(cm, a, b);
        return chain_step{lo, mid, hi, estimate(cm, sparse_matmul_sizes(e, a, b), st),
                          detail::gather_cost(cm, e.out.bytes)};
      });
}

/// plan_sparse_chain over the relations themselves (their statistics; the logical extents taken
/// as the tile grid's, padding included).
template <class T, storage_format F>
chain_plan plan_sparse_chain(const cost_model& cm, const std::vector<sparse_relation<T, F>>& xs) {
  std::vector<sparse_stats> stats;
  for (const auto& x : xs)
    stats.push_back(
        stats_of(x, {x.bounds()[0] * x.tile_shape()[0], x.bounds()[1] * x.tile_shape()[1]}));
  return plan_sparse_chain(cm, stats);
}

/// The product of a chain of sparse relations in one process, in the plan's association order:
/// each product the fused sparse join-aggregate, tiles in `Out`.
template <storage_format Out, class T, storage_format F>
sparse_relation<T, Out> multiply_sparse_chain(const std::vector<sparse_relation<T, F>>& xs,
                                              const chain_plan& plan) {
  if (xs.empty()) throw shape_error("loom::tra::multiply_sparse_chain: the chain has no operand");
  std::vector<std::pair<std::array<std::size_t, 2>, sparse_relation<T, Out>>> made;
  auto product = [&](std::size_t lo, std::size_t mid, std::size_t hi) {
    auto with = [&](std::size_t a, std::size_t b, auto&& f) {
      if (b - a == 1) return f(xs[a]);
      for (const auto& [range, r] : made)
        if (range[0] == a && range[1] == b) return f(r);
      throw shape_error("loom::tra::multiply_sparse_chain: the plan is not the chain's");
    };
    return with(lo, mid, [&](const auto& l) {
      return with(mid, hi, [&](const auto& r) {
        return join_aggregate<Out>(l, r, std::array<std::size_t, 1>{1},
                                   std::array<std::size_t, 1>{0}, std::array<std::size_t, 2>{0, 2});
      });
    });
  };
  for (const chain_step& s : plan.steps) {
    auto p = product(s.lo, s.mid, s.hi);
    made.push_back({{s.lo, s.hi}, std::move(p)});
  }
  if (xs.size() == 1) {
    sparse_relation<T, Out> one(xs[0].bounds(), xs[0].tile_shape());
    for (const auto& [key, t] : xs[0]) one.insert(key, tensor<T, Out>(t));
    return one;
  }
  return std::move(made.back().second);
}

/// Runs the plan's products in order, `multiply(step, left, right)` making each from the
/// operands' or earlier products' relations; the chain's product (xs[0] for one operand).
template <class T, class Multiply>
relation<T, 2, 2> run_chain(const std::vector<relation<T, 2, 2>>& xs, const chain_plan& plan,
                            Multiply&& multiply) {
  if (xs.empty()) throw shape_error("loom::tra: the chain has no operand");
  // the product of each interval, as the steps make it (an interval's operands precede it)
  std::vector<std::pair<std::array<std::size_t, 2>, relation<T, 2, 2>>> made;
  auto get = [&](std::size_t lo, std::size_t hi) -> const relation<T, 2, 2>& {
    if (hi - lo == 1) return xs[lo];
    for (const auto& [range, r] : made)
      if (range[0] == lo && range[1] == hi) return r;
    throw shape_error("loom::tra: the plan is not the chain's");
  };
  for (const chain_step& s : plan.steps) {
    auto product = multiply(s, get(s.lo, s.mid), get(s.mid, s.hi));
    made.push_back({{s.lo, s.hi}, std::move(product)});
  }
  return xs.size() == 1 ? xs[0] : made.back().second;
}

/// The chain's product in one process, in the plan's association order (the strategies only
/// matter across sites): each product a fused join-aggregate of tile products.
template <class T>
relation<T, 2, 2> multiply_chain(const std::vector<relation<T, 2, 2>>& xs, const chain_plan& plan) {
  return run_chain(xs, plan, [](const chain_step&, const auto& l, const auto& r) {
    return join_aggregate(l, r, std::array<std::size_t, 1>{1}, std::array<std::size_t, 1>{0},
                          mat_mul{}, std::array<std::size_t, 2>{0, 2}, mat_add{});
  });
}

}  // namespace loom::tra

#endif  // LOOM_TRA_CHAIN_HPP
