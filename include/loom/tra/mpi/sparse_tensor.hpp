// Defines loom::tra::mpi::distributed_tensor3, a sparse 3-tensor whose entries are spread over the
// ranks in slices (contiguous ranges of one mode's index), each rank's slice one loom tensor at
// global coordinates; slice_partition says which rank owns an index; the moves: distribute_slices
// (keep a rank's share) and redistribute_slices (one all-to-all of entries) (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_SPARSE_TENSOR_HPP
#define LOOM_TRA_MPI_SPARSE_TENSOR_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/assembly/assemble.hpp>
#  include <loom/format/format.hpp>
#  include <loom/format/tensor.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/mpi/wire.hpp>

#  include <algorithm>
#  include <array>
#  include <cstddef>
#  include <cstdint>
#  include <cstring>
#  include <span>
#  include <string>
#  include <type_traits>
#  include <utility>
#  include <vector>

namespace loom::tra::mpi {

/// Which rank owns each entry of a 3-tensor: rank r owns the entries whose index in `mode` lies
/// in [cuts[r], cuts[r + 1]). A rank may own nothing.
class slice_partition {
 public:
  /// Balanced ranges of `extent` indices of `mode` over `ranks`.
  static slice_partition balanced(int mode, std::int64_t extent, int ranks) {
    std::vector<std::int64_t> cuts;
    for (std::int64_t r = 0; r <= ranks; ++r) cuts.push_back(extent * r / std::max(ranks, 1));
    return at(mode, std::move(cuts));
  }
  /// Rank r owns indices [cuts[r], cuts[r + 1]) of `mode` (a skewed split).
  static slice_partition at(int mode, std::vector<std::int64_t> cuts) {
    if (mode < 0 || mode > 2 || cuts.size() < 2)
      throw error("loom::tra::mpi::slice_partition: mode " + std::to_string(mode) + " with " +
                  std::to_string(cuts.size()) +
                  " cuts: the mode is 0, 1 or 2 and the cuts are ranks + 1");
    return slice_partition(mode, std::move(cuts));
  }

  int mode() const { return mode_; }
  int ranks() const { return static_cast<int>(cuts_.size()) - 1; }
  const std::vector<std::int64_t>& cuts() const { return cuts_; }
  std::array<std::int64_t, 2> range_of(int r) const {
    return {cuts_[static_cast<std::size_t>(r)], cuts_[static_cast<std::size_t>(r) + 1]};
  }
  /// The rank owning an entry at `coords`.
  int owner(const std::array<std::int64_t, 3>& coords) const {
    const std::int64_t x = coords[static_cast<std::size_t>(mode_)];
    return static_cast<int>(std::upper_bound(cuts_.begin(), cuts_.end(), x) - cuts_.begin()) - 1;
  }
  /// Throws loom::error, naming `what` and the rank, unless this partition fits a job of
  /// `job_ranks` ranks and a tensor of `shape`.
  void check(int job_ranks, int rank, const std::array<std::int64_t, 3>& shape,
             const std::string& what) const {
    const std::string where = "loom::tra::mpi: " + what + " (rank " + std::to_string(rank) + "): ";
    if (ranks() != job_ranks)
      throw error(where + "the partition (" + describe() + ") is for " + std::to_string(ranks()) +
                  " ranks, but the job has " + std::to_string(job_ranks));
    bool ok = cuts_.front() == 0 && cuts_.back() == shape[static_cast<std::size_t>(mode_)];
    for (std::size_t c = 1; c < cuts_.size(); ++c) ok = ok && cuts_[c - 1] <= cuts_[c];
    if (!ok)
      throw error(where + "the cuts of the partition (" + describe() + ") must rise from 0 to " +
                  std::to_string(shape[static_cast<std::size_t>(mode_)]));
  }
  /// "mode 0 slices at 0,5,9"
  std::string describe() const {
    std::string s = "mode " + std::to_string(mode_) + " slices at ";
    for (std::size_t c = 0; c < cuts_.size(); ++c) {
      if (c) s += ',';
      s += std::to_string(cuts_[c]);
    }
    return s;
  }

 private:
  slice_partition(int mode, std::vector<std::int64_t> cuts) : mode_(mode), cuts_(std::move(cuts)) {}
  int mode_;
  std::vector<std::int64_t> cuts_;
};

/// A sparse 3-tensor of `shape` spread over the ranks: `local` holds this rank's entries (those
/// `partition` gives it) at their global coordinates, in any loom 3-D `Format` (a CSF keeps the
/// other ranks' empty slices free).
template <class T, storage_format Format> struct distributed_tensor3 {
  static_assert(Format::order == 3, "loom::tra::mpi::distributed_tensor3 holds 3-tensors");
  std::array<std::int64_t, 3> shape;
  slice_partition partition;
  tensor<T, Format> local;
  std::string name = "X";
};

/// Bytes of one entry on the wire: three int64 coordinates and the value.
template <class T> constexpr std::size_t entry_bytes = 3 * sizeof(std::int64_t) + sizeof(T);

namespace detail {
template <class T, storage_format Format>
void split_entries(const tensor<T, Format>& t, const slice_partition& to, int me,
                   std::vector<std::array<std::int64_t, 3>>& kept_coords,
                   std::vector<T>& kept_values, std::vector<std::vector<char>>* outgoing) {
  static_assert(std::is_trivially_copyable_v<T>,
                "loom::tra::mpi: entries must hold trivially copyable values to be sent");
  t.for_each_stored([&](const auto& c, const T& v) {
    const std::array<std::int64_t, 3> at{c[0], c[1], c[2]};
    const int q = to.owner(at);
    if (q == me) {
      kept_coords.push_back(at);
      kept_values.push_back(v);
    } else if (outgoing) {
      auto& b = (*outgoing)[static_cast<std::size_t>(q)];
      put(b, at);
      put(b, v);
    }
  });
}
// The entries of `incoming` (entry_bytes<T> each: three coordinates and a value), appended.
template <class T>
void append_entries(const std::vector<char>& incoming,
                    std::vector<std::array<std::int64_t, 3>>& coords, std::vector<T>& values) {
  if (incoming.size() % entry_bytes<T> != 0)
    throw error("loom::tra::mpi: received " + std::to_string(incoming.size()) +
                " bytes of entries, not a whole number (ranks disagree on the value type)");
  for (std::size_t at = 0; at < incoming.size(); at += entry_bytes<T>) {
    std::array<std::int64_t, 3> c{};
    T v{};
    std::memcpy(c.data(), incoming.data() + at, sizeof c);
    std::memcpy(&v, incoming.data() + at + sizeof c, sizeof v);
    coords.push_back(c);
    values.push_back(v);
  }
}
}  // namespace detail

/// Keeps this rank's share of a 3-tensor given whole on every rank (no communication).
template <class T, storage_format Format>
distributed_tensor3<T, Format> distribute_slices(const transport& tr,
                                                 const tensor<T, Format>& whole,
                                                 const slice_partition& partition,
                                                 const std::string& name = "X") {
  const std::array<std::int64_t, 3> shape{whole.extent(0), whole.extent(1), whole.extent(2)};
  partition.check(static_cast<int>(tr.sites()), tr.rank(), shape, "distributing " + name);
  std::vector<std::array<std::int64_t, 3>> coords;
  std::vector<T> values;
  detail::split_entries(whole, partition, tr.rank(), coords, values, nullptr);
  return {shape, partition, from_coo<Format>(shape, coords, values), name};
}

/// The entries of X that would leave this rank under partition `to`.
template <class T, storage_format Format>
std::int64_t entries_leaving(const transport& tr, const distributed_tensor3<T, Format>& X,
                             const slice_partition& to) {
  std::int64_t n = 0;
  X.local.for_each_stored([&](const auto& c, const T&) {
    n += to.owner({c[0], c[1], c[2]}) != tr.rank();
  });
  return n;
}

/// X under partition `to`: every entry whose owner changes goes to its new owner as
/// entry_bytes<T> (one all-to-all).
template <class T, storage_format Format>
distributed_tensor3<T, Format> redistribute_slices(const transport& tr,
                                                   const distributed_tensor3<T, Format>& X,
                                                   const slice_partition& to) {
  to.check(static_cast<int>(tr.sites()), tr.rank(), X.shape, "redistributing " + X.name);
  std::vector<std::array<std::int64_t, 3>> coords;
  std::vector<T> values;
  std::vector<std::vector<char>> outgoing(static_cast<std::size_t>(tr.sites()));
  detail::split_entries(X.local, to, tr.rank(), coords, values, &outgoing);
  std::vector<std::size_t> offsets;
  detail::append_entries(tr.exchange(outgoing, offsets), coords, values);
  return {X.shape, to, from_coo<Format>(X.shape, coords, values), X.name};
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_SPARSE_TENSOR_HPP
