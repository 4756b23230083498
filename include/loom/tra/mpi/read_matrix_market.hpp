// Defines loom::tra::mpi::read_matrix_market_tiles: a coordinate Matrix Market file read into a
// distributed_matrix, each rank scanning the file and keeping only the entries of its own tiles
// (tra/mpi/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_READ_MATRIX_MARKET_HPP
#define LOOM_TRA_MPI_READ_MATRIX_MARKET_HPP

#if __has_include(<mpi.h>)
#  include <loom/core/error.hpp>
#  include <loom/format/assemble.hpp>
#  include <loom/format/format.hpp>
#  include <loom/io/matrix_market.hpp>
#  include <loom/tra/mpi/partition.hpp>
#  include <loom/tra/mpi/sparse.hpp>
#  include <loom/tra/mpi/transport.hpp>
#  include <loom/tra/sparse_tiles.hpp>

#  include <array>
#  include <cstdint>
#  include <fstream>
#  include <map>
#  include <string>
#  include <string_view>
#  include <utility>
#  include <vector>

namespace loom::tra::mpi {

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
#endif  // LOOM_TRA_MPI_READ_MATRIX_MARKET_HPP
