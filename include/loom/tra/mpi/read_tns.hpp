// Defines loom::tra::mpi::read_tns_slices: a FROSTT file of a 3-tensor read into a
// distributed_tensor3, each rank parsing one byte range of the file and sending each entry to
// the rank whose slice holds it, so that no rank reads or holds the whole input (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_READ_TNS_HPP
#define LOOM_TRA_MPI_READ_TNS_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/assembly/assemble.hpp>
#  include <loom/format/format.hpp>
#  include <loom/io/detail/line_reader.hpp>
#  include <loom/io/detail/numbers.hpp>
#  include <loom/tra/mpi/read_matrix_market.hpp>
#  include <loom/tra/mpi/sparse_tensor.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/mpi/wire.hpp>

#  include <algorithm>
#  include <array>
#  include <cstddef>
#  include <cstdint>
#  include <cstring>
#  include <exception>
#  include <fstream>
#  include <ios>
#  include <optional>
#  include <sstream>
#  include <string>
#  include <string_view>
#  include <type_traits>
#  include <utility>
#  include <vector>

namespace loom::tra::mpi {

namespace detail {
// The entries of one byte range of a FROSTT file of a 3-tensor: coordinates 0-based, the largest
// 1-based coordinate of each mode.
template <class T> struct tns_part {
  std::vector<std::array<std::int64_t, 3>> coords;
  std::vector<T> values;
  std::array<std::int64_t, 3> largest{};
};

template <class T>
tns_part<T> parse_tns_range(loom::detail::line_reader& r,
                            const std::optional<std::array<std::int64_t, 3>>& shape) {
  using loom::detail::excerpt;
  using loom::detail::parse_status;
  tns_part<T> part;
  std::array<std::string_view, 5> w{};
  const std::string form = "an order-3 tensor has 3 coordinates and a value per line";
  while (r.next_data("#%")) {
    const std::size_t got = r.split(w);
    if (got < 4) r.fail("expected 4 tokens, found " + excerpt(r.line()) + ": " + form);
    if (got > 4) r.fail("unexpected token " + excerpt(w[4]) + " after the value: " + form);
    std::array<std::int64_t, 3> c{};
    for (std::size_t m = 0; m < 3; ++m) {
      std::int64_t v = 0;
      const parse_status st = loom::detail::parse_integer(w[m], v);
      const std::string what = "coordinate " + std::to_string(m + 1) + " " + excerpt(w[m]);
      if (st == parse_status::not_a_number) r.fail(what + " is not an integer");
      if (st == parse_status::out_of_range) r.fail(what + " does not fit a 64-bit integer");
      if (v < 1) r.fail(what + " is below 1 (coordinates are 1-based)");
      if (shape && v > (*shape)[m])
        r.fail(what + " is outside 1.." + std::to_string((*shape)[m]) + ", the given extent");
      part.largest[m] = std::max(part.largest[m], v);
      c[m] = v - 1;
    }
    T value{};
    if (const std::string why = loom::detail::value_text<T>::parse(w[3], value); !why.empty())
      r.fail(why);
    part.coords.push_back(c);
    part.values.push_back(value);
  }
  return part;
}
}  // namespace detail

/// Reads the FROSTT file at `path` (a 3-tensor: three 1-based coordinates and a value per line;
/// `#` and `%` lines and blank lines skipped) into slices of `mode`: rank r parses only the lines
/// that start in the r-th of equal byte ranges of the file, then sends each entry to the rank
/// whose slice holds it (one all-to-all of entry_bytes<T> per entry, counted in
/// `transport::sent()`); no rank reads or keeps the whole input. The shape is `shape` when given
/// (a coordinate outside it is an error), else the largest coordinate of each mode over all
/// ranks. The slices are `partition(shape)` when given (a function of the shape, since the shape
/// may be known only once the file is read), else balanced ranges of `mode`. Repeated entries
/// are summed. A file that cannot be opened or parsed throws loom::error on every rank: the
/// failing rank names the file, its byte range, the line within it and itself; the others say
/// which rank could not read its part.
template <class T, storage_format Format = csf<3>, class Partition = std::nullptr_t>
distributed_tensor3<T, Format> read_tns_slices(
    const transport& tr, const std::string& path, int mode,
    const std::optional<std::array<std::int64_t, 3>>& shape = std::nullopt,
    Partition partition = nullptr) {
  static_assert(Format::order == 3, "loom::tra::mpi::read_tns_slices reads 3-tensors");
  const std::string on_rank = " (rank " + std::to_string(tr.rank()) + ")";
  const std::string who = "loom::tra::mpi::read_tns_slices: '" + path + "'";
  if (mode < 0 || mode > 2)
    throw error(who + ": mode " + std::to_string(mode) + " (the mode is 0, 1 or 2)" + on_rank);
  detail::tns_part<T> part;
  std::exception_ptr failure;
  try {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw io_error(who + ": cannot open the file");
    auto [slice, begin] = detail::rank_share(file, 0, tr.rank(), tr.sites(), who);
    std::istringstream in(std::move(slice));
    // lines are numbered from the range's first: its line number in the file is unknown here
    loom::detail::line_reader r(in, path + " (lines from byte " + std::to_string(begin) + ")");
    part = detail::parse_tns_range<T>(r, shape);
  } catch (const parse_error& e) {
    failure = std::make_exception_ptr(parse_error(e.what() + on_rank));
  } catch (const io_error& e) {
    failure = std::make_exception_ptr(io_error(e.what() + on_rank));
  } catch (...) {  // out of memory, ...: still reported to the other ranks below
    failure = std::current_exception();
  }
  // every rank learns whether any failed, so none waits in the exchange for a rank that threw
  int failed = failure ? 1 : 0, any = 0;
  check(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, tr.comm()), "MPI_Allreduce");
  if (failure) std::rethrow_exception(failure);
  if (any) throw error(who + ": another rank could not read its part" + on_rank);
  std::array<std::int64_t, 3> extents{};
  if (shape) {
    extents = *shape;
  } else {
    check(MPI_Allreduce(part.largest.data(), extents.data(), 3, MPI_INT64_T, MPI_MAX, tr.comm()),
          "MPI_Allreduce");
  }
  slice_partition to = [&] {
    if constexpr (std::is_same_v<Partition, std::nullptr_t>)
      return slice_partition::balanced(mode, extents[static_cast<std::size_t>(mode)],
                                       static_cast<int>(tr.sites()));
    else
      return partition(extents);
  }();
  if (to.mode() != mode)
    throw error(who + ": the partition slices mode " + std::to_string(to.mode()) +
                ", not the mode " + std::to_string(mode) + " asked for" + on_rank);
  to.check(static_cast<int>(tr.sites()), tr.rank(), extents, "reading '" + path + "'");
  std::vector<std::array<std::int64_t, 3>> coords;
  std::vector<T> values;
  std::vector<std::vector<char>> outgoing(static_cast<std::size_t>(tr.sites()));
  for (std::size_t e = 0; e < part.coords.size(); ++e) {
    const int q = to.owner(part.coords[e]);
    if (q == tr.rank()) {
      coords.push_back(part.coords[e]);
      values.push_back(part.values[e]);
    } else {
      auto& b = outgoing[static_cast<std::size_t>(q)];
      detail::put(b, part.coords[e]);
      detail::put(b, part.values[e]);
    }
  }
  std::vector<std::size_t> offsets;
  detail::append_entries(tr.exchange(outgoing, offsets), coords, values);
  return {extents, to, from_coo<Format>(extents, coords, values, duplicates::sum), path};
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_READ_TNS_HPP
