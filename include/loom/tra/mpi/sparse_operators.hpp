// Defines the TRA's data movements and plans over distributed sparse tiles (tra/mpi/): BCAST and
// SHUF of a distributed_matrix (tiles move in their compact form), SHUF with Σ on arrival, the
// four strategies of a product planned from nnz statistics, a planned chain of products, and the
// two-operand einsum plans run on sparse tiles.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_SPARSE_OPERATORS_HPP
#define LOOM_TRA_MPI_SPARSE_OPERATORS_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/format.hpp>
#  include <loom/format/tensor.hpp>
#  include <loom/tra/chain.hpp>
#  include <loom/tra/cost.hpp>
#  include <loom/tra/einsum_plans.hpp>
#  include <loom/tra/mpi/partition.hpp>
#  include <loom/tra/mpi/sparse.hpp>
#  include <loom/tra/mpi/sparse_kernels.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/mpi/wire.hpp>
#  include <loom/tra/sparse_einsum.hpp>
#  include <loom/tra/sparse_operators.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <array>
#  include <cstddef>
#  include <cstdint>
#  include <optional>
#  include <set>
#  include <span>
#  include <string>
#  include <utility>
#  include <vector>

#  include <mpi.h>

namespace loom::tra::mpi {

/// BCAST: every tile of A on every rank (an all-gather of the compact tiles).
template <class T, storage_format Format>
sparse_relation<T, Format> bcast(const transport& tr, const distributed_matrix<T, Format>& A) {
  return gather(tr, A);
}

/// SHUF on key positions `on` (0 = tile row, 1 = tile column): each tile to rank
/// `tile_partition::cyclic(ranks, on)`'s owner, the rank the IA's SHUF<on> gives a dense tile of
/// the same key. SHUF by blocks is `redistribute` to row or column blocks.
template <class T, storage_format Format>
distributed_matrix<T, Format> shuffle(const transport& tr, const distributed_matrix<T, Format>& A,
                                      std::vector<std::size_t> on) {
  return redistribute(tr, A, tile_partition::cyclic(tr.sites(), std::move(on)));
}

/// SHUF then Σᴸ: this rank's tiles (partial sums, keys possibly on several ranks) sent to their
/// owners under `to`, where the tiles of one key are summed (sparse_mat_add) into `Out`.
template <storage_format Out, class T, storage_format Format>
sparse_relation<T, Out> shuffle_sum(const transport& tr, const sparse_relation<T, Format>& mine,
                                    const tile_partition& to) {
  const auto& bounds = mine.bounds();
  sparse_relation<T, Out> out(bounds, mine.tile_shape());
  const sparse_mat_add<Out> add_op;
  std::vector<std::vector<char>> outgoing(static_cast<std::size_t>(tr.sites()));
  for (const auto& [key, t] : mine) {
    const int owner = to.owner(key, bounds);
    if (owner == tr.rank())
      tra::detail::merge_tile(out, key, t, add_op);
    else
      detail::pack_tile(outgoing[static_cast<std::size_t>(owner)], key, t);
  }
  std::vector<std::size_t> offsets;
  const auto incoming = tr.exchange(outgoing, offsets);
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    detail::byte_reader in{
        std::span<const char>(incoming.data() + offsets[r], offsets[r + 1] - offsets[r]), 0,
        static_cast<int>(r)};
    while (!in.done()) {
      auto [key, t] = detail::unpack_tile<T, Format>(in, mine.tile_shape());
      tra::detail::merge_tile(out, key, t, add_op);
    }
  }
  return out;
}

/// One operand of a distributed sparse product: this rank's tiles of a distributed_matrix, or
/// the whole matrix on every rank (`whole`: a broadcast of it moves nothing).
template <class T, storage_format Format> struct sparse_operand {
  const sparse_relation<T, Format>* tiles = nullptr;
  tile_partition partition = tile_partition::row_blocks(1);
  bool whole = false;
  std::array<std::int64_t, 2> shape{};
};
template <class T, storage_format Format>
sparse_operand<T, Format> operand(const distributed_matrix<T, Format>& A) {
  return {&A.tiles, A.partition, false, A.shape};
}
template <class T, storage_format Format>
sparse_operand<T, Format> operand(const sparse_relation<T, Format>& whole,
                                  const std::array<std::int64_t, 2>& shape, int ranks) {
  return {&whole, tile_partition::row_blocks(ranks), true, shape};
}

namespace detail {
// The cost model's reading of a partition: on tile rows, on tile columns, or neither.
inline partitioning placed_as(const tile_partition& p) {
  if (p.layout() == tile_layout::row_blocks ||
      (p.layout() == tile_layout::cyclic && p.key_positions() == std::vector<std::size_t>{0}))
    return partitioning::rows;
  if (p.layout() == tile_layout::col_blocks ||
      (p.layout() == tile_layout::cyclic && p.key_positions() == std::vector<std::size_t>{1}))
    return partitioning::cols;
  return partitioning::none;
}

// Statistics every rank agrees on: this rank's, summed over the ranks unless the operand is
// whole here (a few vectors of tile-row counts, not counted as traffic).
template <class T, storage_format Format>
sparse_stats global_stats(const transport& tr, const sparse_operand<T, Format>& x) {
  sparse_stats s =
      stats_of(*x.tiles, x.shape, x.whole ? partitioning::replicated : placed_as(x.partition));
  if (x.whole || tr.sites() == 1) return s;
  std::vector<double> all;
  for (const auto* v : {&s.row_nnz, &s.col_nnz, &s.row_tiles, &s.col_tiles})
    all.insert(all.end(), v->begin(), v->end());
  all.insert(all.end(), {s.nnz, s.tiles, s.bytes});
  check(MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_SUM,
                      tr.comm()),
        "MPI_Allreduce");
  std::size_t at = 0;
  for (auto* v : {&s.row_nnz, &s.col_nnz, &s.row_tiles, &s.col_tiles})
    for (auto& e : *v) e = all[at++];
  s.nnz = all[at];
  s.tiles = all[at + 1];
  s.bytes = all[at + 2];
  return s;
}

// The tiles of x on this rank under `to`: a filter when x is whole here, nothing when it already
// is, else a redistribution (its compact tiles move).
template <class T, storage_format Format>
sparse_relation<T, Format> placed(const transport& tr, const sparse_operand<T, Format>& x,
                                  const tile_partition& to) {
  const auto& b = x.tiles->bounds();
  if (x.whole ||
      (x.partition.layout() == to.layout() && x.partition.key_positions() == to.key_positions() &&
       to.cuts().empty() && x.partition.cuts().empty())) {
    if (!x.whole) return *x.tiles;
    sparse_relation<T, Format> out(b, x.tiles->tile_shape());
    for (const auto& [key, t] : *x.tiles)
      if (to.owner(key, b) == tr.rank()) out.insert(key, t);
    return out;
  }
  return redistribute(tr, distributed_matrix<T, Format>{x.shape, x.partition, *x.tiles, "X"}, to)
      .tiles;
}

// Every rank's copy of x (BCAST), or x itself when whole here.
template <class T, storage_format Format>
sparse_relation<T, Format> everywhere(const transport& tr, const sparse_operand<T, Format>& x) {
  if (x.whole) return *x.tiles;
  return gather(tr, distributed_matrix<T, Format>{x.shape, x.partition, *x.tiles, "X"});
}

// Sends each tile of x to every rank in owners(key) (the duplication of the replicated 3-D
// strategy); x's tiles for this rank, from x itself when whole here.
template <class T, storage_format Format, class Owners>
sparse_relation<T, Format> replicate_to(const transport& tr, const sparse_operand<T, Format>& x,
                                        Owners&& owners) {
  sparse_relation<T, Format> out(x.tiles->bounds(), x.tiles->tile_shape());
  std::vector<std::vector<char>> outgoing(static_cast<std::size_t>(tr.sites()));
  for (const auto& [key, t] : *x.tiles)
    for (const int q : owners(key)) {
      if (q == tr.rank())
        out.insert(key, t);
      else if (!x.whole)
        pack_tile(outgoing[static_cast<std::size_t>(q)], key, t);
    }
  if (x.whole) return out;
  std::vector<std::size_t> offsets;
  const auto incoming = tr.exchange(outgoing, offsets);
  unpack_tiles(out, incoming, offsets);
  return out;
}
}  // namespace detail

/// C = A B over distributed sparse tiles by the strategy the cost model picks from the operands'
/// nnz statistics (or `force`): BCAST of A with B where it is, BCAST of B with A where it is,
/// both SHUF on the inner key (cross product), or both duplicated and SHUF on the output key
/// (replicated 3-D); each rank's tile products are the fused loom kernel (join_aggregate), and
/// partial sums of one output tile go to its owner and are added there (shuffle_sum). C keeps
/// the partition the strategy leaves (B's column partition, A's row partition, or the output
/// keys modulo the ranks). `report` has every strategy's estimate and what this rank sent.
template <storage_format Out, class T, storage_format FA, storage_format FB>
distributed_matrix<T, Out> sparse_matmul(const transport& tr, const sparse_operand<T, FA>& A,
                                         const sparse_operand<T, FB>& B, cost_model cm,
                                         std::optional<matmul_strategy> force = std::nullopt,
                                         sparse_report* report = nullptr) {
  const traffic before = tr.sent();
  const int s = static_cast<int>(tr.sites()), me = tr.rank();
  const auto& ab = A.tiles->bounds();
  const auto& bb = B.tiles->bounds();
  if (A.shape[1] != B.shape[0] || ab[1] != bb[0] ||
      A.tiles->tile_shape()[1] != B.tiles->tile_shape()[0])
    throw shape_error("loom::tra::mpi::sparse_matmul: A is " + std::to_string(A.shape[0]) + " x " +
                      std::to_string(A.shape[1]) + " in tiles of " +
                      std::to_string(A.tiles->tile_shape()[1]) + " columns, B is " +
                      std::to_string(B.shape[0]) + " x " + std::to_string(B.shape[1]) +
                      " in tiles of " + std::to_string(B.tiles->tile_shape()[0]) + " rows");
  if (!A.whole) A.partition.check(s, me, ab, "sparse_matmul of A");
  if (!B.whole) B.partition.check(s, me, bb, "sparse_matmul of B");
  cm.sites = s;
  const sparse_stats sa = detail::global_stats(tr, A), sb = detail::global_stats(tr, B);
  const auto e = estimate_product(cm, sa, sb);
  const matmul_sizes sizes = sparse_matmul_sizes(e, sa, sb);
  std::vector<strategy_estimate> candidates;
  for (const matmul_strategy st : all_matmul_strategies) {
    const strategy_cost c = estimate(cm, sizes, st);
    candidates.push_back({std::string(name(st)), c.cn, c.cc, c.total});
  }
  std::string explain;
  const std::size_t pick = detail::choose_strategy(
      candidates, cm,
      force ? std::optional<std::size_t>(static_cast<std::size_t>(*force)) : std::nullopt,
      "distributed sparse matmul: A " + std::to_string(A.shape[0]) + " x " +
          std::to_string(A.shape[1]) + " (" + detail::number(sa.nnz) + " entries, " +
          (A.whole ? std::string("on every rank") : A.partition.describe()) + "), B " +
          std::to_string(B.shape[0]) + " x " + std::to_string(B.shape[1]) + " (" +
          detail::number(sb.nnz) + " entries, " +
          (B.whole ? std::string("on every rank") : B.partition.describe()) + "), " +
          std::to_string(s) + " ranks; estimated product " + detail::number(e.out.nnz) + " entries",
      explain);
  const matmul_strategy st = all_matmul_strategies[pick];

  const std::array<std::int64_t, 2> cb{ab[0], bb[1]};
  const shape_t<2> cts{A.tiles->tile_shape()[0], B.tiles->tile_shape()[1]};
  const std::array<std::size_t, 1> jl{1}, jr{0};
  const std::array<std::size_t, 2> gbk{0, 2};
  const tile_partition by_output = tile_partition::cyclic(s, {0, 1});
  auto multiply = [&](const auto& l, const auto& r, auto&& keep) {
    sparse_relation<T, Out> c(cb, cts);
    tra::detail::accumulate_products(c, l, r, jl, jr, gbk, keep);
    return c;
  };
  auto all_keys = [](const auto&) { return true; };
  distributed_matrix<T, Out> C{
      {A.shape[0], B.shape[1]}, by_output, sparse_relation<T, Out>(cb, cts), "C"};
  switch (st) {
    case matmul_strategy::broadcast_left:
    case matmul_strategy::broadcast_right: {
      const bool left = st == matmul_strategy::broadcast_left;
      // the side that stays: whole here, it is cut by its outer key so that output groups are
      // complete on one rank; partitioned on its outer key, they already are
      const tile_partition outer = tile_partition::cyclic(s, {left ? 1u : 0u});
      const tile_partition& stays_part = left ? B.partition : A.partition;
      const bool stays_whole = left ? B.whole : A.whole;
      const partitioning want = left ? partitioning::cols : partitioning::rows;
      const bool complete = stays_whole || detail::placed_as(stays_part) == want;
      if (left) {
        const auto a_all = detail::everywhere(tr, A);
        const auto b_here = B.whole ? detail::placed(tr, B, outer) : *B.tiles;
        C.tiles = multiply(a_all, b_here, all_keys);
      } else {
        const auto b_all = detail::everywhere(tr, B);
        const auto a_here = A.whole ? detail::placed(tr, A, outer) : *A.tiles;
        C.tiles = multiply(a_here, b_all, all_keys);
      }
      if (complete)
        C.partition = stays_whole ? outer : stays_part;
      else
        C.tiles = shuffle_sum<Out>(tr, C.tiles, by_output);
      break;
    }
    case matmul_strategy::cross_product: {
      // both on the inner key K: A's columns and B's rows, one owner per K
      const bool in_place = !A.whole && !B.whole &&
                            detail::placed_as(A.partition) == partitioning::cols &&
                            detail::placed_as(B.partition) == partitioning::rows && [&] {
                              for (std::int64_t k = 0; k < ab[1]; ++k)
                                if (A.partition.owner({0, k}, ab) != B.partition.owner({k, 0}, bb))
                                  return false;
                              return true;
                            }();
      if (in_place) {
        C.tiles = multiply(*A.tiles, *B.tiles, all_keys);
      } else {
        const auto a_k = detail::placed(tr, A, tile_partition::cyclic(s, {1}));
        const auto b_k = detail::placed(tr, B, tile_partition::cyclic(s, {0}));
        C.tiles = multiply(a_k, b_k, all_keys);
      }
      C.tiles = shuffle_sum<Out>(tr, C.tiles, by_output);
      break;
    }
    case matmul_strategy::replicated_3d: {
      // A's tile (I, K) to the owners of every (I, J), B's (K, J) to those of every (I, J)
      auto owners_of_row = [&](const auto& key) {
        std::set<int> q;
        for (std::int64_t j = 0; j < cb[1]; ++j) q.insert(by_output.owner({key[0], j}, cb));
        return q;
      };
      auto owners_of_col = [&](const auto& key) {
        std::set<int> q;
        for (std::int64_t i = 0; i < cb[0]; ++i) q.insert(by_output.owner({i, key[1]}, cb));
        return q;
      };
      const auto a_here = detail::replicate_to(tr, A, owners_of_row);
      const auto b_here = detail::replicate_to(tr, B, owners_of_col);
      C.tiles = multiply(a_here, b_here, [&](const std::array<std::int64_t, 2>& key) {
        return by_output.owner(key, cb) == me;
      });
      break;
    }
  }
  if (report) *report = {std::move(candidates), pick, tr.sent() - before, std::move(explain)};
  return C;
}

/// C = A B for two distributed matrices (see the sparse_operand overload).
template <storage_format Out, class T, storage_format FA, storage_format FB>
distributed_matrix<T, Out> sparse_matmul(const transport& tr, const distributed_matrix<T, FA>& A,
                                         const distributed_matrix<T, FB>& B, const cost_model& cm,
                                         std::optional<matmul_strategy> force = std::nullopt,
                                         sparse_report* report = nullptr) {
  return sparse_matmul<Out>(tr, operand(A), operand(B), cm, force, report);
}

/// X0 X1 ... Xn-1 over distributed sparse matrices: the plan of plan_sparse_chain with the ranks
/// as sites, from the operands' statistics summed over the ranks (every rank plans alike), each
/// product run by sparse_matmul with the plan's strategy and all-gathered (the next product reads
/// it whole, as the plan assumes). The product whole on every rank, tiles in `Out`.
template <storage_format Out, class T, storage_format Format>
sparse_relation<T, Out> sparse_matmul_chain(const transport& tr,
                                            const std::vector<distributed_matrix<T, Format>>& xs,
                                            cost_model cm, chain_plan* plan_out = nullptr) {
  if (xs.empty())
    throw shape_error("loom::tra::mpi::sparse_matmul_chain: the chain has no operand");
  cm.sites = tr.sites();
  std::vector<sparse_stats> stats;
  for (const auto& x : xs) stats.push_back(detail::global_stats(tr, operand(x)));
  const chain_plan plan = plan_sparse_chain(cm, stats);
  if (plan_out) *plan_out = plan;
  // the products made so far, whole on every rank, by interval
  std::vector<std::pair<std::array<std::size_t, 2>, sparse_relation<T, Out>>> made;
  auto find = [&](std::size_t lo, std::size_t hi) -> const sparse_relation<T, Out>& {
    for (const auto& [range, r] : made)
      if (range[0] == lo && range[1] == hi) return r;
    throw shape_error("loom::tra::mpi::sparse_matmul_chain: the plan is not the chain's");
  };
  auto shape_of = [&](std::size_t lo, std::size_t hi) {
    return std::array<std::int64_t, 2>{xs[lo].shape[0], xs[hi - 1].shape[1]};
  };
  for (const chain_step& st : plan.steps) {
    auto run = [&](const auto& l, const auto& r) {
      return gather(tr, sparse_matmul<Out>(tr, l, r, cm, st.cost.strategy));
    };
    const int s = static_cast<int>(tr.sites());
    auto product = [&]() {
      const bool l_leaf = st.mid - st.lo == 1, r_leaf = st.hi - st.mid == 1;
      if (l_leaf && r_leaf) return run(operand(xs[st.lo]), operand(xs[st.mid]));
      if (l_leaf)
        return run(operand(xs[st.lo]), operand(find(st.mid, st.hi), shape_of(st.mid, st.hi), s));
      if (r_leaf)
        return run(operand(find(st.lo, st.mid), shape_of(st.lo, st.mid), s), operand(xs[st.mid]));
      return run(operand(find(st.lo, st.mid), shape_of(st.lo, st.mid), s),
                 operand(find(st.mid, st.hi), shape_of(st.mid, st.hi), s));
    }();
    made.push_back({{st.lo, st.hi}, std::move(product)});
  }
  if (xs.size() == 1) {
    const auto all = gather(tr, xs[0]);
    sparse_relation<T, Out> one(all.bounds(), all.tile_shape());
    for (const auto& [key, t] : all) one.insert(key, tensor<T, Out>(t));
    return one;
  }
  return std::move(made.back().second);
}

/// The transpose of a distributed matrix: each rank transposes its own tiles (keys and contents,
/// in their format). From row or column blocks or key positions modulo the ranks no tile moves
/// (the partition becomes its transposed counterpart, tile_partition::transposed); from a grid
/// or hashed keys, the transposed tiles go to their owners under the same kind of partition of
/// the transposed keys, in one all-to-all.
template <class T, storage_format Format>
distributed_matrix<T, Format> transpose(const transport& tr,
                                        const distributed_matrix<T, Format>& A) {
  const auto stays = A.partition.transposed();
  distributed_matrix<T, Format> out{{A.shape[1], A.shape[0]},
                                    stays ? *stays : A.partition,
                                    loom::tra::transpose(A.tiles),
                                    A.name + "^T"};
  if (stays) return out;
  return redistribute(tr, out, A.partition);
}

/// einsum S over distributed sparse tiles, the result's tiles in `Out`: S is a product of two
/// matrices with two letters per side, each in either order ("ij,jk->ik", "ji,jk->ik",
/// "ij,kj->ik", "ji,kj->ik" and each with "->ki"; any letters). choose_einsum's plans are
/// costed from the operands' nnz statistics with the ranks as sites and their placement unknown
/// (ia::arbitrary), the transposes the spec asks for charged (their work, and the tiles
/// mpi::transpose moves from a grid or hashed partition: Cn of one SHUF of that operand); an
/// operand whose letters run the other way is transposed, the cheapest plan (or `force`) runs as
/// sparse_matmul's broadcast left, broadcast right or cross product (the shuffle join), and a
/// transposed output is transposed last. `report` gets the choice, with each plan in the paper's
/// notation.
template <fixed_string S, storage_format Out, class T, storage_format FA, storage_format FB>
distributed_matrix<T, Out> sparse_einsum(const transport& tr, const distributed_matrix<T, FA>& A,
                                         const distributed_matrix<T, FB>& B, cost_model cm,
                                         std::optional<einsum_strategy> force = std::nullopt,
                                         einsum_choice* report = nullptr) {
  cm.sites = tr.sites();
  constexpr auto t = loom::tra::detail::einsum_spec<S>::transposes;
  const sparse_stats sa = detail::global_stats(tr, operand(A)),
                     sb = detail::global_stats(tr, operand(B));
  einsum_choice c = choose_einsum<S>(cm, sa, sb);
  // mpi::transpose of an operand on a grid or hashed keys moves its tiles (one SHUF); from row
  // or column blocks or cyclic keys nothing moves. The output's partition is always one of the
  // latter (sparse_matmul leaves blocks or cyclic keys), so its transpose moves nothing.
  const double transpose_moves = (t.left && !A.partition.transposed() ? cm.shuf(sa.bytes) : 0.0) +
                                 (t.right && !B.partition.transposed() ? cm.shuf(sb.bytes) : 0.0);
  for (std::size_t k = 0; k < c.costs.size(); ++k) {
    einsum_cost& e = c.costs[k];
    e.cn += transpose_moves;
    e.total = cm.total(e.cn, e.cc);
    if (k == 0 || e.total < c.chosen.total) c.chosen = e;
  }
  if (force)
    for (const auto& e : c.costs)
      if (e.strategy == *force) c.chosen = e;
  if (report) *report = c;
  const matmul_strategy st =
      c.chosen.strategy == einsum_strategy::broadcast_left    ? matmul_strategy::broadcast_left
      : c.chosen.strategy == einsum_strategy::broadcast_right ? matmul_strategy::broadcast_right
                                                              : matmul_strategy::cross_product;
  auto product = [&](const auto& a, const auto& b) {
    auto C = sparse_matmul<Out>(tr, operand(a), operand(b), cm, st);
    if constexpr (t.out)
      return transpose(tr, C);
    else
      return C;
  };
  if constexpr (t.left && t.right)
    return product(transpose(tr, A), transpose(tr, B));
  else if constexpr (t.left)
    return product(transpose(tr, A), B);
  else if constexpr (t.right)
    return product(A, transpose(tr, B));
  else
    return product(A, B);
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_SPARSE_OPERATORS_HPP
