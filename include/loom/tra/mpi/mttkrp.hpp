// Defines MTTKRP over a distributed sparse 3-tensor (tra/mpi/): A(i, c) = sum(j, k, X(i, j, k) *
// B(j, c) * C(k, c)) with X in slices of i (rows of A all-gathered) or of j or k (that factor
// sliced, partial A reduced); the strategy chosen from estimated bytes and flops, each rank's
// slice computed by loom's fused kernel.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_MTTKRP_HPP
#define LOOM_TRA_MPI_MTTKRP_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/core/index.hpp>
#  include <loom/exec/evaluate.hpp>
#  include <loom/format/format.hpp>
#  include <loom/format/tensor.hpp>
#  include <loom/format/view.hpp>
#  include <loom/tra/cost.hpp>
#  include <loom/tra/mpi/sparse.hpp>
#  include <loom/tra/mpi/sparse_kernels.hpp>
#  include <loom/tra/mpi/sparse_tensor.hpp>
#  include <loom/tra/mpi/transport.hpp>

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

/// MTTKRP: X in slices of i (each rank computes its rows of A, which are all-gathered), of j or
/// of k (each rank gets only its slice of B or C, and the partial A are reduced).
enum class mttkrp_strategy { slices_of_i, slices_of_j, slices_of_k };

/// A = MTTKRP(X, B, C): A(i, c) = sum(j, k, X(i, j, k) * B(j, c) * C(k, c)), whole on every rank,
/// for dense B (X's extent 1 x r) and C (extent 2 x r), on every rank or, with
/// `dense_operand::root_only`, on rank 0 alone (then rank 0 sends each rank the rows of B and C
/// its slice meets). X is moved into the strategy's slices when partitioned otherwise. The
/// cheapest strategy by `cm` unless `force` names one.
template <class T, storage_format Format>
tensor<T, dense_matrix> mttkrp(const transport& tr, const distributed_tensor3<T, Format>& X,
                               const tensor<T, dense_matrix>& B, const tensor<T, dense_matrix>& C,
                               const cost_model& cm = {},
                               dense_operand where = dense_operand::every_rank,
                               std::optional<mttkrp_strategy> force = std::nullopt,
                               sparse_report* report = nullptr) {
  constexpr loom::index<"tra_i"> i;
  constexpr loom::index<"tra_j"> j;
  constexpr loom::index<"tra_k"> k;
  constexpr loom::index<"tra_c"> c;
  const traffic before = tr.sent();
  const int s = static_cast<int>(tr.sites()), me = tr.rank();
  const bool on_root = where == dense_operand::root_only;
  const auto& shape = X.shape;
  X.partition.check(s, me, shape, "mttkrp of " + X.name);
  std::int64_t r = B.extent(1);  // rank 0's fixes r when it alone holds the factors
  check(MPI_Bcast(&r, 1, MPI_INT64_T, 0, tr.comm()), "MPI_Bcast");
  if ((!on_root || me == 0) && (B.shape() != std::array<std::int64_t, 2>{shape[1], r} ||
                                C.shape() != std::array<std::int64_t, 2>{shape[2], r}))
    throw shape_error("loom::tra::mpi::mttkrp: B is " + std::to_string(B.extent(0)) + " x " +
                      std::to_string(B.extent(1)) + " and C " + std::to_string(C.extent(0)) +
                      " x " + std::to_string(C.extent(1)) + " on rank " + std::to_string(me) +
                      "; " + X.name + " is " + std::to_string(shape[0]) + " x " +
                      std::to_string(shape[1]) + " x " + std::to_string(shape[2]) +
                      ", so they need " + std::to_string(shape[1]) + " x r and " +
                      std::to_string(shape[2]) + " x r with the same r");

  // per strategy (mode d of the slices): the partition, the rows of B and C rank q needs, bytes
  std::array<slice_partition, 3> parts{X.partition, X.partition, X.partition};
  for (int d = 0; d < 3; ++d)
    if (X.partition.mode() != d)
      parts[static_cast<std::size_t>(d)] =
          slice_partition::balanced(d, shape[static_cast<std::size_t>(d)], s);
  auto factor_rows = [&](int d, int q) -> std::array<std::array<std::int64_t, 2>, 2> {
    const auto range = parts[static_cast<std::size_t>(d)].range_of(q);
    if (range[0] == range[1]) return {};  // an empty slice needs nothing
    return {d == 1 ? range : std::array<std::int64_t, 2>{0, shape[1]},
            d == 2 ? range : std::array<std::int64_t, 2>{0, shape[2]}};
  };
  const std::int64_t nnz = detail::allreduce_sum(X.local.nnz(), tr.comm());
  const double value = static_cast<double>(sizeof(T)), rd = static_cast<double>(r);
  const double m = static_cast<double>(shape[0]), peers = static_cast<double>(s - 1);
  std::vector<strategy_estimate> candidates;
  for (int d = 0; d < 3; ++d) {
    const auto& part = parts[static_cast<std::size_t>(d)];
    const auto moved =
        static_cast<double>(detail::allreduce_sum(entries_leaving(tr, X, part), tr.comm()) *
                            static_cast<std::int64_t>(entry_bytes<T>));
    double factors = 0;
    for (int q = 1; q < s && on_root; ++q) {
      const auto f = factor_rows(d, q);
      factors += static_cast<double>(f[0][1] - f[0][0] + f[1][1] - f[1][0]) * rd * value;
    }
    // rows of A: an all-gather of each rank's rows, or a reduce-scatter then an all-gather
    double result = 0;
    if (d == 0)
      for (int q = 0; q < s; ++q) {
        const auto range = part.range_of(q);
        result += static_cast<double>(range[1] - range[0]) * rd * value * peers;
      }
    else
      result = 2 * m * rd * value * peers;
    const double flops = 3.0 * static_cast<double>(nnz) * rd + (d == 0 ? 0 : m * rd * peers);
    const char* mode = d == 0 ? "i" : d == 1 ? "j" : "k";
    candidates.push_back({std::string("X in slices of ") + mode +
                              (on_root ? std::string(", ") +
                                             (d == 1   ? "slices of B and all of C"
                                              : d == 2 ? "all of B and slices of C"
                                                       : "all of B and C") +
                                             " from rank 0"
                                       : std::string()) +
                              (d == 0 ? ", rows of A all-gathered" : ", partial A reduced"),
                          moved + factors + result, flops});
  }
  std::string explain;
  const std::size_t pick = detail::choose_strategy(
      candidates, cm,
      force ? std::optional<std::size_t>(static_cast<std::size_t>(*force)) : std::nullopt,
      "distributed mttkrp: '" + X.name + "' " + std::to_string(shape[0]) + " x " +
          std::to_string(shape[1]) + " x " + std::to_string(shape[2]) + " (" + std::to_string(nnz) +
          " entries, " + X.partition.describe() + "), r = " + std::to_string(r) + ", B and C " +
          (on_root ? "on rank 0" : "on every rank") + ", " + std::to_string(s) + " ranks",
      explain);
  const int d = static_cast<int>(pick);
  const auto& part = parts[pick];
  std::optional<distributed_tensor3<T, Format>> moved;
  if (X.partition.mode() != d) moved = redistribute_slices(tr, X, part);
  const auto& local = moved ? moved->local : X.local;

  std::vector<T> b_all(static_cast<std::size_t>(shape[1] * r), T(0));
  std::vector<T> c_all(static_cast<std::size_t>(shape[2] * r), T(0));
  std::vector<std::array<std::array<std::int64_t, 2>, 2>> wanted;
  for (int q = 0; q < s; ++q) wanted.push_back(factor_rows(d, q));
  const auto bs = B.values(), cs = C.values();
  detail::spread_factors(tr, std::vector<T>(bs.begin(), bs.end()),
                         std::vector<T>(cs.begin(), cs.end()), r, on_root,
                         wanted[static_cast<std::size_t>(me)], wanted, b_all, c_all);
  std::vector<T> partial(static_cast<std::size_t>(shape[0] * r), T(0));
  {
    auto bv = loom::dense_matrix_view<const T>(shape[1], r, std::span<const T>(b_all));
    auto cv = loom::dense_matrix_view<const T>(shape[2], r, std::span<const T>(c_all));
    auto av = loom::dense_matrix_view<T>(shape[0], r, std::span<T>(partial));
    av(i, c) += loom::sum(j, k, local(i, j, k) * bv(j, c) * cv(k, c));
  }
  tensor<T, dense_matrix> A({shape[0], r});
  if (d == 0) {  // this rank's rows, then every rank's in rank order, which is row order
    const auto range = part.range_of(me);
    std::vector<std::size_t> offsets;
    const auto all = tr.allgather(detail::rows_bytes(partial, range[0], range[1], r), offsets);
    if (!all.empty()) std::memcpy(A.values().data(), all.data(), all.size());
  } else {
    const detail::dense_product_shape sh{shape[0], shape[0], r, {1, 1}, {shape[0], shape[0]}};
    const auto y = detail::reduce_partials(tr, partial, sh);
    std::copy(y.begin(), y.end(), A.values().begin());
  }
  if (report) *report = {std::move(candidates), pick, tr.sent() - before, std::move(explain)};
  return A;
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_MTTKRP_HPP
