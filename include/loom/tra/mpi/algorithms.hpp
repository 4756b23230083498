// Defines the distributed algorithms over MPI: matmul with the strategy chosen by the cost
// model (or forced), SpMV over row blocks of a CSR matrix, and a dense feed-forward layer
// (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_ALGORITHMS_HPP
#define LOOM_TRA_MPI_ALGORITHMS_HPP

#if __has_include(<mpi.h>)
#  include <loom/core.hpp>
#  include <loom/expr.hpp>
#  include <loom/format.hpp>
#  include <loom/stream.hpp>
#  include <loom/tra/chain.hpp>
#  include <loom/tra/cost.hpp>
#  include <loom/tra/ia/execute.hpp>
#  include <loom/tra/ia/to_string.hpp>
#  include <loom/tra/kernels.hpp>
#  include <loom/tra/mpi/environment.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/plans.hpp>

#  include <algorithm>
#  include <array>
#  include <cstdint>
#  include <optional>
#  include <string>
#  include <vector>

#  include <mpi.h>

namespace loom::tra::mpi {

/// What a distributed matmul did: the strategy, the model's estimate, the bytes this rank sent.
struct matmul_report {
  strategy_cost chosen{};
  double bytes_sent = 0;
  std::string explain;
};

namespace detail {
template <class F> decltype(auto) with_partition(partitioning p, bool left, F&& f) {
  switch (p) {
    case partitioning::rows:
      return f(ia::partitioned<ia::dims<0>>{});
    case partitioning::cols:
      return f(ia::partitioned<ia::dims<1>>{});
    case partitioning::replicated:
      return f(ia::replicated{});
    case partitioning::none:
      break;
  }
  (void)left;
  return f(ia::arbitrary{});
}
}  // namespace detail

/// Where a distributed result ends up.
enum class result_on {
  every_rank,  ///< all-gathered: the whole result on every rank
  owner_rank   ///< each rank keeps the tuples it computed (the plan's output partition)
};

/// C = X Y over the ranks of the transport. X (key <i,k>) and Y (key <k,j>) are given whole on
/// every rank and placed as `xp` / `yp` say; the strategy is the cost model's choice unless
/// `force` names one.
template <class T>
relation<T, 2, 2> matmul(const transport& tr, const relation<T, 2, 2>& X,
                         const relation<T, 2, 2>& Y, cost_model cm,
                         partitioning xp = partitioning::none, partitioning yp = partitioning::none,
                         std::optional<matmul_strategy> force = std::nullopt,
                         matmul_report* report = nullptr, result_on where = result_on::every_rank) {
  cm.sites = tr.sites();
  matmul_shape sh{X.bounds()[0],
                  X.bounds()[1],
                  Y.bounds()[1],
                  X.tile_shape()[0],
                  X.tile_shape()[1],
                  Y.tile_shape()[1],
                  xp,
                  yp};
  strategy_cost c = force ? estimate(cm, sh, *force) : choose(cm, sh);
  const double before = tr.moved();
  std::string plan_text;
  auto result = detail::with_partition(xp, true, [&](auto px) {
    return detail::with_partition(yp, false, [&](auto py) {
      return with_matmul_plan<decltype(px), decltype(py)>(c.strategy, [&](auto plan) {
        plan_text = ia::to_string<decltype(plan)>();
        auto mine = ia::execute<decltype(plan)>(tr, X, Y);
        return where == result_on::every_rank ? tr.collect(mine) : mine;
      });
    });
  });
  if (report) *report = {c, tr.moved() - before, explain(cm, sh) + "plan: " + plan_text + "\n"};
  return result;
}

/// X0 X1 ... Xn-1 over the ranks, each given whole on every rank and placed as `placed` says
/// (none by default): the plan from `plan_chain` (association order and each product's strategy),
/// each product run by `matmul` with its strategy and all-gathered for the next. The plan is
/// returned through `plan` when given. The result is on every rank.
template <class T>
relation<T, 2, 2> matmul_chain(const transport& tr, const std::vector<relation<T, 2, 2>>& xs,
                               cost_model cm, const std::vector<partitioning>& placed = {},
                               chain_plan* plan = nullptr) {
  cm.sites = tr.sites();
  std::vector<chain_operand> ops;
  for (std::size_t k = 0; k < xs.size(); ++k)
    ops.push_back(operand_of(xs[k], k < placed.size() ? placed[k] : partitioning::none));
  const chain_plan p = plan_chain(cm, ops);
  if (plan) *plan = p;
  return run_chain(xs, p, [&](const chain_step& s, const auto& l, const auto& r) {
    const partitioning px = s.mid - s.lo == 1 ? ops[s.lo].placed : partitioning::replicated;
    const partitioning py = s.hi - s.mid == 1 ? ops[s.mid].placed : partitioning::replicated;
    return matmul(tr, l, r, cm, px, py, s.cost.strategy);
  });
}

/// y = A x for a CSR matrix given whole on every rank: rank r multiplies its block of rows (a
/// loom CSR view over A's arrays, zero copies) by x (the broadcast side) and the blocks are
/// all-gathered, so every rank returns the whole y.
template <class T>
std::vector<T> spmv(const transport& tr, const loom::tensor<T, loom::csr>& A,
                    const std::vector<T>& x) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  const std::int64_t m = A.shape()[0], n = A.shape()[1];
  if (static_cast<std::int64_t>(x.size()) != n)
    throw shape_error("loom::tra::mpi::spmv: x has " + std::to_string(x.size()) +
                      " entries for a matrix with " + std::to_string(n) + " columns");
  const std::int64_t s = tr.sites(), r = tr.rank();
  const std::int64_t lo = m * r / s, hi = m * (r + 1) / s;
  const auto& pos = A.template level<1>().pos;
  const auto& crd = A.template level<1>().crd;
  using Pos = std::remove_cvref_t<decltype(pos[0])>;
  std::vector<Pos> block_pos(static_cast<std::size_t>(hi - lo + 1));
  for (std::int64_t q = lo; q <= hi; ++q)
    block_pos[static_cast<std::size_t>(q - lo)] =
        pos[static_cast<std::size_t>(q)] - pos[static_cast<std::size_t>(lo)];
  const auto first = static_cast<std::size_t>(pos[static_cast<std::size_t>(lo)]);
  const auto count = static_cast<std::size_t>(pos[static_cast<std::size_t>(hi)]) - first;
  auto vals = A.values();
  auto block = loom::csr_view<const T, Pos, std::remove_cvref_t<decltype(crd[0])>>(
      hi - lo, n, block_pos, std::span(crd.data() + first, count),
      std::span<const T>(vals.data() + first, count));
  auto xv = loom::dense_vector_view<const T>(std::span<const T>(x));
  std::vector<T> y_block(static_cast<std::size_t>(hi - lo));
  auto yv = loom::dense_vector_view<T>(std::span<T>(y_block));
  yv(i) = loom::sum(j, block(i, j) * xv(j));
  // gather the blocks in rank order
  std::vector<int> counts(static_cast<std::size_t>(s)), displs(static_cast<std::size_t>(s));
  for (std::int64_t q = 0; q < s; ++q) {
    counts[static_cast<std::size_t>(q)] =
        detail::as_count(static_cast<std::size_t>(m * (q + 1) / s - m * q / s) * sizeof(T), "y");
    displs[static_cast<std::size_t>(q)] =
        detail::as_count(static_cast<std::size_t>(m * q / s) * sizeof(T), "y");
  }
  std::vector<T> y(static_cast<std::size_t>(m));
  check(MPI_Allgatherv(y_block.data(), counts[static_cast<std::size_t>(r)], MPI_BYTE, y.data(),
                       counts.data(), displs.data(), MPI_BYTE, tr.comm()),
        "MPI_Allgatherv");
  return y;
}

/// One dense layer H = relu(X W + b), data-parallel: X (key <i,k>, a batch of rows) stays
/// row-partitioned, W (key <k,j>) is broadcast (the broadcast-right plan: ⋈ᴸ and Σᴸ are local,
/// no shuffle), then a local map adds the bias tile of column block j and applies relu.
/// `bias` holds one tile of shape (1, tile columns) per column block, under key <0, j>.
template <class T>
relation<T, 2, 2> dense_layer(const transport& tr, const relation<T, 2, 2>& X,
                              const relation<T, 2, 2>& W, const relation<T, 2, 2>& bias) {
  using plan = typename matmul_plans<ia::partitioned<ia::dims<0>>, ia::arbitrary>::broadcast_right;
  static_assert(std::is_same_v<ia::partition_t<plan>, ia::partitioned<ia::dims<0>>>,
                "loom internal error: the data-parallel layer must not shuffle; please report");
  const auto Z = ia::execute<plan>(tr, X, W);
  relation<T, 2, 2> H(Z.bounds(), Z.tile_shape());
  for (const auto& [key, z] : Z) {
    const auto& b = bias.at({0, key[1]});
    tile<T, 2> h = z;
    for (std::int64_t p = 0; p < h.extent(0); ++p)
      for (std::int64_t q = 0; q < h.extent(1); ++q) h(p, q) = std::max(T(0), h(p, q) + b(0, q));
    H.insert(key, std::move(h));
  }
  return tr.collect(H);
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_ALGORITHMS_HPP
