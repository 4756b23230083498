// Defines loom::tra::sparse_relation<T, Format>: a block-sparse matrix as a relation from tile
// keys to tiles stored in any loom format (csr, dcsr, dense, a mapping, ...), with its conversion
// from and to loom tensors and the block matrix product whose tile products are loom kernels
// (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_SPARSE_TILES_HPP
#define LOOM_TRA_SPARSE_TILES_HPP

#include <loom/core/error.hpp>
#include <loom/core/index.hpp>
#include <loom/core/progress.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/tensor.hpp>
#include <loom/tra/tile.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace loom::tra {

/// A matrix of `bounds` tiles of `tile_shape` each, the tiles that hold entries stored as loom
/// tensors in `Format` (keys ordered; an absent key is a zero tile). The relation of notes §2.3
/// with loom tensors as values, so a tile's product is a loom kernel over its format. K is the
/// key-arity: 2 for a block matrix, more for what a join makes before its aggregation.
template <class T, storage_format Format, std::size_t K = 2> class sparse_relation {
  static_assert(Format::order == 2, "loom::tra::sparse_relation: tiles are matrices");

 public:
  using value_type = T;
  using format_type = Format;
  static constexpr std::size_t key_arity = K;
  static constexpr std::size_t rank = 2;  // of every tile
  using tile_type = tensor<T, Format>;
  using key_type = std::array<std::int64_t, K>;
  /// The relation of the same tiles under K2 keys (what a pre-aggregation adds a key to).
  template <std::size_t K2> using with_key_arity = sparse_relation<T, Format, K2>;

  sparse_relation(const key_type& bounds, const shape_t<2>& tile_shape)
      : bounds_(bounds), tile_shape_(tile_shape) {
    for (std::size_t d = 0; d < K; ++d)
      if (bounds_[d] < 0)
        throw shape_error("loom::tra::sparse_relation: bounds " + to_string(bounds_) +
                          " must be non-negative");
    for (std::size_t d = 0; d < 2; ++d)
      if (tile_shape_[d] <= 0)
        throw shape_error("loom::tra::sparse_relation: bounds " + to_string(bounds_) +
                          " and tile shape " + to_string(tile_shape_) +
                          " must be non-negative and positive");
  }

  const key_type& bounds() const { return bounds_; }
  const shape_t<2>& tile_shape() const { return tile_shape_; }
  std::size_t size() const { return tiles_.size(); }
  bool empty() const { return tiles_.empty(); }
  /// Stored entries over every tile.
  std::int64_t nnz() const {
    std::int64_t n = 0;
    for (const auto& [k, t] : tiles_) n += t.nnz();
    return n;
  }
  auto begin() const { return tiles_.begin(); }
  auto end() const { return tiles_.end(); }
  const tile_type* find(const key_type& k) const {
    const auto it = tiles_.find(k);
    return it == tiles_.end() ? nullptr : &it->second;
  }
  tile_type* find(const key_type& k) {
    const auto it = tiles_.find(k);
    return it == tiles_.end() ? nullptr : &it->second;
  }

  /// Stores `t` at key `k` (inside the bounds, of the tile shape, once).
  void insert(const key_type& k, tile_type t) {
    for (std::size_t d = 0; d < K; ++d)
      if (k[d] < 0 || k[d] >= bounds_[d])
        throw shape_error("loom::tra::sparse_relation: key " + to_string(k) +
                          " outside the bounds " + to_string(bounds_));
    if (t.extent(0) != tile_shape_[0] || t.extent(1) != tile_shape_[1])
      throw shape_error("loom::tra::sparse_relation: a tile of shape (" +
                        std::to_string(t.extent(0)) + "," + std::to_string(t.extent(1)) +
                        ") in a relation of tile shape " + to_string(tile_shape_));
    if (!tiles_.emplace(k, std::move(t)).second)
      throw duplicate_error("loom::tra::sparse_relation: key " + to_string(k) + " twice");
  }

 private:
  template <std::size_t N> static std::string to_string(const std::array<std::int64_t, N>& a) {
    std::string s = "(";
    for (std::size_t d = 0; d < N; ++d) {  // appended piece by piece: GCC 12 -Wrestrict
      if (d) s += ',';
      s += std::to_string(a[d]);
    }
    return s + ")";
  }
  key_type bounds_;
  shape_t<2> tile_shape_;
  std::map<key_type, tile_type> tiles_;
};

/// A loom matrix (any format) cut into tiles of `tile_shape`, each tile that holds an entry
/// stored in `Format` (edge tiles padded: their extra rows and columns hold nothing). Progress
/// (loom::set_progress) counts the tiles stored.
template <storage_format Format, class Tensor>
sparse_relation<std::remove_const_t<typename Tensor::value_type>, Format> to_sparse_tiles(
    const Tensor& t, const shape_t<2>& tile_shape) {
  static_assert(Tensor::order == 2, "loom::tra::to_sparse_tiles: a matrix");
  using T = std::remove_const_t<typename Tensor::value_type>;
  for (std::size_t d = 0; d < 2; ++d)
    if (tile_shape[d] <= 0)
      throw shape_error("loom::tra::to_sparse_tiles: tile extent " + std::to_string(tile_shape[d]) +
                        " of dimension " + std::to_string(d) + " must be positive");
  const std::array<std::int64_t, 2> bounds{(t.extent(0) + tile_shape[0] - 1) / tile_shape[0],
                                           (t.extent(1) + tile_shape[1] - 1) / tile_shape[1]};
  std::map<std::array<std::int64_t, 2>,
           std::pair<std::vector<std::array<std::int64_t, 2>>, std::vector<T>>>
      parts;
  t.for_each_stored([&](const auto& c, const auto& v) {
    if (v == semiring_traits<T>::zero()) return;
    auto& [coords, values] = parts[{c[0] / tile_shape[0], c[1] / tile_shape[1]}];
    coords.push_back({c[0] % tile_shape[0], c[1] % tile_shape[1]});
    values.push_back(v);
  });
  sparse_relation<T, Format> out(bounds, tile_shape);
  loom::detail::progress_reporter progress("tiling", "", static_cast<std::int64_t>(parts.size()),
                                           "tiles");
  std::int64_t stored = 0;
  for (auto& [k, p] : parts) {
    progress.advance_to(stored++);
    out.insert(k, from_coo<Format>(tile_shape, p.first, p.second));
  }
  progress.finish();
  return out;
}

/// The loom matrix in `Format`, of `shape`, holding a sparse relation's entries. Progress counts
/// the tiles read.
template <storage_format Format, class T, storage_format TileFormat>
tensor<T, Format> from_sparse_tiles(const sparse_relation<T, TileFormat>& r,
                                    const std::array<std::int64_t, 2>& shape) {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<T> values;
  const auto& ts = r.tile_shape();
  loom::detail::progress_reporter progress("untiling", "", static_cast<std::int64_t>(r.size()),
                                           "tiles");
  std::int64_t visited = 0;
  for (const auto& tuple : r) {
    progress.advance_to(visited++);
    const auto& k = tuple.first;  // not a structured binding: clang 14 cannot capture one
    tuple.second.for_each_stored([&](const auto& c, const T& v) {
      const std::int64_t i = k[0] * ts[0] + c[0], j = k[1] * ts[1] + c[1];
      if (i < shape[0] && j < shape[1] && (Format::all_dense || v != semiring_traits<T>::zero())) {
        coords.push_back({i, j});
        values.push_back(v);
      }
    });
  }
  tensor<T, Format> t = from_coo<Format>(shape, coords, values, duplicates::sum);
  progress.finish();
  return t;
}

/// What `block_matmul` did: the tile pairs multiplied (only keys present on both sides meet).
struct block_matmul_report {
  std::int64_t tile_products = 0;
  std::int64_t output_tiles = 0;
};

/// C = A B over tiles: for every pair of stored tiles A(I, K) and B(K, J), the loom kernel
/// C_IJ(i, j) += sum(k, A_IK(i, k) * B_KJ(k, j)) in the tiles' own formats, each output tile in
/// `OutFormat` (csr, dense_matrix, ...); absent tiles cost nothing (the block-sparse join).
template <storage_format OutFormat, class T, storage_format FA, storage_format FB>
sparse_relation<T, OutFormat> block_matmul(const sparse_relation<T, FA>& A,
                                           const sparse_relation<T, FB>& B,
                                           block_matmul_report* report = nullptr) {
  if (A.bounds()[1] != B.bounds()[0] || A.tile_shape()[1] != B.tile_shape()[0])
    throw shape_error("loom::tra::block_matmul: A has " + std::to_string(A.bounds()[1]) +
                      " tile columns of " + std::to_string(A.tile_shape()[1]) + ", B has " +
                      std::to_string(B.bounds()[0]) + " tile rows of " +
                      std::to_string(B.tile_shape()[0]));
  constexpr loom::index<"tra_i"> i;
  constexpr loom::index<"tra_j"> j;
  constexpr loom::index<"tra_k"> k;
  // B's tiles by their row key K
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, const tensor<T, FB>*>>> by_row;
  for (const auto& [key, t] : B) by_row[key[0]].push_back({key[1], &t});
  std::map<std::array<std::int64_t, 2>, tensor<T, OutFormat>> out;
  const shape_t<2> ts{A.tile_shape()[0], B.tile_shape()[1]};
  block_matmul_report rep;
  for (const auto& [ka, ta] : A) {
    const auto it = by_row.find(ka[1]);
    if (it == by_row.end()) continue;
    for (const auto& [jb, tb] : it->second) {
      auto [slot, fresh] = out.try_emplace({ka[0], jb}, ts);
      if (fresh)
        slot->second(i, j) = loom::sum(k, ta(i, k) * (*tb)(k, j));
      else
        slot->second(i, j) += loom::sum(k, ta(i, k) * (*tb)(k, j));
      ++rep.tile_products;
    }
  }
  sparse_relation<T, OutFormat> C({A.bounds()[0], B.bounds()[1]}, ts);
  for (auto& [key, t] : out) C.insert(key, std::move(t));
  rep.output_tiles = static_cast<std::int64_t>(C.size());
  if (report) *report = rep;
  return C;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_SPARSE_TILES_HPP
