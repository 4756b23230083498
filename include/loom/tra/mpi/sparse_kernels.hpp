// Defines the kernels over distributed sparse matrices (tra/mpi/): SpMV and SpMM (a 1-D row
// partition with the dense operand broadcast, or a 1-D column partition whose partial results are
// reduced) and SpGEMM (A in row blocks, B broadcast or only the tile rows each rank needs
// gathered), each choosing its strategy from estimated bytes and flops; every tile product is
// loom's ordinary fused kernel in the tile's own format.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_SPARSE_KERNELS_HPP
#define LOOM_TRA_MPI_SPARSE_KERNELS_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/core/index.hpp>
#  include <loom/exec/evaluate.hpp>
#  include <loom/format/format.hpp>
#  include <loom/format/tensor.hpp>
#  include <loom/format/view.hpp>
#  include <loom/tra/cost.hpp>
#  include <loom/tra/mpi/partition.hpp>
#  include <loom/tra/mpi/sparse.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <algorithm>
#  include <array>
#  include <cstddef>
#  include <cstdint>
#  include <cstdio>
#  include <cstring>
#  include <optional>
#  include <set>
#  include <span>
#  include <string>
#  include <vector>

namespace loom::tra::mpi {

/// Where the dense operand of spmv / spmm is given: whole on every rank, or on rank 0 alone
/// (the other ranks' argument is ignored and may be empty).
enum class dense_operand { every_rank, root_only };

/// SpMV / SpMM: A in row blocks with the dense operand broadcast and the result's rows gathered,
/// or A in column blocks with each rank's slice of the operand and the partial results reduced.
enum class spmv_strategy { row_blocks, col_blocks };
/// SpGEMM with A in row blocks: every rank gets all of B, or only the tile rows of B its tiles
/// of A meet.
enum class spgemm_strategy { broadcast_b, gather_needed_b };

/// One strategy's estimate: the bytes all ranks send together, the flops, and
/// cost = alpha * bytes + beta * flops (the cost_model's weights).
struct strategy_estimate {
  std::string name;
  double bytes = 0;
  double flops = 0;
  double cost = 0;
};

/// What a distributed sparse kernel did: every candidate's estimate, the one chosen (an index
/// into candidates), what this rank sent during the call, and the plan in words.
struct sparse_report {
  std::vector<strategy_estimate> candidates;
  std::size_t chosen = 0;
  traffic sent;
  std::string explain;
};

namespace detail {
inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
// Picks the cheapest candidate (the first on ties) unless `forced`, and writes the explanation.
inline std::size_t choose_strategy(std::vector<strategy_estimate>& candidates, const cost_model& cm,
                                   std::optional<std::size_t> forced, const std::string& header,
                                   std::string& explain) {
  std::size_t best = 0;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    candidates[c].cost = cm.alpha * candidates[c].bytes + cm.beta * candidates[c].flops;
    if (candidates[c].cost < candidates[best].cost) best = c;
  }
  if (forced) best = *forced;
  explain = header + "\n";
  for (const auto& c : candidates)
    explain += "  " + c.name + ": bytes " + number(c.bytes) + ", flops " + number(c.flops) +
               ", cost " + number(c.cost) + "\n";
  explain += std::string("  chosen: ") + candidates[best].name + (forced ? " (forced)" : "") + "\n";
  return best;
}

template <class T, storage_format Format>
std::string describe(const distributed_matrix<T, Format>& A, std::int64_t nnz) {
  return "'" + A.name + "' " + std::to_string(A.shape[0]) + " x " + std::to_string(A.shape[1]) +
         " (" + std::to_string(nnz) + " entries, tiles " + std::to_string(A.tiles.tile_shape()[0]) +
         " x " + std::to_string(A.tiles.tile_shape()[1]) + ", " + A.partition.describe() + ")";
}

// The partition a 1-D strategy runs in: A's own when it already has that layout (its cuts kept).
inline tile_partition one_d(const tile_partition& have, tile_layout want, int ranks) {
  if (have.layout() == want) return have;
  return want == tile_layout::row_blocks ? tile_partition::row_blocks(ranks)
                                         : tile_partition::col_blocks(ranks);
}

// `v`'s rows [first, last) of `k` values each, as bytes.
template <class T>
std::vector<char> rows_bytes(const std::vector<T>& v, std::int64_t first, std::int64_t last,
                             std::int64_t k) {
  std::vector<char> b;
  if (last > first)
    put_bytes(b, v.data() + first * k, static_cast<std::size_t>((last - first) * k) * sizeof(T));
  return b;
}

// y_pad(rows of tile row I - first_row) += A_IJ x_pad(rows of tile column J), for every tile:
// loom's fused kernel in the tile's format, on views of the padded dense blocks.
template <bool Matrix, class T, storage_format Format>
void multiply_tiles(const sparse_relation<T, Format>& tiles, std::int64_t first_row,
                    const std::vector<T>& x_pad, std::vector<T>& y_pad, std::int64_t k) {
  constexpr loom::index<"tra_i"> i;
  constexpr loom::index<"tra_j"> j;
  constexpr loom::index<"tra_c"> c;
  const auto ts = tiles.tile_shape();
  for (const auto& [key, t] : tiles) {
    const auto x_at = static_cast<std::size_t>(key[1] * ts[1] * k);
    const auto y_at = static_cast<std::size_t>((key[0] - first_row) * ts[0] * k);
    const std::span<const T> x_block(x_pad.data() + x_at, static_cast<std::size_t>(ts[1] * k));
    const std::span<T> y_block(y_pad.data() + y_at, static_cast<std::size_t>(ts[0] * k));
    if constexpr (Matrix) {
      auto xv = loom::dense_matrix_view<const T>(ts[1], k, x_block);
      auto yv = loom::dense_matrix_view<T>(ts[0], k, y_block);
      yv(i, c) += loom::sum(j, t(i, j) * xv(j, c));
    } else {
      auto xv = loom::dense_vector_view<const T>(x_block);
      auto yv = loom::dense_vector_view<T>(y_block);
      yv(i) += loom::sum(j, t(i, j) * xv(j));
    }
  }
}

// The extents of Y (m x k) = A X (n x k) in A's tiles; `first(b, d)` is the first row (d = 0)
// or column (d = 1) of tile row/column b, clipped to the matrix.
struct dense_product_shape {
  std::int64_t m, n, k;
  std::array<std::int64_t, 2> bounds, tile;
  std::int64_t first(std::int64_t b, std::size_t d) const {
    return std::min(b * tile[d], d == 0 ? m : n);
  }
};

// Both strategies' estimates: bytes all ranks send (the move of A into the strategy's layout,
// the dense operand from rank 0 when it is there alone, the result's exchanges) and flops.
template <bool Matrix, class T, storage_format Format>
std::vector<strategy_estimate> estimate_dense_strategies(
    const transport& tr, const distributed_matrix<T, Format>& A, const dense_product_shape& sh,
    const tile_partition& by_rows, const tile_partition& by_cols, std::int64_t nnz, bool on_root) {
  // statistics every rank agrees on (a few integers, not counted as traffic)
  const auto to_rows = static_cast<double>(allreduce_sum(bytes_leaving(tr, A, by_rows), tr.comm()));
  const auto to_cols = static_cast<double>(allreduce_sum(bytes_leaving(tr, A, by_cols), tr.comm()));
  const double row_bytes = static_cast<double>(sizeof(T)) * static_cast<double>(sh.k);
  const double peers = static_cast<double>(tr.sites() - 1);
  const double m = static_cast<double>(sh.m), n = static_cast<double>(sh.n);
  const auto root_cols = by_cols.range_of(0, sh.bounds[1]);
  const auto root_slice =
      static_cast<double>(sh.first(root_cols[1], 1) - sh.first(root_cols[0], 1));
  const double flops = 2.0 * static_cast<double>(nnz) * static_cast<double>(sh.k);
  const std::string x = Matrix ? "X" : "x", y = Matrix ? "Y" : "y";
  return {{"row blocks, " + (on_root ? x + " broadcast from rank 0, " : "") + "rows of " + y +
               " all-gathered",
           to_rows + (on_root ? n * row_bytes * peers : 0) + m * row_bytes * peers, flops},
          {"column blocks, " + (on_root ? x + " sliced from rank 0, " : "") + "partial " + y +
               " reduced",
           to_cols + (on_root ? (n - root_slice) * row_bytes : 0) + 2 * m * row_bytes * peers,
           flops + m * static_cast<double>(sh.k) * peers}};
}

// The dense operand on this rank, padded to whole tiles: all of it for row blocks, at least the
// rows of this rank's tile columns for column blocks.
template <class T>
std::vector<T> spread_operand(const transport& tr, const std::vector<T>& X,
                              const dense_product_shape& sh, bool on_root, bool row_blocks,
                              const tile_partition& part) {
  const std::int64_t k = sh.k;
  std::vector<T> x_pad(static_cast<std::size_t>(sh.bounds[1] * sh.tile[1] * k), T(0));
  if (!on_root) {
    std::copy(X.begin(), X.end(), x_pad.begin());
  } else if (row_blocks) {  // all of it, from rank 0
    std::vector<char> b;
    if (tr.rank() == 0) put_bytes(b, X.data(), X.size() * sizeof(T));
    tr.broadcast_from(b, 0);
    if (!b.empty()) std::memcpy(x_pad.data(), b.data(), b.size());
  } else {  // rank 0 sends rank q the rows of q's tile columns
    std::vector<std::vector<char>> to(static_cast<std::size_t>(tr.sites()));
    for (int q = 1; q < tr.sites() && tr.rank() == 0; ++q) {
      const auto r = part.range_of(q, sh.bounds[1]);
      to[static_cast<std::size_t>(q)] = rows_bytes(X, sh.first(r[0], 1), sh.first(r[1], 1), k);
    }
    std::vector<std::size_t> offsets;
    const auto got = tr.exchange(to, offsets);
    const auto mine = part.range_of(tr.rank(), sh.bounds[1]);
    const std::int64_t first = sh.first(mine[0], 1), last = sh.first(mine[1], 1);
    if (tr.rank() == 0)
      std::copy(X.begin() + first * k, X.begin() + last * k, x_pad.begin() + first * k);
    else if (!got.empty())
      std::memcpy(x_pad.data() + first * k, got.data(), got.size());
  }
  return x_pad;
}

// Two dense factors U and V (rows of r values) on this rank, padded: all of them when every rank
// has them, else the rows `mine` of each, which rank 0 sends to rank q (rows `wanted[q]`) in one
// message (U's rows, then V's). SDDMM's U and V, MTTKRP's B and C.
template <class T>
void spread_factors(const transport& tr, const std::vector<T>& U, const std::vector<T>& V,
                    std::int64_t r, bool on_root,
                    const std::array<std::array<std::int64_t, 2>, 2>& mine,
                    const std::vector<std::array<std::array<std::int64_t, 2>, 2>>& wanted,
                    std::vector<T>& u_pad, std::vector<T>& v_pad) {
  if (!on_root) {
    std::copy(U.begin(), U.end(), u_pad.begin());
    std::copy(V.begin(), V.end(), v_pad.begin());
    return;
  }
  std::vector<std::vector<char>> to(static_cast<std::size_t>(tr.sites()));
  for (int q = 1; q < tr.sites() && tr.rank() == 0; ++q) {
    const auto& w = wanted[static_cast<std::size_t>(q)];
    auto& b = to[static_cast<std::size_t>(q)];
    b = rows_bytes(U, w[0][0], w[0][1], r);
    const auto vb = rows_bytes(V, w[1][0], w[1][1], r);
    b.insert(b.end(), vb.begin(), vb.end());
  }
  std::vector<std::size_t> offsets;
  const auto got = tr.exchange(to, offsets);
  const auto u_n = static_cast<std::size_t>((mine[0][1] - mine[0][0]) * r);
  const auto v_n = static_cast<std::size_t>((mine[1][1] - mine[1][0]) * r);
  const T* u_from = nullptr;
  const T* v_from = nullptr;
  std::vector<T> in;
  if (tr.rank() == 0) {
    u_from = U.data() + mine[0][0] * r;
    v_from = V.data() + mine[1][0] * r;
  } else {
    in.resize(u_n + v_n);
    if (!got.empty()) std::memcpy(in.data(), got.data(), got.size());
    u_from = in.data();
    v_from = in.data() + u_n;
  }
  if (u_n) std::copy(u_from, u_from + u_n, u_pad.begin() + mine[0][0] * r);
  if (v_n) std::copy(v_from, v_from + v_n, v_pad.begin() + mine[1][0] * r);
}
// Y from this rank's partial product (all m rows, padded): a reduce-scatter over balanced row
// segments (rank q sums segment q), then an all-gather of the sums.
template <class T>
std::vector<T> reduce_partials(const transport& tr, const std::vector<T>& partial,
                               const dense_product_shape& sh) {
  const std::int64_t s = tr.sites(), me = tr.rank(), m = sh.m, k = sh.k;
  auto segment = [&](std::int64_t q) {
    return std::array<std::int64_t, 2>{m * q / s, m * (q + 1) / s};
  };
  std::vector<std::vector<char>> to(static_cast<std::size_t>(s));
  for (std::int64_t q = 0; q < s; ++q)
    if (q != me)
      to[static_cast<std::size_t>(q)] = rows_bytes(partial, segment(q)[0], segment(q)[1], k);
  std::vector<std::size_t> offsets;
  const auto got = tr.exchange(to, offsets);
  const auto seg = segment(me);
  std::vector<T> sum(partial.begin() + seg[0] * k, partial.begin() + seg[1] * k),
      theirs(sum.size());
  for (std::int64_t q = 0; q < s; ++q) {
    if (q == me || sum.empty()) continue;
    std::memcpy(theirs.data(), got.data() + offsets[static_cast<std::size_t>(q)],
                sum.size() * sizeof(T));
    for (std::size_t e = 0; e < sum.size(); ++e) sum[e] += theirs[e];
  }
  std::vector<T> y(static_cast<std::size_t>(m * k));
  const auto all = tr.allgather(rows_bytes(sum, 0, seg[1] - seg[0], k), offsets);
  if (!all.empty()) std::memcpy(y.data(), all.data(), all.size());  // segments in rank order
  return y;
}

// Y (m x k, row-major) = A X (n x k) on every rank, for spmv (k = 1) and spmm.
template <bool Matrix, class T, storage_format Format>
std::vector<T> multiply_dense(const transport& tr, const distributed_matrix<T, Format>& A,
                              const std::vector<T>& X, std::int64_t k, dense_operand where,
                              const cost_model& cm, std::optional<spmv_strategy> force,
                              sparse_report* report, const char* kernel) {
  const traffic before = tr.sent();
  const int s = static_cast<int>(tr.sites()), me = tr.rank();
  const dense_product_shape sh{A.shape[0], A.shape[1], k, A.tiles.bounds(), A.tiles.tile_shape()};
  const bool on_root = where == dense_operand::root_only;
  A.partition.check(s, me, sh.bounds, std::string(kernel) + " of " + A.name);
  if ((!on_root || me == 0) && static_cast<std::int64_t>(X.size()) != sh.n * k)
    throw shape_error(std::string("loom::tra::mpi::") + kernel + ": the dense operand has " +
                      std::to_string(X.size()) + " values on rank " + std::to_string(me) + "; " +
                      A.name + " is " + std::to_string(sh.m) + " x " + std::to_string(sh.n) +
                      (Matrix ? ", so it needs n x k = " : ", so it needs ") +
                      std::to_string(sh.n * k));
  const tile_partition by_rows = one_d(A.partition, tile_layout::row_blocks, s);
  const tile_partition by_cols = one_d(A.partition, tile_layout::col_blocks, s);
  const std::int64_t nnz = global_nnz(tr, A);
  auto candidates = estimate_dense_strategies<Matrix>(tr, A, sh, by_rows, by_cols, nnz, on_root);
  std::string explain;
  const std::size_t pick = choose_strategy(
      candidates, cm,
      force ? std::optional<std::size_t>(static_cast<std::size_t>(*force)) : std::nullopt,
      std::string("distributed ") + kernel + ": " + describe(A, nnz) + ", dense operand " +
          (on_root ? "on rank 0" : "on every rank") + ", " + std::to_string(s) + " ranks",
      explain);
  const bool row_blocks = pick == static_cast<std::size_t>(spmv_strategy::row_blocks);
  const tile_partition& part = row_blocks ? by_rows : by_cols;
  std::optional<distributed_matrix<T, Format>> moved;
  if (A.partition.layout() != part.layout()) moved = redistribute(tr, A, part);
  const auto& tiles = moved ? moved->tiles : A.tiles;
  const auto x_pad = spread_operand(tr, X, sh, on_root, row_blocks, part);

  std::vector<T> y;
  if (row_blocks) {  // this rank's rows, then every rank's in rank order, which is row order
    const auto mine = part.range_of(me, sh.bounds[0]);
    std::vector<T> y_pad(static_cast<std::size_t>((mine[1] - mine[0]) * sh.tile[0] * k), T(0));
    multiply_tiles<Matrix>(tiles, mine[0], x_pad, y_pad, k);
    std::vector<std::size_t> offsets;
    const auto all =
        tr.allgather(rows_bytes(y_pad, 0, sh.first(mine[1], 0) - sh.first(mine[0], 0), k), offsets);
    y.resize(static_cast<std::size_t>(sh.m * k));
    if (!all.empty()) std::memcpy(y.data(), all.data(), all.size());
  } else {
    std::vector<T> partial(static_cast<std::size_t>(sh.bounds[0] * sh.tile[0] * k), T(0));
    multiply_tiles<Matrix>(tiles, 0, x_pad, partial, k);
    y = reduce_partials(tr, partial, sh);
  }
  if (report) *report = {std::move(candidates), pick, tr.sent() - before, std::move(explain)};
  return y;
}
}  // namespace detail

/// y = A x, whole on every rank. x has A's columns; it is given on every rank or, with
/// `dense_operand::root_only`, on rank 0 alone. The strategy (row or column blocks of A, A moved
/// when it is partitioned otherwise) is the cheapest by `cm` unless `force` names one.
template <class T, storage_format Format>
std::vector<T> spmv(const transport& tr, const distributed_matrix<T, Format>& A,
                    const std::vector<T>& x, const cost_model& cm = {},
                    dense_operand where = dense_operand::every_rank,
                    std::optional<spmv_strategy> force = std::nullopt,
                    sparse_report* report = nullptr) {
  return detail::multiply_dense<false>(tr, A, x, 1, where, cm, force, report, "spmv");
}

/// Y = A X for a dense X (A's columns x k), Y whole on every rank; as spmv otherwise.
template <class T, storage_format Format>
tensor<T, dense_matrix> spmm(const transport& tr, const distributed_matrix<T, Format>& A,
                             const tensor<T, dense_matrix>& X, const cost_model& cm = {},
                             dense_operand where = dense_operand::every_rank,
                             std::optional<spmv_strategy> force = std::nullopt,
                             sparse_report* report = nullptr) {
  // every rank must agree on k, which rank 0's operand fixes when it alone holds one
  std::int64_t k = X.extent(1);
  check(MPI_Bcast(&k, 1, MPI_INT64_T, 0, tr.comm()), "MPI_Bcast");
  const auto xs = X.values();
  const std::vector<T> flat(xs.begin(), xs.end());
  const auto y = detail::multiply_dense<true>(tr, A, flat, k, where, cm, force, report, "spmm");
  tensor<T, dense_matrix> Y({A.shape[0], k});
  std::copy(y.begin(), y.end(), Y.values().begin());
  return Y;
}

/// C = A B with C's tiles in `OutFormat`, kept in row blocks: each rank holds the tile rows of
/// C of its tile rows of A (A is moved into row blocks when partitioned otherwise). B arrives
/// whole on every rank (`broadcast_b`) or only the tile rows each rank's tiles of A meet
/// (`gather_needed_b`), as compact tiles; the cheaper by `cm` unless `force` names one. Each tile
/// product is block_matmul's loom kernel.
template <storage_format OutFormat, class T, storage_format FA, storage_format FB>
distributed_matrix<T, OutFormat> spgemm(const transport& tr, const distributed_matrix<T, FA>& A,
                                        const distributed_matrix<T, FB>& B,
                                        const cost_model& cm = {},
                                        std::optional<spgemm_strategy> force = std::nullopt,
                                        sparse_report* report = nullptr) {
  const traffic before = tr.sent();
  const int s = static_cast<int>(tr.sites()), me = tr.rank();
  if (A.shape[1] != B.shape[0] || A.tiles.tile_shape()[1] != B.tiles.tile_shape()[0])
    throw shape_error("loom::tra::mpi::spgemm: " + A.name + " is " + std::to_string(A.shape[0]) +
                      " x " + std::to_string(A.shape[1]) + " in tiles of " +
                      std::to_string(A.tiles.tile_shape()[1]) + " columns, " + B.name + " is " +
                      std::to_string(B.shape[0]) + " x " + std::to_string(B.shape[1]) +
                      " in tiles of " + std::to_string(B.tiles.tile_shape()[0]) + " rows");
  A.partition.check(s, me, A.tiles.bounds(), "spgemm of " + A.name);
  B.partition.check(s, me, B.tiles.bounds(), "spgemm of " + B.name);
  const tile_partition by_rows = detail::one_d(A.partition, tile_layout::row_blocks, s);
  const std::int64_t nnz_a = global_nnz(tr, A), nnz_b = global_nnz(tr, B);
  const auto to_rows =
      static_cast<double>(detail::allreduce_sum(bytes_leaving(tr, A, by_rows), tr.comm()));
  // both strategies run on A in row blocks: move it first, then count what each rank needs
  std::optional<distributed_matrix<T, FA>> moved;
  if (A.partition.layout() != tile_layout::row_blocks) moved = redistribute(tr, A, by_rows);
  const auto& a_tiles = moved ? moved->tiles : A.tiles;
  std::set<std::int64_t> needed;
  for (const auto& [key, t] : a_tiles) needed.insert(key[1]);
  std::int64_t b_bytes = 0;
  for (const auto& [key, t] : B.tiles) b_bytes += static_cast<std::int64_t>(packed_bytes(t));
  b_bytes = detail::allreduce_sum(b_bytes, tr.comm());
  const auto needed_all = static_cast<double>(
      detail::allreduce_sum(static_cast<std::int64_t>(needed.size()), tr.comm()));
  const double peers = static_cast<double>(s - 1);
  const double tile_rows = static_cast<double>(std::max<std::int64_t>(B.tiles.bounds()[0], 1));
  // uniform rows: each entry of A meets nnz(B) / n entries of B
  const double flops = 2.0 * static_cast<double>(nnz_a) * static_cast<double>(nnz_b) /
                       static_cast<double>(std::max<std::int64_t>(A.shape[1], 1));
  std::vector<strategy_estimate> candidates{
      {"A in row blocks, B broadcast", to_rows + static_cast<double>(b_bytes) * peers, flops},
      {"A in row blocks, needed tile rows of B gathered",
       to_rows + needed_all * 8.0 * peers +
           needed_all * (static_cast<double>(b_bytes) / tile_rows) * peers / static_cast<double>(s),
       flops}};
  std::string explain;
  const std::size_t pick = detail::choose_strategy(
      candidates, cm,
      force ? std::optional<std::size_t>(static_cast<std::size_t>(*force)) : std::nullopt,
      "distributed spgemm: " + detail::describe(A, nnz_a) + " times " + detail::describe(B, nnz_b) +
          ", " + std::to_string(s) + " ranks",
      explain);

  sparse_relation<T, FB> b_here(B.tiles.bounds(), B.tiles.tile_shape());
  std::vector<std::size_t> offsets;
  if (pick == static_cast<std::size_t>(spgemm_strategy::broadcast_b)) {
    b_here = gather(tr, B);
  } else {
    std::vector<char> keys;
    for (const std::int64_t K : needed) detail::put(keys, K);
    const auto all_keys = tr.allgather(keys, offsets);
    std::vector<std::vector<char>> to(static_cast<std::size_t>(s));
    for (int q = 0; q < s; ++q) {
      std::set<std::int64_t> wants;
      for (std::size_t at = offsets[static_cast<std::size_t>(q)];
           at < offsets[static_cast<std::size_t>(q) + 1]; at += sizeof(std::int64_t)) {
        std::int64_t K = 0;
        std::memcpy(&K, all_keys.data() + at, sizeof K);
        wants.insert(K);
      }
      for (const auto& [key, t] : B.tiles)
        if (wants.count(key[0])) {
          if (q == me)
            b_here.insert(key, t);
          else
            detail::pack_tile(to[static_cast<std::size_t>(q)], key, t);
        }
    }
    const auto got = tr.exchange(to, offsets);
    detail::unpack_tiles(b_here, got, offsets);
  }
  distributed_matrix<T, OutFormat> C{
      {A.shape[0], B.shape[1]}, by_rows, block_matmul<OutFormat>(a_tiles, b_here), "C"};
  if (report) *report = {std::move(candidates), pick, tr.sent() - before, std::move(explain)};
  return C;
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_SPARSE_KERNELS_HPP
