// Defines loom::tra::mpi::tile_partition: which rank owns each tile key of a distributed matrix
// (row blocks, column blocks, a 2-D grid of ranks, hashed keys, key positions modulo the ranks as
// the IA's SHUF places tuples), and the check that a partition fits the job and the matrix
// (tra/mpi/). Needs no MPI itself.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_MPI_PARTITION_HPP
#define LOOM_TRA_MPI_PARTITION_HPP

#include <loom/core/error.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loom::tra::mpi {

/// How tile keys are spread over ranks.
enum class tile_layout { row_blocks, col_blocks, grid, hashed, cyclic };

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
  /// The key positions `on` (0 = tile row, 1 = tile column; both: the key) linearised in the
  /// tile grid, modulo the ranks: the placement of the IA's SHUF<on> (ia::site_of), so sparse
  /// and dense relations shuffled on the same positions put the same keys on the same rank.
  static tile_partition cyclic(std::int64_t ranks, std::vector<std::size_t> on) {
    for (std::size_t p : on)
      if (p > 1)
        throw error("loom::tra::mpi::tile_partition::cyclic: key position " + std::to_string(p) +
                    " of a matrix");
    tile_partition t{tile_layout::cyclic, ranks, {}};
    t.on_ = std::move(on);
    return t;
  }

  tile_layout layout() const { return layout_; }
  int ranks() const { return ranks_; }
  const std::vector<std::int64_t>& cuts() const { return cuts_; }
  /// The key positions of a cyclic partition.
  const std::vector<std::size_t>& key_positions() const { return on_; }
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
      case tile_layout::cyclic: {
        std::int64_t lin = 0;
        for (std::size_t p : on_) lin = lin * bounds[p] + key[p];
        return static_cast<int>(lin % ranks_);
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

  /// The partition of the transposed matrix that leaves every tile where it is: tile (J, I) of
  /// the transpose on the owner of (I, J) here. Row blocks become column blocks at the same cuts
  /// (and the reverse), key positions modulo the ranks the other positions; a grid and hashed
  /// keys have no such counterpart (std::nullopt).
  std::optional<tile_partition> transposed() const {
    switch (layout_) {
      case tile_layout::row_blocks:
        return tile_partition{tile_layout::col_blocks, ranks_, cuts_};
      case tile_layout::col_blocks:
        return tile_partition{tile_layout::row_blocks, ranks_, cuts_};
      case tile_layout::cyclic: {
        std::vector<std::size_t> on;
        for (std::size_t p : on_) on.push_back(1 - p);
        return cyclic(ranks_, std::move(on));
      }
      case tile_layout::grid:
      case tile_layout::hashed:
        break;
    }
    return std::nullopt;
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
      throw error(where + "the cuts of the partition (" + describe() +
                  ") must rise from 0 to the " + std::to_string(blocks) + " tile " +
                  (layout_ == tile_layout::row_blocks ? "rows" : "columns") + " of the matrix");
  }

  /// "row blocks over 4 ranks", "row blocks at tile rows 0,3,4,4", "2 x 2 grid of ranks", ...
  std::string describe() const {
    const std::string unit = layout_ == tile_layout::row_blocks ? "rows" : "columns";
    switch (layout_) {
      case tile_layout::row_blocks:
      case tile_layout::col_blocks: {
        std::string s = layout_ == tile_layout::row_blocks ? "row blocks" : "column blocks";
        if (cuts_.empty()) return s + " over " + std::to_string(ranks_) + " ranks";
        s += " at tile " + unit + " ";
        for (std::size_t c = 0; c < cuts_.size(); ++c) {
          if (c) s += ',';
          s += std::to_string(cuts_[c]);
        }
        return s;
      }
      case tile_layout::grid:
        return std::to_string(grid_rows()) + " x " + std::to_string(ranks_ / grid_rows()) +
               " grid of ranks";
      case tile_layout::cyclic: {
        std::string s = "key positions";
        for (std::size_t p : on_) {
          s += ' ';
          s += std::to_string(p);
        }
        return s + " modulo " + std::to_string(ranks_) + " ranks";
      }
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
  std::vector<std::size_t> on_;  // cyclic: the key positions
};

}  // namespace loom::tra::mpi

#endif  // LOOM_TRA_MPI_PARTITION_HPP
