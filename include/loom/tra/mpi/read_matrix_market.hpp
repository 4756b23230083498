// Defines loom::tra::mpi::read_matrix_market_tiles: a coordinate Matrix Market file read into a
// distributed_matrix, each rank keeping only the entries of its own tiles; the ranks either each
// scan the whole file or each parse a byte range and send the entries to their owners (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_READ_MATRIX_MARKET_HPP
#define LOOM_TRA_MPI_READ_MATRIX_MARKET_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/assembly/assemble.hpp>
#  include <loom/format/format.hpp>
#  include <loom/io/matrix_market.hpp>
#  include <loom/tra/mpi/partition.hpp>
#  include <loom/tra/mpi/sparse.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/mpi/wire.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <array>
#  include <cstdint>
#  include <exception>
#  include <fstream>
#  include <ios>
#  include <istream>
#  include <map>
#  include <span>
#  include <sstream>
#  include <string>
#  include <string_view>
#  include <utility>
#  include <vector>

namespace loom::tra::mpi {

/// How the ranks share the reading of a Matrix Market file.
enum class file_split {
  /// Every rank parses the whole file and keeps its tiles' entries: no messages, but every rank
  /// reads and parses every line.
  scan_whole,
  /// Rank r parses only the lines that start in the r-th of equal byte ranges of the file's
  /// entries, then sends each entry to its tile's owner (one all-to-all of 16-byte coordinates
  /// and a value per entry, counted in `transport::sent()`).
  byte_ranges
};

namespace detail {
struct matrix_market_start {
  loom::detail::matrix_market_header header;
  std::array<std::int64_t, 2> shape{};
  std::int64_t declared = 0;
  std::streamoff entries_at = 0;  // the byte after the size line
};

// The banner and the size line; the stream is left just after the size line.
inline matrix_market_start read_start(std::istream& file, const std::string& path) {
  using sym = loom::detail::matrix_market_header::symmetry_kind;
  loom::detail::line_reader r(file, path);
  matrix_market_start st;
  st.header = loom::detail::read_matrix_market_banner(r);
  if (st.header.array)
    r.fail("an array file lists every value; read_matrix_market_tiles reads coordinate files");
  if (!r.next_data("%")) r.fail("unexpected end of input: expected the size line");
  std::array<std::string_view, 4> w{};
  if (r.split(w) != 3) r.fail("expected the size line 'rows columns entries'");
  st.shape = {r.count(w[0], "the number of rows"), r.count(w[1], "the number of columns")};
  st.declared = r.count(w[2], "the number of entries");
  if (st.header.symmetry != sym::general && st.shape[0] != st.shape[1])
    r.fail("a symmetric or skew-symmetric matrix must be square");
  st.entries_at = file.tellg();
  return st;
}

// Parses the entry on r's current line: keep(i, j, v) for it and, in symmetric and
// skew-symmetric files, for its mirror.
template <class T, class Keep>
void parse_entry(const loom::detail::line_reader& r, const matrix_market_start& st, Keep&& keep) {
  using sym = loom::detail::matrix_market_header::symmetry_kind;
  const auto& h = st.header;
  std::array<std::string_view, 4> w{};
  if (r.split(w) != (h.pattern ? 2u : 3u))
    r.fail(h.pattern ? "expected an entry 'row column'" : "expected 'row column value'");
  const std::int64_t i = loom::detail::read_index(r, w[0], st.shape[0], "row");
  const std::int64_t j = loom::detail::read_index(r, w[1], st.shape[1], "column");
  const T v = h.pattern ? semiring_traits<T>::one() : loom::detail::read_value<T>(r, w[2]);
  if (h.symmetry == sym::skew) {
    if (i == j) r.fail("an entry on the diagonal of a skew-symmetric matrix");
    T negated = v;
    if (!loom::detail::value_text<T>::negate(v, negated))
      r.fail("a value with no negation in the value type");
    keep(i, j, v);
    keep(j, i, negated);
  } else {
    keep(i, j, v);
    if (h.symmetry == sym::symmetric && i != j) keep(j, i, v);
  }
}

// The first line start at or after `at`: `at` itself when the byte before it ends a line.
inline std::streamoff line_start_from(std::istream& file, std::streamoff at, std::streamoff first,
                                      std::streamoff size) {
  if (at <= first) return first;
  if (at >= size) return size;
  file.clear();
  file.seekg(at - 1);
  std::string rest;
  std::getline(file, rest);  // to the end of the line that holds byte at - 1
  return file.eof() ? size : static_cast<std::streamoff>(file.tellg());
}

// This rank's share of the bytes from `first` to the end of `file`: the r-th of equal byte
// ranges, each cut at line starts; the text and where it starts in the file.
inline std::pair<std::string, std::streamoff> rank_share(std::istream& file, std::streamoff first,
                                                         std::streamoff rank, std::streamoff ranks,
                                                         const std::string& who) {
  file.clear();
  file.seekg(0, std::ios::end);
  const std::streamoff size = file.tellg(), span = size - first;
  const std::streamoff begin = line_start_from(file, first + span * rank / ranks, first, size);
  const std::streamoff end = line_start_from(file, first + span * (rank + 1) / ranks, first, size);
  std::string slice(static_cast<std::size_t>(std::max<std::streamoff>(end - begin, 0)), '\0');
  file.clear();
  file.seekg(begin);
  file.read(slice.data(), static_cast<std::streamsize>(slice.size()));
  if (!file)
    throw io_error(who + ": read error in bytes " + std::to_string(begin) + "-" +
                   std::to_string(end));
  return {std::move(slice), begin};
}
}  // namespace detail

/// Reads the coordinate Matrix Market file at `path` (real, integer or pattern; general,
/// symmetric or skew-symmetric) into tiles of `tile_shape` spread by `partition`: each rank ends
/// with the entries of its own tiles only, mirrors included; repeated entries are summed. How
/// the ranks share the parsing is `split`'s choice. A file that cannot be opened or parsed
/// throws loom::error naming the file and the rank (with `byte_ranges`, on every rank: the
/// others say which rank failed); so does a partition made for another number of ranks.
template <class T, storage_format Format = csr>
distributed_matrix<T, Format> read_matrix_market_tiles(
    const transport& tr, const std::string& path, const std::array<std::int64_t, 2>& tile_shape,
    const tile_partition& partition, file_split split = file_split::scan_whole) {
  const std::string on_rank = " (rank " + std::to_string(tr.rank()) + ")";
  const std::string who = "loom::tra::mpi::read_matrix_market_tiles: '" + path + "'";
  for (std::size_t d = 0; d < 2; ++d)
    if (tile_shape[d] <= 0) throw shape_error(who + ": tile extents must be positive");
  std::map<std::array<std::int64_t, 2>,
           std::pair<std::vector<std::array<std::int64_t, 2>>, std::vector<T>>>
      parts;
  auto add = [&](const std::array<std::int64_t, 2>& key, std::int64_t i, std::int64_t j, T v) {
    auto& [coords, values] = parts[key];
    coords.push_back({i % tile_shape[0], j % tile_shape[1]});
    values.push_back(v);
  };
  detail::matrix_market_start st;
  std::array<std::int64_t, 2> bounds{};
  // byte_ranges: what this rank parsed, and the entries it sends to each owner
  std::int64_t parsed = 0;
  std::vector<std::vector<char>> outgoing(static_cast<std::size_t>(tr.sites()));
  std::exception_ptr failure;  // this rank's error, with the rank named
  try {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw io_error(who + ": cannot open the file");
    st = detail::read_start(file, path);
    bounds = {(st.shape[0] + tile_shape[0] - 1) / tile_shape[0],
              (st.shape[1] + tile_shape[1] - 1) / tile_shape[1]};
    partition.check(static_cast<int>(tr.sites()), tr.rank(), bounds, "reading '" + path + "'");
    auto tile_of = [&](std::int64_t i, std::int64_t j) {
      return std::array<std::int64_t, 2>{i / tile_shape[0], j / tile_shape[1]};
    };
    if (split == file_split::scan_whole) {
      loom::detail::line_reader r(file, path);
      for (std::int64_t k = 0; k < st.declared; ++k) {
        if (!r.next_data("%"))
          r.fail("the size line declares " + std::to_string(st.declared) +
                 " entries, but the file holds only " + std::to_string(k));
        detail::parse_entry<T>(r, st, [&](std::int64_t i, std::int64_t j, const T& v) {
          const auto key = tile_of(i, j);
          if (partition.owner(key, bounds) == tr.rank()) add(key, i, j, v);
        });
      }
      if (r.next_data("%"))
        r.fail("more entries than the " + std::to_string(st.declared) + " the size line declares");
    } else {
      auto [slice, begin] = detail::rank_share(file, st.entries_at, tr.rank(), tr.sites(), who);
      std::istringstream in(std::move(slice));
      // lines are numbered from the slice's first: the line number in the file is unknown here
      loom::detail::line_reader r(in,
                                  path + " (entry lines from byte " + std::to_string(begin) + ")");
      while (r.next_data("%")) {
        ++parsed;
        detail::parse_entry<T>(r, st, [&](std::int64_t i, std::int64_t j, const T& v) {
          const auto key = tile_of(i, j);
          const int to = partition.owner(key, bounds);
          if (to == tr.rank()) return add(key, i, j, v);
          auto& buf = outgoing[static_cast<std::size_t>(to)];
          detail::put(buf, i);
          detail::put(buf, j);
          detail::put(buf, v);
        });
      }
    }
  } catch (const parse_error& e) {
    failure = std::make_exception_ptr(parse_error(e.what() + on_rank));
  } catch (const io_error& e) {
    failure = std::make_exception_ptr(io_error(e.what() + on_rank));
  } catch (...) {  // a partition that does not fit: its message names the rank
    failure = std::current_exception();
  }
  if (split == file_split::scan_whole && failure) std::rethrow_exception(failure);
  if (split == file_split::byte_ranges) {
    // every rank learns whether any failed, so none waits in the exchange for a rank that threw
    int failed = failure ? 1 : 0, any = 0;
    check(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, tr.comm()), "MPI_Allreduce");
    if (failure) std::rethrow_exception(failure);
    if (any) throw error(who + ": another rank could not read its part" + on_rank);
    if (const std::int64_t total = detail::allreduce_sum(parsed, tr.comm()); total != st.declared)
      throw parse_error(who + ": the size line declares " + std::to_string(st.declared) +
                        " entries, but the file holds " + std::to_string(total) + on_rank);
    std::vector<std::size_t> offsets;
    const auto incoming = tr.exchange(outgoing, offsets);
    const std::size_t record = 2 * sizeof(std::int64_t) + sizeof(T);
    for (std::size_t at = 0; at + record <= incoming.size(); at += record) {
      detail::byte_reader entry{std::span<const char>(incoming.data() + at, record)};
      const auto i = entry.get<std::int64_t>(), j = entry.get<std::int64_t>();
      add({i / tile_shape[0], j / tile_shape[1]}, i, j, entry.get<T>());
    }
  }
  distributed_matrix<T, Format> out{st.shape, partition,
                                    sparse_relation<T, Format>(bounds, tile_shape), path};
  for (auto& [key, p] : parts)
    out.tiles.insert(key, from_coo<Format>(tile_shape, p.first, p.second, duplicates::sum));
  return out;
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_READ_MATRIX_MARKET_HPP
