// Defines the TRA/IA cost model C = α·Cn + β·Cc (the TRA paper), with the paper's formulas and
// the notes' corrections behind a policy, the four distributed matmul strategies, the choice
// among them and its `explain` text (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_COST_HPP
#define LOOM_TRA_COST_HPP

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace loom::tra {

/// `paper` reproduces the printed formulas (UT-11); `corrected` applies notes §5's fixes: Size
/// in bytes, SHUF moves (s-1)/s of the data, BCAST (s-1) copies, Σᴸ counts every aggOp call.
enum class cost_policy { paper, corrected };

struct cost_model {
  double alpha = 1.0;  // seconds (or units) per element/byte moved
  double beta = 0.0;   // seconds (or units) per flop
  std::int64_t sites = 1;
  cost_policy policy = cost_policy::paper;
  std::int64_t scalar_bytes = 8;

  /// Size(R) = prod key bounds x prod tile bounds (elements; bytes under `corrected`).
  double size(double tuples, double tile_volume) const {
    const double s = tuples * tile_volume;
    return policy == cost_policy::paper ? s : s * static_cast<double>(scalar_bytes);
  }
  double bcast(double size_r) const {
    const double s = static_cast<double>(sites);
    return policy == cost_policy::paper ? s * size_r : (s - 1) * size_r;
  }
  double shuf(double size_r) const {
    const double s = static_cast<double>(sites);
    return policy == cost_policy::paper ? size_r : size_r * (s - 1) / s;
  }
  /// Σᴸ compute: printed as prod_{i not in gbk} bounds x C_aggOp; corrected counts the calls.
  double aggregate(double all_keys, double group_keys, double c_agg) const {
    return policy == cost_policy::paper ? (all_keys / group_keys) * c_agg
                                        : (all_keys - group_keys) * c_agg;
  }
  double total(double cn, double cc) const { return alpha * cn + beta * cc; }
};

/// How an input matrix is already spread over the sites (the paper's D, with ∅ split into
/// `replicated` and `single`; notes §3.1).
enum class partitioning { none, rows, cols, replicated };

/// The four distributed matmul strategies of notes §4.3.
enum class matmul_strategy { broadcast_left, broadcast_right, cross_product, replicated_3d };

inline constexpr std::array<matmul_strategy, 4> all_matmul_strategies{
    matmul_strategy::broadcast_left, matmul_strategy::broadcast_right,
    matmul_strategy::cross_product, matmul_strategy::replicated_3d};

inline std::string_view name(matmul_strategy s) {
  switch (s) {
    case matmul_strategy::broadcast_left:
      return "broadcast left";
    case matmul_strategy::broadcast_right:
      return "broadcast right";
    case matmul_strategy::cross_product:
      return "cross product";
    case matmul_strategy::replicated_3d:
      return "replicated 3-D";
  }
  return "?";
}

/// X: I x K tiles, Y: K x J tiles, tiles m x k and k x n.
struct matmul_shape {
  std::int64_t I = 1, K = 1, J = 1;
  std::int64_t m = 1, k = 1, n = 1;
  partitioning x = partitioning::none, y = partitioning::none;
};

struct strategy_cost {
  matmul_strategy strategy{};
  double cn = 0;  // communication (elements or bytes)
  double cc = 0;  // compute (flops)
  double total = 0;
};

/// Cn and Cc of one strategy, from the key bounds alone (the paper's point: no statistics).
inline strategy_cost estimate(const cost_model& cm, const matmul_shape& sh, matmul_strategy st) {
  const double I = static_cast<double>(sh.I), K = static_cast<double>(sh.K),
               J = static_cast<double>(sh.J);
  const double size_x = cm.size(I * K, static_cast<double>(sh.m * sh.k));
  const double size_y = cm.size(K * J, static_cast<double>(sh.k * sh.n));
  const double join_card = I * K * J;  // I·K · K·J / K
  const double size_out = cm.size(join_card, static_cast<double>(sh.m * sh.n));
  const double c_proj = 2.0 * static_cast<double>(sh.m * sh.k * sh.n);
  const double c_agg = static_cast<double>(sh.m * sh.n);
  strategy_cost c{st, 0, 0, 0};
  c.cc = join_card * c_proj + cm.aggregate(join_card, I * J, c_agg);
  const bool x_rep = sh.x == partitioning::replicated, y_rep = sh.y == partitioning::replicated;
  switch (st) {
    case matmul_strategy::broadcast_left:
      // ⋈ᴸ(BCAST X, Y): output partitioned as Y; a column split of Y keeps groups <i,j> on one
      // site, so the SHUF<0,2> before Σᴸ is dropped (R2-4 after partition propagation).
      c.cn = (x_rep ? 0 : cm.bcast(size_x)) + (sh.y == partitioning::cols ? 0 : cm.shuf(size_out));
      break;
    case matmul_strategy::broadcast_right:
      c.cn = (y_rep ? 0 : cm.bcast(size_y)) + (sh.x == partitioning::rows ? 0 : cm.shuf(size_out));
      break;
    case matmul_strategy::cross_product:
      c.cn = (sh.x == partitioning::cols ? 0 : cm.shuf(size_x)) +
             (sh.y == partitioning::rows ? 0 : cm.shuf(size_y)) + cm.shuf(size_out);
      break;
    case matmul_strategy::replicated_3d:
      // X duplicated J times and Y I times, then shuffled by <i, j>; Σᴸ is then local.
      c.cn = cm.shuf(size_x * J) + cm.shuf(size_y * I);
      break;
  }
  c.total = cm.total(c.cn, c.cc);
  return c;
}

/// The cheapest strategy (ties go to the first in `all_matmul_strategies`).
inline strategy_cost choose(const cost_model& cm, const matmul_shape& sh) {
  strategy_cost best = estimate(cm, sh, all_matmul_strategies[0]);
  for (auto st : all_matmul_strategies) {
    const auto c = estimate(cm, sh, st);
    if (c.total < best.total) best = c;
  }
  return best;
}

/// Every strategy with its estimated communication and compute, and the choice.
inline std::string explain(const cost_model& cm, const matmul_shape& sh) {
  auto fmt = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return std::string(buf);
  };
  const char* unit = cm.policy == cost_policy::paper ? "elements" : "bytes";
  std::string out = "distributed matmul: X " + std::to_string(sh.I) + "x" + std::to_string(sh.K) +
                    " tiles of " + std::to_string(sh.m) + "x" + std::to_string(sh.k) + ", Y " +
                    std::to_string(sh.K) + "x" + std::to_string(sh.J) + " tiles of " +
                    std::to_string(sh.k) + "x" + std::to_string(sh.n) + ", " +
                    std::to_string(cm.sites) + " sites, alpha " + fmt(cm.alpha) + ", beta " +
                    fmt(cm.beta) + "\n";
  const auto best = choose(cm, sh);
  for (auto st : all_matmul_strategies) {
    const auto c = estimate(cm, sh, st);
    out += std::string(st == best.strategy ? "  * " : "    ") + std::string(name(st)) + ": Cn " +
           fmt(c.cn) + " " + unit + ", Cc " + fmt(c.cc) + " flops, cost " + fmt(c.total) + "\n";
  }
  out += "chosen: " + std::string(name(best.strategy)) + "\n";
  return out;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_COST_HPP
