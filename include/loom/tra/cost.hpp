// Defines the TRA/IA cost model C = α·Cn + β·Cc (the TRA paper), with the paper's formulas and
// the notes' corrections behind a policy, the four distributed matmul strategies, the choice
// among them and its `explain` text; for sparse tiles, sizes from the tiles' arrays and a
// product's size estimated from nnz statistics (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_COST_HPP
#define LOOM_TRA_COST_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

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

/// What a strategy's costs depend on: the bytes (or elements) of X, of Y and of the join's output
/// before its aggregation, the join's flops and the aggregation's calls, the tile grid's I and J,
/// and the inputs' partitions. Dense sizes come from the key bounds, sparse ones from nnz.
struct matmul_sizes {
  double x = 0, y = 0, joined = 0;
  double join_flops = 0, aggregation = 0;
  double I = 1, J = 1;
  partitioning x_part = partitioning::none, y_part = partitioning::none;
};

/// Cn and Cc of one strategy from the sizes it moves.
inline strategy_cost estimate(const cost_model& cm, const matmul_sizes& sz, matmul_strategy st) {
  strategy_cost c{st, 0, sz.join_flops + sz.aggregation, 0};
  const bool x_rep = sz.x_part == partitioning::replicated,
             y_rep = sz.y_part == partitioning::replicated;
  switch (st) {
    case matmul_strategy::broadcast_left:
      // ⋈ᴸ(BCAST X, Y): output partitioned as Y; a column split of Y keeps groups <i,j> on one
      // site, so the SHUF<0,2> before Σᴸ is dropped (R2-4 after partition propagation).
      c.cn =
          (x_rep ? 0 : cm.bcast(sz.x)) + (sz.y_part == partitioning::cols ? 0 : cm.shuf(sz.joined));
      break;
    case matmul_strategy::broadcast_right:
      c.cn =
          (y_rep ? 0 : cm.bcast(sz.y)) + (sz.x_part == partitioning::rows ? 0 : cm.shuf(sz.joined));
      break;
    case matmul_strategy::cross_product:
      c.cn = (sz.x_part == partitioning::cols ? 0 : cm.shuf(sz.x)) +
             (sz.y_part == partitioning::rows ? 0 : cm.shuf(sz.y)) + cm.shuf(sz.joined);
      break;
    case matmul_strategy::replicated_3d:
      // X duplicated J times and Y I times, then shuffled by <i, j>; Σᴸ is then local.
      c.cn = cm.shuf(sz.x * sz.J) + cm.shuf(sz.y * sz.I);
      break;
  }
  c.total = cm.total(c.cn, c.cc);
  return c;
}

/// Cn and Cc of one strategy, from the key bounds alone (the paper's point: no statistics).
inline strategy_cost estimate(const cost_model& cm, const matmul_shape& sh, matmul_strategy st) {
  const double I = static_cast<double>(sh.I), K = static_cast<double>(sh.K),
               J = static_cast<double>(sh.J);
  const double join_card = I * K * J;  // I·K · K·J / K
  const double c_agg = static_cast<double>(sh.m * sh.n);
  return estimate(cm,
                  matmul_sizes{cm.size(I * K, static_cast<double>(sh.m * sh.k)),
                               cm.size(K * J, static_cast<double>(sh.k * sh.n)),
                               cm.size(join_card, static_cast<double>(sh.m * sh.n)),
                               join_card * 2.0 * static_cast<double>(sh.m * sh.k * sh.n),
                               cm.aggregate(join_card, I * J, c_agg), I, J, sh.x, sh.y},
                  st);
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

/// Bytes of a tile in any loom format: its level arrays (positions, coordinates, band starts,
/// bitmap words, hash tables, a mapping's arrays) and its values, what moving it costs. Sparse
/// relations are costed by these sizes rather than by their dense tile volume.
template <class Tensor> double tile_bytes(const Tensor& t) {
  double n = 0;
  auto add = [&](const auto& a) { n += static_cast<double>(a.size() * sizeof(*a.data())); };
  std::apply(
      [&](const auto&... level) {
        (..., [&](const auto& s) {
          if constexpr (requires { s.kind; }) add(s.kind);
          if constexpr (requires { s.pos; }) add(s.pos);
          if constexpr (requires { s.crd; }) add(s.crd);
          if constexpr (requires { s.lo; }) add(s.lo);
          if constexpr (requires { s.bits; }) add(s.bits);
          if constexpr (requires { s.slot_pos; }) add(s.slot_pos);
          if constexpr (requires { s.table; }) add(s.table);
          if constexpr (requires { s.arrays; })
            std::apply([&](const auto&... a) { (..., add(a)); }, s.arrays);
        }(level));
      },
      t.levels());
  return n + static_cast<double>(t.values().size() * sizeof(*t.values().data()));
}

/// What the cost model knows of a block-sparse matrix (statistics, not its entries): the
/// element extents, the tile shape, the stored entries and tiles per tile row and per tile
/// column, their totals, the bytes of its tiles' arrays, and how it is placed.
struct sparse_stats {
  std::int64_t rows = 0, cols = 0;
  std::int64_t tile_rows = 1, tile_cols = 1;
  std::vector<double> row_nnz, col_nnz;      // per tile row, per tile column
  std::vector<double> row_tiles, col_tiles;  // stored tiles per tile row, per tile column
  double nnz = 0, tiles = 0, bytes = 0;
  partitioning placed = partitioning::none;
};

/// The statistics of a block-sparse relation of logical `shape` (a loom::tra::sparse_relation,
/// or any type with its bounds(), tile_shape() and iteration); bytes are exact (tile_bytes).
template <class SparseRelation>
sparse_stats stats_of(const SparseRelation& r, const std::array<std::int64_t, 2>& shape,
                      partitioning placed = partitioning::none) {
  sparse_stats s;
  s.rows = shape[0];
  s.cols = shape[1];
  s.tile_rows = r.tile_shape()[0];
  s.tile_cols = r.tile_shape()[1];
  s.row_nnz.assign(static_cast<std::size_t>(r.bounds()[0]), 0);
  s.row_tiles = s.row_nnz;
  s.col_nnz.assign(static_cast<std::size_t>(r.bounds()[1]), 0);
  s.col_tiles = s.col_nnz;
  s.placed = placed;
  for (const auto& [key, t] : r) {
    const auto e = static_cast<double>(t.nnz());
    s.row_nnz[static_cast<std::size_t>(key[0])] += e;
    s.col_nnz[static_cast<std::size_t>(key[1])] += e;
    s.row_tiles[static_cast<std::size_t>(key[0])] += 1;
    s.col_tiles[static_cast<std::size_t>(key[1])] += 1;
    s.nnz += e;
    s.tiles += 1;
    s.bytes += tile_bytes(t);
  }
  return s;
}

/// The statistics of the transposed matrix: rows and columns (and their per-tile counts)
/// swapped; the entries, tiles and bytes are the same.
inline sparse_stats transposed(sparse_stats s) {
  std::swap(s.rows, s.cols);
  std::swap(s.tile_rows, s.tile_cols);
  std::swap(s.row_nnz, s.col_nnz);
  std::swap(s.row_tiles, s.col_tiles);
  if (s.placed == partitioning::rows)
    s.placed = partitioning::cols;
  else if (s.placed == partitioning::cols)
    s.placed = partitioning::rows;
  return s;
}

/// Bytes of CSR tiles holding `nnz` entries in `tiles` tiles of `tile_rows` rows (int64
/// positions, int32 coordinates): the size assumed for a product not yet computed.
inline double csr_tile_bytes(const cost_model& cm, double nnz, double tiles,
                             std::int64_t tile_rows) {
  return tiles * static_cast<double>(tile_rows + 1) * 8.0 +
         nnz * (4.0 + static_cast<double>(cm.scalar_bytes));
}

/// The estimated product C = A B of two block-sparse matrices, from their statistics: the
/// multiplications (each entry of tile column K of A meets the entries of one row of tile row K
/// of B, rows of a tile taken alike), C's entries if the products' positions are independent
/// (M N (1 - exp(-mults / (M N)))), the same for each K's partial product (the join's output,
/// before the aggregation sums over K), and C's entries and tiles per tile row and column in
/// proportion to A's rows and B's columns.
struct sparse_product_estimate {
  sparse_stats out;
  double multiplications = 0;
  double joined_nnz = 0, joined_tiles = 0, joined_bytes = 0;
};

inline sparse_product_estimate estimate_product(const cost_model& cm, const sparse_stats& a,
                                                const sparse_stats& b) {
  sparse_product_estimate e;
  const double cells = static_cast<double>(a.rows) * static_cast<double>(b.cols);
  auto filled = [&](double mults) {
    return cells <= 0 ? 0.0 : cells * -std::expm1(-mults / cells);
  };
  const std::size_t inner = std::min(a.col_nnz.size(), b.row_nnz.size());
  for (std::size_t k = 0; k < inner; ++k) {
    const double mults = a.col_nnz[k] * b.row_nnz[k] / static_cast<double>(b.tile_rows);
    e.multiplications += mults;
    e.joined_nnz += filled(mults);
    e.joined_tiles += a.col_tiles[k] * b.row_tiles[k];
  }
  e.joined_nnz = std::min(e.joined_nnz, e.multiplications);
  e.joined_bytes = csr_tile_bytes(cm, e.joined_nnz, e.joined_tiles, a.tile_rows);
  sparse_stats& c = e.out;
  c.rows = a.rows;
  c.cols = b.cols;
  c.tile_rows = a.tile_rows;
  c.tile_cols = b.tile_cols;
  c.nnz = std::min(filled(e.multiplications), e.multiplications);
  c.row_nnz.resize(a.row_nnz.size());
  c.col_nnz.resize(b.col_nnz.size());
  for (std::size_t i = 0; i < c.row_nnz.size(); ++i)
    c.row_nnz[i] = a.nnz > 0 ? c.nnz * a.row_nnz[i] / a.nnz : 0;
  for (std::size_t j = 0; j < c.col_nnz.size(); ++j)
    c.col_nnz[j] = b.nnz > 0 ? c.nnz * b.col_nnz[j] / b.nnz : 0;
  // a tile (I, J) is stored when one of its expected entries lands
  c.row_tiles.assign(c.row_nnz.size(), 0);
  c.col_tiles.assign(c.col_nnz.size(), 0);
  for (std::size_t i = 0; i < c.row_nnz.size(); ++i)
    for (std::size_t j = 0; j < c.col_nnz.size(); ++j) {
      const double expected = c.nnz > 0 ? c.row_nnz[i] * c.col_nnz[j] / c.nnz : 0;
      const double p = -std::expm1(-expected);
      c.row_tiles[i] += p;
      c.col_tiles[j] += p;
      c.tiles += p;
    }
  c.bytes = csr_tile_bytes(cm, c.nnz, c.tiles, c.tile_rows);
  return e;
}

/// The sizes of the product A B's strategies from sparse statistics: bytes of A, B and the
/// join's partial products, 2 flops per multiplication, one addition per joined entry.
inline matmul_sizes sparse_matmul_sizes(const sparse_product_estimate& e, const sparse_stats& a,
                                        const sparse_stats& b) {
  return {a.bytes,
          b.bytes,
          e.joined_bytes,
          2.0 * e.multiplications,
          e.joined_nnz,
          static_cast<double>(a.row_nnz.size()),
          static_cast<double>(b.col_nnz.size()),
          a.placed,
          b.placed};
}

}  // namespace loom::tra

#endif  // LOOM_TRA_COST_HPP
