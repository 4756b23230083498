// Defines loom::tra::mpi::distributed_matrix, a sparse matrix whose tiles (in any loom format)
// are spread over the ranks by a tile_partition, and the moves of its tiles in their compact
// form: distribute (keep a rank's share), redistribute (one all-to-all), gather (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_SPARSE_HPP
#define LOOM_TRA_MPI_SPARSE_HPP

#if __has_include(<mpi.h>)
#  include <loom/format/format.hpp>
#  include <loom/tra/mpi/environment.hpp>
#  include <loom/tra/mpi/partition.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/mpi/wire.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <array>
#  include <cstddef>
#  include <cstdint>
#  include <string>
#  include <vector>

#  include <mpi.h>

namespace loom::tra::mpi {

/// A sparse matrix of logical `shape` spread over the ranks: `tiles` holds this rank's tiles
/// only (those `partition` gives it), each a loom tensor in `Format`; keys are global.
template <class T, storage_format Format> struct distributed_matrix {
  std::array<std::int64_t, 2> shape;
  tile_partition partition;
  sparse_relation<T, Format> tiles;
  std::string name = "A";
};

namespace detail {
inline std::int64_t allreduce_sum(std::int64_t mine, MPI_Comm comm) {
  std::int64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return all;
}
}  // namespace detail

/// Keeps this rank's share of a matrix given whole on every rank (no communication).
template <class T, storage_format Format>
distributed_matrix<T, Format> distribute(const transport& tr,
                                         const sparse_relation<T, Format>& whole,
                                         const std::array<std::int64_t, 2>& shape,
                                         const tile_partition& partition,
                                         const std::string& name = "A") {
  partition.check(static_cast<int>(tr.sites()), tr.rank(), whole.bounds(), "distributing " + name);
  distributed_matrix<T, Format> out{
      shape, partition, sparse_relation<T, Format>(whole.bounds(), whole.tile_shape()), name};
  for (const auto& [key, t] : whole)
    if (partition.owner(key, whole.bounds()) == tr.rank()) out.tiles.insert(key, t);
  return out;
}

/// The bytes of this rank's tiles that would leave it under partition `to` (each tile once).
template <class T, storage_format Format>
std::int64_t bytes_leaving(const transport& tr, const distributed_matrix<T, Format>& A,
                           const tile_partition& to) {
  std::int64_t n = 0;
  for (const auto& [key, t] : A.tiles)
    if (to.owner(key, A.tiles.bounds()) != tr.rank())
      n += static_cast<std::int64_t>(packed_bytes(t));
  return n;
}

/// A under partition `to`: every tile whose owner changes is sent, in its compact form, to its
/// new owner (one all-to-all).
template <class T, storage_format Format>
distributed_matrix<T, Format> redistribute(const transport& tr,
                                           const distributed_matrix<T, Format>& A,
                                           const tile_partition& to) {
  const auto& bounds = A.tiles.bounds();
  to.check(static_cast<int>(tr.sites()), tr.rank(), bounds, "redistributing " + A.name);
  distributed_matrix<T, Format> out{
      A.shape, to, sparse_relation<T, Format>(bounds, A.tiles.tile_shape()), A.name};
  std::vector<std::vector<char>> outgoing(static_cast<std::size_t>(tr.sites()));
  for (const auto& [key, t] : A.tiles) {
    const int owner = to.owner(key, bounds);
    if (owner == tr.rank())
      out.tiles.insert(key, t);
    else
      detail::pack_tile(outgoing[static_cast<std::size_t>(owner)], key, t);
  }
  std::vector<std::size_t> offsets;
  const auto incoming = tr.exchange(outgoing, offsets);
  detail::unpack_tiles(out.tiles, incoming, offsets);
  return out;
}

/// The whole matrix's tiles on every rank (an all-gather of the compact tiles).
template <class T, storage_format Format>
sparse_relation<T, Format> gather(const transport& tr, const distributed_matrix<T, Format>& A) {
  std::vector<char> mine;
  for (const auto& [key, t] : A.tiles) detail::pack_tile(mine, key, t);
  std::vector<std::size_t> offsets;
  const auto all = tr.allgather(mine, offsets);
  sparse_relation<T, Format> out(A.tiles.bounds(), A.tiles.tile_shape());
  detail::unpack_tiles(out, all, offsets);
  return out;
}

/// Stored entries over every rank.
template <class T, storage_format Format>
std::int64_t global_nnz(const transport& tr, const distributed_matrix<T, Format>& A) {
  return detail::allreduce_sum(A.tiles.nnz(), tr.comm());
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_SPARSE_HPP
