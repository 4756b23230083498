// Defines loom::tra::mpi::transport, the MPI transport of the IA executor: one site per rank; BCAST
// is an all-gather, SHUF an all-to-all, local operators run on the rank's own tuples; byte
// exchanges for the sparse layer; the traffic each rank sent; and verify_same, which checks that
// a relation is equal on every rank (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_TRANSPORT_HPP
#define LOOM_TRA_MPI_TRANSPORT_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/core/progress.hpp>
#  include <loom/tra/ia/placement.hpp>
#  include <loom/tra/mpi/environment.hpp>
#  include <loom/tra/mpi/wire.hpp>
#  include <loom/tra/relation.hpp>
#  include <loom/tra/sparse_operators.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <climits>
#  include <cstddef>
#  include <cstdint>
#  include <cstring>
#  include <span>
#  include <string>
#  include <type_traits>
#  include <vector>

#  include <mpi.h>

namespace loom::tra::mpi {

namespace detail {
template <class Rel> inline constexpr bool holds_sparse_tiles = false;
template <class T, storage_format F, std::size_t K>
inline constexpr bool holds_sparse_tiles<sparse_relation<T, F, K>> = true;

// A tuple of dense tiles travels as K int64 keys then the tile's values (every tile of a relation
// has one shape); a sparse tile as its key and compact arrays (wire.hpp), never expanded.
template <class Rel> std::size_t record_bytes(const Rel& r) {
  return Rel::key_arity * sizeof(std::int64_t) +
         static_cast<std::size_t>(volume(r.tile_shape())) * sizeof(typename Rel::value_type);
}
template <class Rel>
void append(std::vector<char>& buf, const typename Rel::key_type& key,
            const typename Rel::tile_type& t) {
  if constexpr (holds_sparse_tiles<Rel>) {
    pack_tile(buf, key, t);
  } else {
    static_assert(std::is_trivially_copyable_v<typename Rel::value_type>,
                  "loom::tra::mpi: tiles must hold trivially copyable values to be sent");
    const std::size_t at = buf.size();
    const std::size_t kb = Rel::key_arity * sizeof(std::int64_t);
    const std::size_t vb = static_cast<std::size_t>(t.size()) * sizeof(typename Rel::value_type);
    buf.resize(at + kb + vb);
    if (kb) std::memcpy(buf.data() + at, key.data(), kb);
    if (vb) std::memcpy(buf.data() + at + kb, t.data().data(), vb);
  }
}
// Adds `t` under `key` to `out`; a key already present must hold the same tile when `check`
// (collect), else the replica is skipped (broadcast of replicated data).
template <class Rel>
void add_received(Rel& out, const typename Rel::key_type& key, typename Rel::tile_type t,
                  bool check, int from) {
  if (const auto* have = out.find(key)) {
    if (check && !tiles_equal(*have, t))
      throw error("loom::tra::mpi: key " + to_string(key) + " holds different tiles on rank " +
                  std::to_string(from) +
                  " and another rank (a local join or aggregation ran on incomplete data)");
    return;
  }
  out.insert(key, std::move(t));
}
// Adds every tuple of `buf` to `out` (add_received).
template <class Rel> void read_into(Rel& out, std::span<const char> buf, bool check, int from) {
  if constexpr (holds_sparse_tiles<Rel>) {
    byte_reader in{buf, 0, from};
    while (!in.done()) {
      auto [key, t] =
          unpack_tile<typename Rel::value_type, typename Rel::format_type, Rel::key_arity>(
              in, out.tile_shape());
      add_received(out, key, std::move(t), check, from);
    }
  } else {
    const std::size_t rb = record_bytes(out);
    const std::size_t kb = Rel::key_arity * sizeof(std::int64_t);
    if (rb == 0 || buf.size() % rb != 0)
      throw error("loom::tra::mpi: received " + std::to_string(buf.size()) + " bytes from rank " +
                  std::to_string(from) + ", not a whole number of " + std::to_string(rb) +
                  "-byte tuples (ranks disagree on the relation's shape)");
    for (std::size_t at = 0; at < buf.size(); at += rb) {
      typename Rel::key_type key{};
      if (kb) std::memcpy(key.data(), buf.data() + at, kb);
      typename Rel::tile_type t(out.tile_shape());
      if (rb > kb) std::memcpy(t.data().data(), buf.data() + at + kb, rb - kb);
      add_received(out, key, std::move(t), check, from);
    }
  }
}
inline int as_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw error(std::string("loom::tra::mpi: ") + what + " of " + std::to_string(n) +
                " bytes exceeds MPI's int count; use smaller tiles or more ranks");
  return static_cast<int>(n);
}
// All-gather of variable-size byte buffers; returns the concatenation and each rank's slice.
inline std::vector<char> allgather_bytes(const std::vector<char>& mine, std::vector<int>& counts,
                                         std::vector<int>& displs, MPI_Comm comm) {
  const int s = size(comm);
  counts.assign(static_cast<std::size_t>(s), 0);
  displs.assign(static_cast<std::size_t>(s), 0);
  int n = as_count(mine.size(), "a gathered buffer");
  check(MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm), "MPI_Allgather");
  std::size_t total = 0;
  for (int r = 0; r < s; ++r) {
    displs[static_cast<std::size_t>(r)] = as_count(total, "a gathered relation");
    total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  }
  std::vector<char> all(total);
  check(MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                       comm),
        "MPI_Allgatherv");
  return all;
}
}  // namespace detail

/// What one rank sent: payload bytes, and messages (one per peer that got a non-empty payload in
/// an exchange). Counted from the payloads, not from the MPI library's algorithm, so the same
/// inputs give the same counts on any MPI; the sizes exchanged before a payload are not counted.
struct traffic {
  std::int64_t bytes = 0;
  std::int64_t messages = 0;
  friend bool operator==(const traffic&, const traffic&) = default;
  friend traffic operator-(const traffic& a, const traffic& b) {
    return {a.bytes - b.bytes, a.messages - b.messages};
  }
};

/// The MPI transport: site = rank. Inputs are given whole to every rank (each keeps its share).
/// BCAST, SHUF and the final gather report progress (loom::set_progress) on each rank: phase
/// "distributing", the tiles this rank sends, the last report once the exchange is done.
class transport {
 public:
  template <class Rel> using phys = Rel;

  explicit transport(MPI_Comm comm = MPI_COMM_WORLD)
      : comm_(comm), size_(mpi::size(comm)), rank_(mpi::rank(comm)) {}
  std::int64_t sites() const { return size_; }
  int rank() const { return rank_; }
  MPI_Comm comm() const { return comm_; }
  /// Bytes this rank sent to other ranks by BCAST and SHUF so far (the plans' data movement).
  double moved() const { return moved_; }
  /// Everything this rank sent so far: every exchange below, `collect` included.
  traffic sent() const { return sent_; }

  /// Every rank's `mine`, concatenated in rank order; rank r's part is
  /// [offsets[r], offsets[r + 1]). Sends `mine` to each other rank.
  std::vector<char> allgather(const std::vector<char>& mine,
                              std::vector<std::size_t>& offsets) const {
    if (size_ == 1) {
      offsets = {0, mine.size()};
      return mine;
    }
    count_to_peers(mine.size(), size_ - 1);
    std::vector<int> counts, displs;
    auto all = detail::allgather_bytes(mine, counts, displs, comm_);
    offsets.assign(static_cast<std::size_t>(size_) + 1, all.size());
    for (int r = 0; r < size_; ++r)
      offsets[static_cast<std::size_t>(r)] =
          static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]);
    return all;
  }
  /// All-to-all: `to[q]` goes to rank q; returns what every rank sent here, in rank order (rank
  /// r's part is [offsets[r], offsets[r + 1])). `to[rank()]` stays here, uncounted.
  std::vector<char> exchange(const std::vector<std::vector<char>>& to,
                             std::vector<std::size_t>& offsets) const {
    if (static_cast<int>(to.size()) != size_)
      throw error("loom::tra::mpi: an exchange with " + std::to_string(to.size()) +
                  " destinations on rank " + std::to_string(rank_) + " of " +
                  std::to_string(size_));
    std::vector<int> scounts(to.size()), sdispls(to.size()), rcounts(to.size()), rdispls(to.size());
    std::vector<char> send;
    for (int r = 0; r < size_; ++r) {
      const auto& b = to[static_cast<std::size_t>(r)];
      sdispls[static_cast<std::size_t>(r)] = detail::as_count(send.size(), "an exchange");
      scounts[static_cast<std::size_t>(r)] = detail::as_count(b.size(), "an exchange");
      send.insert(send.end(), b.begin(), b.end());
      if (r != rank_) count_to_peers(b.size(), 1);
    }
    check(MPI_Alltoall(scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, comm_),
          "MPI_Alltoall");
    std::size_t total = 0;
    offsets.assign(to.size() + 1, 0);
    for (int r = 0; r < size_; ++r) {
      rdispls[static_cast<std::size_t>(r)] = detail::as_count(total, "an exchange");
      offsets[static_cast<std::size_t>(r)] = total;
      total += static_cast<std::size_t>(rcounts[static_cast<std::size_t>(r)]);
    }
    offsets.back() = total;
    std::vector<char> recv(total);
    check(MPI_Alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_BYTE, recv.data(),
                        rcounts.data(), rdispls.data(), MPI_BYTE, comm_),
          "MPI_Alltoallv");
    return recv;
  }
  /// `root`'s `buf` on every rank (the root sends it to each other rank).
  void broadcast_from(std::vector<char>& buf, int root) const {
    if (size_ == 1) return;
    std::int64_t n = static_cast<std::int64_t>(buf.size());
    check(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm_), "MPI_Bcast");
    buf.resize(static_cast<std::size_t>(n));
    if (rank_ == root) count_to_peers(buf.size(), size_ - 1);
    if (n > 0)
      check(
          MPI_Bcast(buf.data(), detail::as_count(buf.size(), "a broadcast"), MPI_BYTE, root, comm_),
          "MPI_Bcast");
  }

  template <class Rel>
  Rel place(const Rel& r, ia::placement_kind kind, std::span<const std::size_t> d) const {
    Rel out(r.bounds(), r.tile_shape());
    std::int64_t ordinal = 0;
    for (const auto& [key, t] : r) {
      std::int64_t site = 0;
      switch (kind) {
        case ia::placement_kind::replicated:
          site = rank_;
          break;
        case ia::placement_kind::single:
          site = 0;
          break;
        case ia::placement_kind::partitioned:
          site = ia::site_of(key, r.bounds(), d, size_);
          break;
        case ia::placement_kind::arbitrary:
          site = ordinal % size_;
          break;
      }
      if (site == rank_) out.insert(key, t);
      ++ordinal;
    }
    return out;
  }
  template <class Rel> Rel broadcast(const Rel& mine) const {
    if (size_ == 1) return mine;  // one site: nothing to move
    loom::detail::progress_reporter progress("distributing", "", mine.size(), "tiles");
    std::vector<char> buf;
    pack(buf, mine, progress);
    moved_ += static_cast<double>(buf.size()) * static_cast<double>(size_ - 1);
    count_to_peers(buf.size(), size_ - 1);
    std::vector<int> counts, displs;
    const auto all = detail::allgather_bytes(buf, counts, displs, comm_);
    Rel out(mine.bounds(), mine.tile_shape());
    for (int r = 0; r < size_; ++r)
      detail::read_into(
          out,
          std::span<const char>(all.data() + displs[static_cast<std::size_t>(r)],
                                static_cast<std::size_t>(counts[static_cast<std::size_t>(r)])),
          false, r);
    progress.finish();
    return out;
  }
  /// SHUF(d); an empty d gathers everything on rank 0.
  template <class Rel> Rel shuffle(const Rel& mine, std::span<const std::size_t> d) const {
    if (size_ == 1) return mine;
    loom::detail::progress_reporter progress("distributing", "", mine.size(), "tiles");
    std::vector<std::vector<char>> out_bufs(static_cast<std::size_t>(size_));
    std::int64_t packed = 0;
    for (const auto& [key, t] : mine) {
      progress.advance_to(packed++);
      const std::int64_t to = d.empty() ? 0 : ia::site_of(key, mine.bounds(), d, size_);
      detail::append<Rel>(out_bufs[static_cast<std::size_t>(to)], key, t);
    }
    std::vector<int> scounts(static_cast<std::size_t>(size_)), sdispls(scounts.size()),
        rcounts(scounts.size()), rdispls(scounts.size());
    std::vector<char> send;
    for (int r = 0; r < size_; ++r) {
      const auto& b = out_bufs[static_cast<std::size_t>(r)];
      sdispls[static_cast<std::size_t>(r)] = detail::as_count(send.size(), "a shuffle");
      scounts[static_cast<std::size_t>(r)] = detail::as_count(b.size(), "a shuffle");
      send.insert(send.end(), b.begin(), b.end());
      if (r != rank_) {
        moved_ += static_cast<double>(b.size());
        count_to_peers(b.size(), 1);
      }
    }
    check(MPI_Alltoall(scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, comm_),
          "MPI_Alltoall");
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      rdispls[static_cast<std::size_t>(r)] = detail::as_count(total, "a shuffle");
      total += static_cast<std::size_t>(rcounts[static_cast<std::size_t>(r)]);
    }
    std::vector<char> recv(total);
    check(MPI_Alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_BYTE, recv.data(),
                        rcounts.data(), rdispls.data(), MPI_BYTE, comm_),
          "MPI_Alltoallv");
    Rel out(mine.bounds(), mine.tile_shape());
    for (int r = 0; r < size_; ++r)
      detail::read_into(
          out,
          std::span<const char>(recv.data() + rdispls[static_cast<std::size_t>(r)],
                                static_cast<std::size_t>(rcounts[static_cast<std::size_t>(r)])),
          false, r);  // a replicated input sends each tuple from every rank
    progress.finish();
    return out;
  }
  template <class Rel, class F> auto local(const Rel& mine, F f) const { return f(mine); }
  template <class Rel, class F> auto local_site(const Rel& mine, F f) const {
    return f(static_cast<std::int64_t>(rank_), mine);
  }
  template <class A, class B, class F> auto local2(const A& a, const B& b, F f) const {
    return f(a, b);
  }
  /// The logical result on every rank (all-gather; replicas collapse, conflicts throw).
  template <class Rel> Rel collect(const Rel& mine) const {
    if (size_ == 1) return mine;
    loom::detail::progress_reporter progress("distributing", "", mine.size(), "tiles");
    std::vector<char> buf;
    pack(buf, mine, progress);
    count_to_peers(buf.size(), size_ - 1);
    std::vector<int> counts, displs;
    const auto all = detail::allgather_bytes(buf, counts, displs, comm_);
    Rel out(mine.bounds(), mine.tile_shape());
    for (int r = 0; r < size_; ++r)
      detail::read_into(
          out,
          std::span<const char>(all.data() + displs[static_cast<std::size_t>(r)],
                                static_cast<std::size_t>(counts[static_cast<std::size_t>(r)])),
          true, r);
    progress.finish();
    return out;
  }

 private:
  // Appends every tuple of `mine` to `buf`, advancing `progress` by tile; the last report (all
  // tiles) is the caller's, once the exchange is done.
  template <class Rel>
  static void pack(std::vector<char>& buf, const Rel& mine,
                   loom::detail::progress_reporter& progress) {
    std::int64_t packed = 0;
    for (const auto& [key, t] : mine) {
      progress.advance_to(packed++);
      detail::append<Rel>(buf, key, t);
    }
  }

  // `bytes` to each of `peers` ranks; an empty payload is no message.
  void count_to_peers(std::size_t bytes, int peers) const {
    if (bytes == 0 || peers <= 0) return;
    sent_.bytes += static_cast<std::int64_t>(bytes) * peers;
    sent_.messages += peers;
  }

  MPI_Comm comm_;
  int size_ = 1;
  int rank_ = 0;
  mutable double moved_ = 0;
  mutable traffic sent_{};
};

/// A checksum of a relation (bounds, keys, tile values), equal on equal relations.
template <class Rel> std::uint64_t checksum(const Rel& r) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t q = 0; q < n; ++q) h = (h ^ c[q]) * 1099511628211ull;
  };
  mix(r.bounds().data(), sizeof(r.bounds()));
  mix(r.tile_shape().data(), sizeof(r.tile_shape()));
  for (const auto& [key, t] : r) {
    mix(key.data(), sizeof(key));
    mix(t.data().data(), t.data().size_bytes());
  }
  return h;
}

/// Throws loom::error on every rank when `r` is not the same on all ranks of `comm`.
template <class Rel>
void verify_same(const Rel& r, const char* what, MPI_Comm comm = MPI_COMM_WORLD) {
  const std::uint64_t mine = checksum(r);
  std::uint64_t lo = 0, hi = 0;
  check(MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, comm), "MPI_Allreduce");
  check(MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce");
  if (lo != hi)
    throw error(std::string("loom::tra::mpi: ") + what + " differs across ranks (rank " +
                std::to_string(rank(comm)) + " holds checksum " + std::to_string(mine) + ")");
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_TRANSPORT_HPP
