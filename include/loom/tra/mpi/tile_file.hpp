// Defines loom's partitioned file of a distributed sparse matrix (tra/mpi/): one file, a header
// (the writer's byte order, shape, tile grid, nnz, value type and integer widths, tile format,
// partition) with an offset table of its parts, then each rank's tiles in their compact wire
// form. write_tiles writes it collectively through a temporary file renamed at the end;
// read_tiles lets each rank read only its own part, on a machine of either byte order.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_TILE_FILE_HPP
#define LOOM_TRA_MPI_TILE_FILE_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/format.hpp>
#  include <loom/format/format_name.hpp>
#  include <loom/tra/mpi/partition.hpp>
#  include <loom/tra/mpi/sparse.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/mpi/wire.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <array>
#  include <bit>
#  include <cstddef>
#  include <cstdint>
#  include <cstring>
#  include <exception>
#  include <filesystem>
#  include <fstream>
#  include <ios>
#  include <optional>
#  include <span>
#  include <string>
#  include <system_error>
#  include <type_traits>
#  include <utility>
#  include <vector>

#  include <mpi.h>

namespace loom::tra::mpi {

/// One part of a tile file: where its bytes start, how many, and its tiles and entries.
struct tile_file_part {
  std::int64_t offset = 0, bytes = 0, tiles = 0, nnz = 0;
};

/// What a tile file's header says.
struct tile_file_header {
  std::array<std::int64_t, 2> shape{}, bounds{}, tile_shape{};
  std::int64_t nnz = 0, tiles = 0;
  std::int64_t value_bytes = 0;
  std::string value_kind;  // "float", "signed", "unsigned" or "other"
  std::string format;      // loom::format_name of the tiles' format
  tile_layout layout = tile_layout::row_blocks;
  std::int64_t ranks = 1;
  std::vector<std::int64_t> cuts;
  std::vector<std::size_t> key_positions;
  std::vector<tile_file_part> parts;
  std::int64_t header_bytes = 0;
  /// The byte widths of the tiles' integer arrays, as wire_widths gives them.
  std::vector<std::int64_t> index_widths;
  std::uint32_t version = 0;
  /// The writer's byte order; a reader on the other one reverses each number's bytes.
  std::endian byte_order = std::endian::native;

  /// The partition the file was written in.
  tile_partition partition() const {
    switch (layout) {
      case tile_layout::row_blocks:
        return cuts.empty() ? tile_partition::row_blocks(ranks)
                            : tile_partition::row_blocks_at(cuts);
      case tile_layout::col_blocks:
        return cuts.empty() ? tile_partition::col_blocks(ranks)
                            : tile_partition::col_blocks_at(cuts);
      case tile_layout::grid:
        return tile_partition::grid(ranks);
      case tile_layout::cyclic:
        return tile_partition::cyclic(ranks, key_positions);
      case tile_layout::hashed:
        break;
    }
    return tile_partition::hashed(ranks);
  }
};

/// What read_tiles did on this rank: the bytes it read from the file (header and parts), the
/// parts it read, and what it sent to move tiles to their owners (nothing when the file's
/// partition is the one asked for).
struct tile_read_report {
  std::int64_t bytes_read = 0;
  std::vector<std::int64_t> parts_read;
  traffic sent;
};

namespace detail {
inline constexpr char tile_file_magic[8] = {'L', 'O', 'O', 'M', 'T', 'I', 'L', 'E'};
// Version 2 records the writer's byte order and the widths of the tiles' integer arrays;
// version 1 (neither) is still read, in either byte order.
inline constexpr std::uint32_t tile_file_version = 2;
inline constexpr std::uint32_t tile_file_byte_order_mark = 0x01020304;

template <class T> std::string value_kind() {
  if constexpr (std::is_floating_point_v<T>) return "float";
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return "signed";
  if constexpr (std::is_integral_v<T>) return "unsigned";
  return "other";
}

inline std::string byte_order_name(std::endian e) {
  return e == std::endian::little ? "little-endian" : "big-endian";
}
inline std::endian other_byte_order() {
  return std::endian::native == std::endian::little ? std::endian::big : std::endian::little;
}

inline std::string widths_text(const std::vector<std::int64_t>& w) {
  std::string s;
  for (std::size_t i = 0; i < w.size(); ++i) s += (i ? "," : "") + std::to_string(w[i]);
  return s.empty() ? "none" : s;
}

inline void put_string(std::vector<char>& b, const std::string& s) {
  put(b, static_cast<std::int64_t>(s.size()));
  put_bytes(b, s.data(), s.size());
}

// The header's bytes, parts at their offsets (the offsets count the header itself).
inline std::vector<char> header_bytes(tile_file_header& h) {
  auto encode = [&] {
    std::vector<char> b;
    put_bytes(b, tile_file_magic, sizeof tile_file_magic);
    put(b, tile_file_version);
    put(b, tile_file_byte_order_mark);
    put(b, h.shape);
    put(b, h.bounds);
    put(b, h.tile_shape);
    put(b, h.nnz);
    put(b, h.tiles);
    put(b, h.value_bytes);
    put_string(b, h.value_kind);
    put_array(b, h.index_widths);
    put_string(b, h.format);
    put(b, static_cast<std::int32_t>(h.layout));
    put(b, h.ranks);
    put_array(b, h.cuts);
    std::vector<std::int64_t> on(h.key_positions.begin(), h.key_positions.end());
    put_array(b, on);
    put(b, static_cast<std::int64_t>(h.parts.size()));
    for (const auto& p : h.parts) put(b, p);
    return b;
  };
  h.header_bytes = static_cast<std::int64_t>(encode().size());
  std::int64_t at = h.header_bytes;
  for (auto& p : h.parts) {
    p.offset = at;
    at += p.bytes;
  }
  return encode();
}

// Reads and checks the header of a file of `file_bytes` bytes; counts the bytes read. A file
// written on the other byte order is read with every number's bytes reversed.
template <class T, storage_format Format>
tile_file_header read_header(std::ifstream& in, const std::string& who, std::int64_t& read,
                             std::int64_t file_bytes) {
  bool swap = false;
  auto bytes = [&](void* p, std::size_t n) {
    in.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    if (!in)
      throw parse_error(who + ": the header ends early (truncated, or not a loom tile file)");
    read += static_cast<std::int64_t>(n);
  };
  auto get = [&](auto& x) {
    bytes(&x, sizeof x);
    if (swap) swap_bytes(x);
  };
  auto corrupt = [&](const std::string& what) {
    return parse_error(who + ": a corrupt header (" + what + ")");
  };
  auto get_string = [&](std::string& s, const char* what) {
    std::int64_t n = 0;
    get(n);
    if (n < 0 || n > 4096) throw corrupt(std::string(what) + " of " + std::to_string(n) + " bytes");
    s.resize(static_cast<std::size_t>(n));
    bytes(s.data(), s.size());
  };
  auto get_ints = [&](std::vector<std::int64_t>& v, const char* what) {
    std::int64_t n = 0;
    get(n);
    if (n < 0 || n > (1 << 24)) throw corrupt(std::string(what) + ": " + std::to_string(n));
    v.resize(static_cast<std::size_t>(n));
    for (auto& e : v) get(e);
  };
  char magic[8];
  bytes(magic, sizeof magic);
  if (std::memcmp(magic, tile_file_magic, sizeof magic) != 0)
    throw parse_error(who + ": not a loom tile file (written by mpi::write_tiles)");
  tile_file_header h;
  std::uint32_t version = 0;
  get(version);
  std::uint32_t swapped = version;
  swap_bytes(swapped);
  if (version != 1 && version != tile_file_version && (swapped == 1 || swapped == 2)) {
    swap = true;
    version = swapped;
  }
  if (version != 1 && version != tile_file_version)
    throw parse_error(who + ": version " + std::to_string(version) + " (" +
                      std::to_string(swapped) +
                      " in the other byte order); this loom reads tile files of versions 1 "
                      "and 2");
  h.version = version;
  h.byte_order = swap ? other_byte_order() : std::endian::native;
  if (version >= 2) {
    std::uint32_t mark = 0;
    get(mark);
    if (mark != tile_file_byte_order_mark)
      throw corrupt("the byte order mark does not match the version's byte order");
  }
  if (swap && !std::is_arithmetic_v<T>)
    throw error(who + ": written on a " + byte_order_name(h.byte_order) +
                " machine, and values of a type that is not a number cannot be byte-swapped");
  get(h.shape);
  get(h.bounds);
  get(h.tile_shape);
  get(h.nnz);
  get(h.tiles);
  get(h.value_bytes);
  get_string(h.value_kind, "a value kind");
  if (version >= 2)
    get_ints(h.index_widths, "the count of integer widths");
  else
    h.index_widths = wire_widths<T, Format>();  // version 1: the reader's own, as before
  get_string(h.format, "a format name");
  std::int32_t layout = 0;
  get(layout);
  if (layout < 0 || layout > static_cast<std::int32_t>(tile_layout::cyclic))
    throw corrupt("partition layout " + std::to_string(layout));
  h.layout = static_cast<tile_layout>(layout);
  get(h.ranks);
  get_ints(h.cuts, "the count of cuts");
  std::vector<std::int64_t> on;
  get_ints(on, "the count of key positions");
  h.key_positions.assign(on.begin(), on.end());
  std::int64_t parts = 0;
  get(parts);
  if (parts < 0 || parts > (1 << 24)) throw corrupt("the count of parts: " + std::to_string(parts));
  h.parts.resize(static_cast<std::size_t>(parts));
  for (auto& p : h.parts) {
    get(p.offset);
    get(p.bytes);
    get(p.tiles);
    get(p.nnz);
  }
  h.header_bytes = read;
  std::int64_t at = h.header_bytes;
  for (std::size_t p = 0; p < h.parts.size(); ++p) {
    if (h.parts[p].offset != at || h.parts[p].bytes < 0)
      throw corrupt("part " + std::to_string(p) + " at byte " + std::to_string(h.parts[p].offset) +
                    " of " + std::to_string(h.parts[p].bytes) + " bytes, where " +
                    std::to_string(at) + " was expected");
    at += h.parts[p].bytes;
  }
  if (at > file_bytes)
    throw parse_error(who + ": truncated: the header describes " + std::to_string(at) +
                      " bytes, the file has " + std::to_string(file_bytes));
  if (h.value_bytes != static_cast<std::int64_t>(sizeof(T)) || h.value_kind != value_kind<T>())
    throw error(who + ": holds " + std::to_string(h.value_bytes) + "-byte " + h.value_kind +
                " values, not the " + std::to_string(sizeof(T)) + "-byte " + value_kind<T>() +
                " values asked for");
  if (h.format != format_name<Format>())
    throw error(who + ": holds tiles in " + h.format + ", not " + format_name<Format>() +
                " (read it in its own format, then convert)");
  if (h.index_widths != wire_widths<T, Format>())
    throw error(who + ": its tiles' integer arrays are " + widths_text(h.index_widths) +
                " bytes wide, " + format_name<Format>() + " here has " +
                widths_text(wire_widths<T, Format>()) + " (unknown integer widths)");
  return h;
}

// Every rank learns whether any failed; the failing rank rethrows its error, the others say
// which rank it was, so none waits in a collective for a rank that threw.
inline void agree(const transport& tr, std::exception_ptr failure, const std::string& who) {
  int mine = failure ? tr.rank() : -1, first = -1;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MAX, tr.comm()), "MPI_Allreduce");
  if (failure) std::rethrow_exception(failure);
  if (first >= 0)
    throw io_error(who + ": rank " + std::to_string(first) + " failed (rank " +
                   std::to_string(tr.rank()) + ")");
}
}  // namespace detail

/// Writes A to `path` as loom's partitioned tile file (version 2): a header (the writer's byte
/// order, shape, tile grid, entries, value type, the widths of the tiles' integer arrays, tile
/// format, A's partition) and an offset table, then each rank's tiles as one part, in their wire
/// form, every number in the writer's byte order. Collective: rank 0 writes the header, every rank writes its own
/// part at its offset, into `path` + ".loom-tmp", which is renamed to `path` only when every
/// rank succeeded; on a failure on any rank the temporary is removed, an existing `path` is left
/// as it was, and every rank throws loom::io_error naming the rank that failed.
template <class T, storage_format Format>
void write_tiles(const transport& tr, const distributed_matrix<T, Format>& A,
                 const std::string& path) {
  const std::string who = "loom::tra::mpi::write_tiles: '" + path + "'";
  const std::string temporary = path + ".loom-tmp";
  std::vector<char> part;
  for (const auto& [key, t] : A.tiles) detail::pack_tile(part, key, t);
  // every rank's part sizes (a few integers, not counted as traffic)
  const std::int64_t s = tr.sites();
  std::vector<std::int64_t> mine{static_cast<std::int64_t>(part.size()),
                                 static_cast<std::int64_t>(A.tiles.size()), A.tiles.nnz()},
      all(static_cast<std::size_t>(3 * s));
  check(MPI_Allgather(mine.data(), 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, tr.comm()),
        "MPI_Allgather");
  tile_file_header h;
  h.shape = A.shape;
  h.bounds = A.tiles.bounds();
  h.tile_shape = A.tiles.tile_shape();
  h.value_bytes = sizeof(T);
  h.value_kind = detail::value_kind<T>();
  h.index_widths = wire_widths<T, Format>();
  h.format = format_name<Format>();
  h.layout = A.partition.layout();
  h.ranks = A.partition.ranks();
  h.cuts = A.partition.cuts();
  h.key_positions = A.partition.key_positions();
  for (std::int64_t r = 0; r < s; ++r) {
    const auto at = static_cast<std::size_t>(3 * r);
    h.parts.push_back({0, all[at], all[at + 1], all[at + 2]});
    h.tiles += all[at + 1];
    h.nnz += all[at + 2];
  }
  const auto header = detail::header_bytes(h);
  auto fail_here = [&](const std::string& what) {
    return std::make_exception_ptr(
        io_error(who + ": " + what + " (rank " + std::to_string(tr.rank()) + ")"));
  };
  // rank 0 creates the temporary with the header, then every rank writes its part in place
  std::exception_ptr failure;
  if (tr.rank() == 0) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.close();
    if (!out) failure = fail_here("cannot write the temporary file '" + temporary + "'");
  }
  try {
    detail::agree(tr, failure, who);
  } catch (...) {
    if (tr.rank() == 0) {
      std::error_code ignored;
      if (!std::filesystem::is_directory(temporary, ignored))
        std::filesystem::remove(temporary, ignored);
    }
    throw;
  }
  if (!part.empty()) {
    std::fstream out(temporary, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(h.parts[static_cast<std::size_t>(tr.rank())].offset);
    out.write(part.data(), static_cast<std::streamsize>(part.size()));
    out.close();
    if (!out) failure = fail_here("cannot write its part into '" + temporary + "'");
  }
  // the rename only once every part is in; a failure removes the temporary
  int all_written = 0, written = failure ? 0 : 1;
  check(MPI_Allreduce(&written, &all_written, 1, MPI_INT, MPI_MIN, tr.comm()), "MPI_Allreduce");
  if (tr.rank() == 0) {
    std::error_code ec;
    if (all_written)
      std::filesystem::rename(temporary, path, ec);
    else
      std::filesystem::remove(temporary, ec);
    if (all_written && ec) failure = fail_here("cannot rename the temporary: " + ec.message());
  }
  detail::agree(tr, failure, who);
}

/// The header of a tile file (shape, tile grid, entries, format, partition, parts), read alone.
template <class T, storage_format Format>
tile_file_header read_tile_header(const std::string& path) {
  const std::string who = "loom::tra::mpi::read_tiles: '" + path + "'";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(who + ": cannot open the file");
  std::int64_t read = 0;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return detail::read_header<T, Format>(in, who, read,
                                        ec ? INT64_MAX : static_cast<std::int64_t>(size));
}

/// Reads a file of write_tiles into a distributed_matrix partitioned by `want` (the file's own
/// partition when absent and the job has as many ranks as the file has parts; else row blocks).
/// When the file's partition is the one asked for, rank r reads the header and part r only:
/// no rank holds more than its own tiles. Otherwise rank r reads a contiguous share of the parts
/// and the tiles are sent to their owners (one all-to-all): a rank then holds its share of the
/// file plus one exchange buffer. A file written on a machine of the other byte order is read
/// with every number's bytes reversed (values must then be numbers); files of version 1 are
/// read too. Every rank throws (loom::io_error, loom::parse_error or loom::error naming the file
/// and the rank) when any rank cannot open or read the file, its header is not loom's, is
/// truncated or has an unknown version, or the file holds another value type, integer widths or
/// tile format.
template <class T, storage_format Format>
distributed_matrix<T, Format> read_tiles(const transport& tr, const std::string& path,
                                         std::optional<tile_partition> want = std::nullopt,
                                         tile_read_report* report = nullptr) {
  const traffic before = tr.sent();
  const std::string who = "loom::tra::mpi::read_tiles: '" + path + "'";
  const int s = static_cast<int>(tr.sites()), me = tr.rank();
  tile_read_report rep;
  tile_file_header h;
  std::optional<distributed_matrix<T, Format>> read;
  std::exception_ptr failure;
  tile_partition target = tile_partition::row_blocks(s);
  bool in_place = false;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw io_error(who + ": cannot open the file (rank " + std::to_string(me) + ")");
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    h = detail::read_header<T, Format>(in, who + " (rank " + std::to_string(me) + ")",
                                       rep.bytes_read,
                                       ec ? INT64_MAX : static_cast<std::int64_t>(size));
    const auto stored = h.partition();
    const auto parts = static_cast<std::int64_t>(h.parts.size());
    const bool same_job = parts == s && stored.ranks() == s;
    target = want ? *want : same_job ? stored : tile_partition::row_blocks(s);
    target.check(s, me, h.bounds, "reading '" + path + "'");
    in_place = same_job && target.layout() == stored.layout() && target.cuts() == stored.cuts() &&
               target.key_positions() == stored.key_positions();
    const std::int64_t first = in_place ? me : parts * me / s,
                       last = in_place ? me + 1 : parts * (me + 1) / s;
    read.emplace(distributed_matrix<T, Format>{h.shape, in_place ? target : stored,
                                               sparse_relation<T, Format>(h.bounds, h.tile_shape),
                                               path});
    for (std::int64_t p = first; p < last; ++p) {
      const auto& part = h.parts[static_cast<std::size_t>(p)];
      std::vector<char> bytes(static_cast<std::size_t>(part.bytes));
      in.seekg(part.offset);
      in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!in)
        throw io_error(who + ": part " + std::to_string(p) + " ends early (rank " +
                       std::to_string(me) + ")");
      rep.bytes_read += part.bytes;
      rep.parts_read.push_back(p);
      detail::unpack_tiles(read->tiles, bytes, {0, bytes.size()},
                           h.byte_order != std::endian::native);
    }
  } catch (const io_error&) {
    failure = std::current_exception();
  } catch (const parse_error& e) {
    failure = std::make_exception_ptr(parse_error(e.what()));
  } catch (const error& e) {
    failure = std::make_exception_ptr(
        error(std::string(e.what()) + " (rank " + std::to_string(me) + ")"));
  }
  detail::agree(tr, failure, who);
  distributed_matrix<T, Format> out = in_place ? std::move(*read) : redistribute(tr, *read, target);
  if (report) {
    rep.sent = tr.sent() - before;
    *report = std::move(rep);
  }
  return out;
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_TILE_FILE_HPP
