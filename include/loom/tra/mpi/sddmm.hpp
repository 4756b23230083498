// Defines SDDMM over a distributed sparse matrix (tra/mpi/): C = S ∘ (U Vᵀ), S in row blocks with
// all of V, or S in a 2-D grid of ranks with only the slices of U and V its block meets; the
// strategy chosen from estimated bytes and flops, each tile computed by loom's fused kernel.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_SDDMM_HPP
#define LOOM_TRA_MPI_SDDMM_HPP

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
#  include <loom/tra/mpi/sparse_kernels.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <algorithm>
#  include <array>
#  include <cstddef>
#  include <cstdint>
#  include <cstring>
#  include <optional>
#  include <span>
#  include <string>
#  include <vector>

#  include <mpi.h>

namespace loom::tra::mpi {

/// SDDMM: S in row blocks, each rank with all of V and its rows of U; or S in a 2-D grid of
/// ranks, each rank with the rows of U of its block row and the rows of V of its block column.
enum class sddmm_strategy { row_blocks, grid };

namespace detail {
// The rows of U and of V that rank q's tiles of S meet under `part` (row blocks or a grid):
// {{first, last) of U, [first, last) of V}; both empty when q owns no tile.
inline std::array<std::array<std::int64_t, 2>, 2> sddmm_factor_rows(
    const tile_partition& part, int q, const std::array<std::int64_t, 2>& bounds,
    const std::array<std::int64_t, 2>& tile, const std::array<std::int64_t, 2>& shape) {
  std::array<std::int64_t, 2> I{}, J{};
  if (part.layout() == tile_layout::row_blocks) {
    I = part.range_of(q, bounds[0]);
    J = {0, bounds[1]};
  } else {  // a grid: block row q / pc, block column q % pc, balanced like its owner()
    const int pr = part.grid_rows(), pc = part.ranks() / pr;
    const std::int64_t a = q / pc, b = q % pc;
    I = {bounds[0] * a / pr, bounds[0] * (a + 1) / pr};
    J = {bounds[1] * b / pc, bounds[1] * (b + 1) / pc};
  }
  if (I[0] == I[1] || J[0] == J[1]) return {};
  auto rows = [&](const std::array<std::int64_t, 2>& r, std::size_t d) {
    return std::array<std::int64_t, 2>{std::min(r[0] * tile[d], shape[d]),
                                       std::min(r[1] * tile[d], shape[d])};
  };
  return {rows(I, 0), rows(J, 1)};
}

}  // namespace detail

/// C = S ∘ (U Vᵀ): C(i, j) = S(i, j) * sum(c, U(i, c) * V(j, c)) at the stored entries of S, for
/// dense U (S's rows x r) and V (S's columns x r), tensors in `dense_matrix` on every rank or,
/// with `dense_operand::root_only`, on rank 0 alone. C's tiles are in `OutFormat`, with S's keys,
/// on the ranks of the partition the strategy ran in (row blocks, or a grid of ranks); S is
/// moved there first when partitioned otherwise. The cheaper strategy by `cm` unless `force`.
template <storage_format OutFormat, class T, storage_format Format>
distributed_matrix<T, OutFormat> sddmm(const transport& tr, const distributed_matrix<T, Format>& S,
                                       const tensor<T, dense_matrix>& U,
                                       const tensor<T, dense_matrix>& V, const cost_model& cm = {},
                                       dense_operand where = dense_operand::every_rank,
                                       std::optional<sddmm_strategy> force = std::nullopt,
                                       sparse_report* report = nullptr) {
  constexpr loom::index<"tra_i"> i;
  constexpr loom::index<"tra_j"> j;
  constexpr loom::index<"tra_c"> c;
  const traffic before = tr.sent();
  const int s = static_cast<int>(tr.sites()), me = tr.rank();
  const bool on_root = where == dense_operand::root_only;
  const auto bounds = S.tiles.bounds();
  const auto ts = S.tiles.tile_shape();
  S.partition.check(s, me, bounds, "sddmm of " + S.name);
  // every rank must agree on r, which rank 0's factors fix when it alone holds them
  std::int64_t r = U.extent(1);
  check(MPI_Bcast(&r, 1, MPI_INT64_T, 0, tr.comm()), "MPI_Bcast");
  if ((!on_root || me == 0) && (U.shape() != std::array<std::int64_t, 2>{S.shape[0], r} ||
                                V.shape() != std::array<std::int64_t, 2>{S.shape[1], r}))
    throw shape_error("loom::tra::mpi::sddmm: U is " + std::to_string(U.extent(0)) + " x " +
                      std::to_string(U.extent(1)) + " and V " + std::to_string(V.extent(0)) +
                      " x " + std::to_string(V.extent(1)) + " on rank " + std::to_string(me) +
                      "; " + S.name + " is " + std::to_string(S.shape[0]) + " x " +
                      std::to_string(S.shape[1]) + ", so they need " + std::to_string(S.shape[0]) +
                      " x r and " + std::to_string(S.shape[1]) + " x r with the same r");
  const tile_partition by_rows = detail::one_d(S.partition, tile_layout::row_blocks, s);
  const tile_partition by_grid =
      S.partition.layout() == tile_layout::grid ? S.partition : tile_partition::grid(s);
  const std::int64_t nnz = global_nnz(tr, S);
  // the factor rows each rank gets from rank 0 in each strategy: exact, from the partitions
  auto wanted = [&](const tile_partition& part) {
    std::vector<std::array<std::array<std::int64_t, 2>, 2>> w;
    for (int q = 0; q < s; ++q)
      w.push_back(detail::sddmm_factor_rows(part, q, bounds, ts, S.shape));
    return w;
  };
  const auto want_rows = wanted(by_rows), want_grid = wanted(by_grid);
  auto factor_bytes = [&](const std::vector<std::array<std::array<std::int64_t, 2>, 2>>& w) {
    double rows = 0;
    for (int q = 1; q < s && on_root; ++q) {
      const auto& f = w[static_cast<std::size_t>(q)];
      rows += static_cast<double>(f[0][1] - f[0][0] + f[1][1] - f[1][0]);
    }
    return rows * static_cast<double>(r) * static_cast<double>(sizeof(T));
  };
  const auto to_rows =
      static_cast<double>(detail::allreduce_sum(bytes_leaving(tr, S, by_rows), tr.comm()));
  const auto to_grid =
      static_cast<double>(detail::allreduce_sum(bytes_leaving(tr, S, by_grid), tr.comm()));
  const double flops = 2.0 * static_cast<double>(nnz) * static_cast<double>(r);
  std::vector<strategy_estimate> candidates{
      {std::string("S in row blocks") + (on_root ? ", rows of U and all of V from rank 0" : ""),
       to_rows + factor_bytes(want_rows), flops},
      {"S in a " + by_grid.describe() + (on_root ? ", slices of U and V from rank 0" : ""),
       to_grid + factor_bytes(want_grid), flops}};
  std::string explain;
  const std::size_t pick = detail::choose_strategy(
      candidates, cm,
      force ? std::optional<std::size_t>(static_cast<std::size_t>(*force)) : std::nullopt,
      "distributed sddmm: " + detail::describe(S, nnz) + ", r = " + std::to_string(r) +
          ", U and V " + (on_root ? "on rank 0" : "on every rank") + ", " + std::to_string(s) +
          " ranks",
      explain);
  const bool rows = pick == static_cast<std::size_t>(sddmm_strategy::row_blocks);
  const tile_partition& part = rows ? by_rows : by_grid;
  std::optional<distributed_matrix<T, Format>> moved;
  if (S.partition.layout() != part.layout()) moved = redistribute(tr, S, part);
  const auto& tiles = moved ? moved->tiles : S.tiles;

  const auto& w = rows ? want_rows : want_grid;
  std::vector<T> u_pad(static_cast<std::size_t>(bounds[0] * ts[0] * r), T(0));
  std::vector<T> v_pad(static_cast<std::size_t>(bounds[1] * ts[1] * r), T(0));
  const auto us = U.values(), vs = V.values();
  detail::spread_factors(tr, std::vector<T>(us.begin(), us.end()),
                         std::vector<T>(vs.begin(), vs.end()), r, on_root,
                         w[static_cast<std::size_t>(me)], w, u_pad, v_pad);
  distributed_matrix<T, OutFormat> C{S.shape, part, sparse_relation<T, OutFormat>(bounds, ts), "C"};
  for (const auto& [key, t] : tiles) {
    const std::span<const T> u_block(u_pad.data() + key[0] * ts[0] * r,
                                     static_cast<std::size_t>(ts[0] * r));
    const std::span<const T> v_block(v_pad.data() + key[1] * ts[1] * r,
                                     static_cast<std::size_t>(ts[1] * r));
    auto uv = loom::dense_matrix_view<const T>(ts[0], r, u_block);
    auto vv = loom::dense_matrix_view<const T>(ts[1], r, v_block);
    tensor<T, OutFormat> out(std::array<std::int64_t, 2>{ts[0], ts[1]});
    out(i, j) = loom::sum(c, t(i, j) * uv(i, c) * vv(j, c));
    C.tiles.insert(key, std::move(out));
  }
  if (report) *report = {std::move(candidates), pick, tr.sent() - before, std::move(explain)};
  return C;
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_SDDMM_HPP
