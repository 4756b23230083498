// Defines distributed sparse matrices over MPI (tra/mpi/): tile_partition (which rank owns each
// tile key: row blocks, column blocks, a 2-D grid, hashed keys), distributed_matrix (a rank's own
// tiles in any loom format), the compact wire form of a tile (its level arrays and values, never
// expanded to dense), redistribution and gathering of tiles, and the Matrix Market reader in
// which each rank keeps only the entries of its own tiles.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_SPARSE_HPP
#define LOOM_TRA_MPI_SPARSE_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/assemble.hpp>
#  include <loom/format/format.hpp>
#  include <loom/format/tensor.hpp>
#  include <loom/io/matrix_market.hpp>
#  include <loom/tra/mpi/environment.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <boost/mp11/algorithm.hpp>

#  include <algorithm>
#  include <array>
#  include <climits>
#  include <cstddef>
#  include <cstdint>
#  include <cstring>
#  include <fstream>
#  include <map>
#  include <span>
#  include <string>
#  include <type_traits>
#  include <utility>
#  include <vector>

namespace loom::tra::mpi {

/// How tile keys are spread over ranks.
enum class tile_layout { row_blocks, col_blocks, grid, hashed };

/// Which rank owns each tile key (I, J) of a matrix of tile bounds B0 x B1. Row and column blocks
/// are contiguous ranges of tile rows (columns), balanced unless cut points are given; a grid
/// splits both; hashed keys scatter tiles evenly whatever the matrix's structure. A rank may own
/// nothing (more ranks than tile rows).
class tile_partition {
 public:
  /// Tile rows [B0 r / ranks, B0 (r + 1) / ranks) on rank r.
  static tile_partition row_blocks(std::int64_t ranks) {
    return {tile_layout::row_blocks, ranks, {}};
  }
  static tile_partition col_blocks(std::int64_t ranks) {
    return {tile_layout::col_blocks, ranks, {}};
  }
  /// Rank r owns tile rows [cuts[r], cuts[r + 1]): a skewed split. cuts has ranks + 1 entries,
  /// from 0 to the matrix's tile rows, not decreasing.
  static tile_partition row_blocks_at(std::vector<std::int64_t> cuts) {
    return {tile_layout::row_blocks, static_cast<std::int64_t>(cuts.size()) - 1, std::move(cuts)};
  }
  static tile_partition col_blocks_at(std::vector<std::int64_t> cuts) {
    return {tile_layout::col_blocks, static_cast<std::int64_t>(cuts.size()) - 1, std::move(cuts)};
  }
  /// A pr x pc grid of ranks (pr the largest divisor of ranks not above its square root), each
  /// owning a balanced block of tile rows by tile columns.
  static tile_partition grid(std::int64_t ranks) { return {tile_layout::grid, ranks, {}}; }
  static tile_partition hashed(std::int64_t ranks) { return {tile_layout::hashed, ranks, {}}; }

  tile_layout layout() const { return layout_; }
  int ranks() const { return ranks_; }
  const std::vector<std::int64_t>& cuts() const { return cuts_; }
  /// The grid's rows of ranks (1 unless a grid).
  int grid_rows() const {
    if (layout_ != tile_layout::grid) return 1;
    int pr = 1;
    for (int d = 1; d * d <= ranks_; ++d)
      if (ranks_ % d == 0) pr = d;
    return pr;
  }

  /// The rank owning tile key `key` of a matrix of tile bounds `bounds`.
  int owner(const std::array<std::int64_t, 2>& key,
            const std::array<std::int64_t, 2>& bounds) const {
    switch (layout_) {
      case tile_layout::row_blocks:
        return block_of(key[0], bounds[0]);
      case tile_layout::col_blocks:
        return block_of(key[1], bounds[1]);
      case tile_layout::grid: {
        const int pr = grid_rows(), pc = ranks_ / pr;
        return balanced(key[0], bounds[0], pr) * pc + balanced(key[1], bounds[1], pc);
      }
      case tile_layout::hashed:
        break;
    }
    // splitmix64 of the linear key: neighbouring tiles land on unrelated ranks
    std::uint64_t z =
        static_cast<std::uint64_t>(key[0] * bounds[1] + key[1]) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<int>((z ^ (z >> 31)) % static_cast<std::uint64_t>(ranks_));
  }

  /// The tile rows (row blocks) or tile columns (column blocks) of rank r: [first, last).
  std::array<std::int64_t, 2> range_of(int r, std::int64_t blocks) const {
    if (!cuts_.empty())
      return {cuts_[static_cast<std::size_t>(r)], cuts_[static_cast<std::size_t>(r) + 1]};
    return {blocks * r / ranks_, blocks * (r + 1) / ranks_};
  }

  /// Throws loom::error, naming `what` and the rank, unless this partition fits a job of
  /// `job_ranks` ranks and a matrix of tile bounds `bounds`.
  void check(int job_ranks, int rank, const std::array<std::int64_t, 2>& bounds,
             const std::string& what) const {
    const std::string where = "loom::tra::mpi: " + what + " (rank " + std::to_string(rank) + "): ";
    if (ranks_ != job_ranks)
      throw error(where + "the partition (" + describe() + ") is for " + std::to_string(ranks_) +
                  " ranks, but the job has " + std::to_string(job_ranks));
    if (cuts_.empty()) return;
    const std::int64_t blocks = layout_ == tile_layout::row_blocks ? bounds[0] : bounds[1];
    bool ok = cuts_.front() == 0 && cuts_.back() == blocks;
    for (std::size_t c = 1; c < cuts_.size(); ++c) ok = ok && cuts_[c - 1] <= cuts_[c];
    if (!ok)
      throw error(where + "the cuts " + describe() + " must rise from 0 to the " +
                  std::to_string(blocks) + " tile " +
                  (layout_ == tile_layout::row_blocks ? "rows" : "columns") + " of the matrix");
  }

  /// "row blocks over 4 ranks", "row blocks at tile rows 0,3,4,4", "2 x 2 grid", ...
  std::string describe() const {
    const std::string unit = layout_ == tile_layout::row_blocks ? "rows" : "columns";
    switch (layout_) {
      case tile_layout::row_blocks:
      case tile_layout::col_blocks: {
        std::string s = layout_ == tile_layout::row_blocks ? "row blocks" : "column blocks";
        if (cuts_.empty()) return s + " over " + std::to_string(ranks_) + " ranks";
        s += " at tile " + unit + " ";
        for (std::size_t c = 0; c < cuts_.size(); ++c)
          s += (c ? "," : "") + std::to_string(cuts_[c]);
        return s;
      }
      case tile_layout::grid:
        return std::to_string(grid_rows()) + " x " + std::to_string(ranks_ / grid_rows()) +
               " grid of ranks";
      case tile_layout::hashed:
        break;
    }
    return "hashed keys over " + std::to_string(ranks_) + " ranks";
  }

 private:
  tile_partition(tile_layout layout, std::int64_t ranks, std::vector<std::int64_t> cuts)
      : layout_(layout), ranks_(static_cast<int>(ranks)), cuts_(std::move(cuts)) {
    if (ranks < 1 || ranks > INT_MAX)
      throw error("loom::tra::mpi::tile_partition: " + std::to_string(ranks) +
                  " ranks: a partition needs at least one (and an int's worth at most)");
  }
  // The rank whose balanced share of `blocks` holds block b: the last r with blocks*r/parts <= b.
  static int balanced(std::int64_t b, std::int64_t blocks, int parts) {
    return static_cast<int>(((b + 1) * parts - 1) / std::max<std::int64_t>(blocks, 1));
  }
  int block_of(std::int64_t b, std::int64_t blocks) const {
    if (cuts_.empty()) return balanced(b, blocks, ranks_);
    return static_cast<int>(std::upper_bound(cuts_.begin(), cuts_.end(), b) - cuts_.begin()) - 1;
  }

  tile_layout layout_;
  int ranks_;
  std::vector<std::int64_t> cuts_;
};

/// A sparse matrix of logical `shape` spread over the ranks: `tiles` holds this rank's tiles
/// only (those `partition` gives it), each a loom tensor in `Format`; keys are global.
template <class T, storage_format Format> struct distributed_matrix {
  std::array<std::int64_t, 2> shape;
  tile_partition partition;
  sparse_relation<T, Format> tiles;
  std::string name = "A";
};

// The wire form of a tile -------------------------------------------------------------------

namespace detail {
// Levels whose storage is arrays named pos, crd, lo, bits, slot_pos, table plus an `extent`: sent
// as those arrays. Any other level (adaptive, a storage mapping) sends its tile as coordinates
// and values, reassembled on arrival.
template <class Level> struct sends_level_arrays : std::false_type {};
template <std::size_t E> struct sends_level_arrays<dense_level<E>> : std::true_type {};
template <uniqueness U, class P, class C>
struct sends_level_arrays<compressed_level<U, P, C>> : std::true_type {};
template <uniqueness U, class C>
struct sends_level_arrays<singleton_level<U, C>> : std::true_type {};
template <class P, class C> struct sends_level_arrays<banded_level<P, C>> : std::true_type {};
template <class C> struct sends_level_arrays<bitmap_level<C>> : std::true_type {};
template <class P, class C> struct sends_level_arrays<hashed_level<P, C>> : std::true_type {};
template <class Format>
inline constexpr bool sends_arrays =
    boost::mp11::mp_all_of<typename Format::levels, sends_level_arrays>::value;

// Visits every array of a level storage, in a fixed order.
template <class Storage, class F> void for_each_level_array(Storage& s, F&& f) {
  if constexpr (requires { s.pos; }) f(s.pos);
  if constexpr (requires { s.crd; }) f(s.crd);
  if constexpr (requires { s.lo; }) f(s.lo);
  if constexpr (requires { s.bits; }) f(s.bits);
  if constexpr (requires { s.slot_pos; }) f(s.slot_pos);
  if constexpr (requires { s.table; }) f(s.table);
}

inline void put_bytes(std::vector<char>& buf, const void* p, std::size_t n) {
  const std::size_t at = buf.size();
  buf.resize(at + n);
  if (n) std::memcpy(buf.data() + at, p, n);
}
template <class X> void put(std::vector<char>& buf, const X& x) { put_bytes(buf, &x, sizeof(X)); }
template <class Array> void put_array(std::vector<char>& buf, const Array& a) {
  put(buf, static_cast<std::int64_t>(a.size()));
  put_bytes(buf, a.data(), a.size() * sizeof(*a.data()));
}

// Reads what put wrote; a short buffer is a rank disagreeing on the matrix's type or format.
struct byte_reader {
  std::span<const char> buf;
  std::size_t at = 0;
  int from = 0;
  void get_bytes(void* p, std::size_t n) {
    if (n > buf.size() - at)
      throw error("loom::tra::mpi: a tile from rank " + std::to_string(from) +
                  " ends early (ranks disagree on the matrix's value type or format)");
    if (n) std::memcpy(p, buf.data() + at, n);
    at += n;
  }
  template <class X> X get() {
    X x{};
    get_bytes(&x, sizeof(X));
    return x;
  }
  template <class X> void get_array(std::vector<X>& a) {
    const auto n = get<std::int64_t>();
    if (n < 0 || static_cast<std::size_t>(n) > (buf.size() - at) / sizeof(X))
      throw error("loom::tra::mpi: a tile from rank " + std::to_string(from) +
                  " declares more entries than it holds");
    a.resize(static_cast<std::size_t>(n));
    get_bytes(a.data(), a.size() * sizeof(X));
  }
  bool done() const { return at == buf.size(); }
};
}  // namespace detail

/// Bytes of tile `t` with its key on the wire: two int64 keys, then each level array (an int64
/// length and its elements), each level's extent, and the values; for a level kept as
/// coordinates instead, an int64 count, two int32 coordinates and a value per entry.
template <class T, storage_format Format> std::size_t packed_bytes(const tensor<T, Format>& t) {
  static_assert(std::is_trivially_copyable_v<T>,
                "loom::tra::mpi: tiles must hold trivially copyable values to be sent");
  std::size_t n = 2 * sizeof(std::int64_t);
  if constexpr (detail::sends_arrays<Format>) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](const auto& s) {
        if constexpr (requires { s.extent; }) n += sizeof(std::int64_t);
        detail::for_each_level_array(
            s, [&](const auto& a) { n += sizeof(std::int64_t) + a.size() * sizeof(*a.data()); });
      }(t.template level<K>()));
    }(std::make_index_sequence<Format::order>{});
    return n + sizeof(std::int64_t) + t.values().size() * sizeof(T);
  } else {
    return n + sizeof(std::int64_t) +
           static_cast<std::size_t>(t.nnz()) * (2 * sizeof(std::int32_t) + sizeof(T));
  }
}

namespace detail {
template <class T, storage_format Format>
void pack_tile(std::vector<char>& buf, const std::array<std::int64_t, 2>& key,
               const tensor<T, Format>& t) {
  put(buf, key);
  if constexpr (sends_arrays<Format>) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](const auto& s) {
        if constexpr (requires { s.extent; }) put(buf, static_cast<std::int64_t>(s.extent));
        for_each_level_array(s, [&](const auto& a) { put_array(buf, a); });
      }(t.template level<K>()));
    }(std::make_index_sequence<Format::order>{});
    put_array(buf, t.values());
  } else {
    put(buf, t.nnz());
    t.for_each_stored([&](const auto& c, const T& v) {
      put(buf, static_cast<std::int32_t>(c[0]));
      put(buf, static_cast<std::int32_t>(c[1]));
      put(buf, v);
    });
  }
}

// One tile back from its wire form, checked like any tensor built from parts.
template <class T, storage_format Format>
std::pair<std::array<std::int64_t, 2>, tensor<T, Format>> unpack_tile(
    byte_reader& in, const std::array<std::int64_t, 2>& tile_shape) {
  const auto key = in.get<std::array<std::int64_t, 2>>();
  if constexpr (sends_arrays<Format>) {
    typename tensor<T, Format>::level_storages levels;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (..., [&](auto& s) {
        if constexpr (requires { s.extent; }) s.extent = in.get<std::int64_t>();
        for_each_level_array(s, [&](auto& a) { in.get_array(a); });
      }(std::get<K>(levels)));
    }(std::make_index_sequence<Format::order>{});
    std::vector<T> values;
    in.get_array(values);
    return {key, tensor<T, Format>(tile_shape, std::move(levels), std::move(values))};
  } else {
    const auto n = in.get<std::int64_t>();
    std::vector<std::array<std::int64_t, 2>> coords(
        static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    std::vector<T> values(coords.size());
    for (std::size_t e = 0; e < coords.size(); ++e) {
      coords[e] = {in.get<std::int32_t>(), in.get<std::int32_t>()};
      values[e] = in.get<T>();
    }
    return {key, from_coo<Format>(tile_shape, coords, values)};
  }
}

// Every tile in `buf` (parts from each rank at `offsets`) into `out`; a key already there is
// skipped (a tile sent by two ranks is the same tile).
template <class T, storage_format Format>
void unpack_tiles(sparse_relation<T, Format>& out, const std::vector<char>& buf,
                  const std::vector<std::size_t>& offsets) {
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    byte_reader in{std::span<const char>(buf.data() + offsets[r], offsets[r + 1] - offsets[r]), 0,
                   static_cast<int>(r)};
    while (!in.done()) {
      auto [key, t] = unpack_tile<T, Format>(in, out.tile_shape());
      if (!out.find(key)) out.insert(key, std::move(t));
    }
  }
}

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

// Reading a Matrix Market file in parts ---------------------------------------------------------

/// Reads the coordinate Matrix Market file at `path` into tiles of `tile_shape` spread by
/// `partition`. Every rank scans the whole file but keeps only the entries (and, in symmetric
/// files, the mirrored entries) that fall in its own tiles, so no rank holds the whole matrix;
/// repeated entries are summed. A file that cannot be opened or parsed throws loom::error naming
/// the file and the rank; so does a partition made for another number of ranks.
template <class T, storage_format Format = csr>
distributed_matrix<T, Format> read_matrix_market_tiles(
    const transport& tr, const std::string& path, const std::array<std::int64_t, 2>& tile_shape,
    const tile_partition& partition) {
  using sym = loom::detail::matrix_market_header::symmetry_kind;
  const std::string on_rank = " on rank " + std::to_string(tr.rank());
  std::ifstream file(path);
  if (!file)
    throw io_error("loom::tra::mpi::read_matrix_market_tiles: cannot open '" + path + "'" +
                   on_rank);
  for (std::size_t d = 0; d < 2; ++d)
    if (tile_shape[d] <= 0)
      throw shape_error("loom::tra::mpi::read_matrix_market_tiles: '" + path +
                        "': tile extents must be positive");
  std::map<std::array<std::int64_t, 2>,
           std::pair<std::vector<std::array<std::int64_t, 2>>, std::vector<T>>>
      parts;
  std::array<std::int64_t, 2> shape{}, bounds{};
  try {
    loom::detail::line_reader r(file, path);
    const auto h = loom::detail::read_matrix_market_banner(r);
    if (h.array)
      r.fail("an array file lists every value; read_matrix_market_tiles reads coordinate files");
    if (!r.next_data("%")) r.fail("unexpected end of input: expected the size line");
    std::array<std::string_view, 4> w{};
    if (r.split(w) != 3) r.fail("expected the size line 'rows columns entries'");
    shape = {r.count(w[0], "the number of rows"), r.count(w[1], "the number of columns")};
    const std::int64_t declared = r.count(w[2], "the number of entries");
    if (h.symmetry != sym::general && shape[0] != shape[1])
      r.fail("a symmetric or skew-symmetric matrix must be square");
    bounds = {(shape[0] + tile_shape[0] - 1) / tile_shape[0],
              (shape[1] + tile_shape[1] - 1) / tile_shape[1]};
    partition.check(static_cast<int>(tr.sites()), tr.rank(), bounds, "reading '" + path + "'");
    auto keep = [&](std::int64_t i, std::int64_t j, const T& v) {
      const std::array<std::int64_t, 2> key{i / tile_shape[0], j / tile_shape[1]};
      if (partition.owner(key, bounds) != tr.rank()) return;
      auto& [coords, values] = parts[key];
      coords.push_back({i % tile_shape[0], j % tile_shape[1]});
      values.push_back(v);
    };
    const std::size_t per_line = h.pattern ? 2 : 3;
    for (std::int64_t k = 0; k < declared; ++k) {
      if (!r.next_data("%"))
        r.fail("the size line declares " + std::to_string(declared) +
               " entries, but the file holds only " + std::to_string(k));
      if (r.split(w) != per_line)
        r.fail(h.pattern ? "expected an entry 'row column'" : "expected 'row column value'");
      const std::int64_t i = loom::detail::read_index(r, w[0], shape[0], "row");
      const std::int64_t j = loom::detail::read_index(r, w[1], shape[1], "column");
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
  } catch (const parse_error& e) {
    throw parse_error(e.what() + on_rank);
  } catch (const io_error& e) {
    throw io_error(e.what() + on_rank);
  }
  distributed_matrix<T, Format> out{shape, partition,
                                    sparse_relation<T, Format>(bounds, tile_shape), path};
  for (auto& [key, p] : parts)
    out.tiles.insert(key, from_coo<Format>(tile_shape, p.first, p.second, duplicates::sum));
  return out;
}

}  // namespace loom::tra::mpi

#endif  // __has_include(<mpi.h>)
#endif  // LOOM_TRA_MPI_SPARSE_HPP
