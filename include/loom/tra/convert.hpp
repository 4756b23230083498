// Defines the conversions between loom tensors (any format, views too) and tiled tensors, i.e.
// relations whose key grid has the tensor's order: to_tiled and from_tiled (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_CONVERT_HPP
#define LOOM_TRA_CONVERT_HPP

#include <loom/core/error.hpp>
#include <loom/core/progress.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/tensor.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/tile.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::tra {

/// A tiled tensor of order R: key <t_0, ..., t_{R-1}> holds the tile starting at coordinate
/// t_d * tile_shape_d. Edge tiles are padded with zeros (an explicit extension: the paper has no
/// ragged tiles); `shape` remembers the logical extents.
template <class T, std::size_t R> struct tiled_tensor {
  relation<T, R, R> tiles;
  shape_t<R> shape{};
};

/// Which tiles `to_tiled` stores.
enum class empty_tiles {
  keep,  ///< every tile of the grid (a full box: Card = prod bounds, as the cost model assumes)
  drop   ///< only tiles holding a stored entry (block-sparse)
};

/// Tiles a loom tensor (any format) into tiles of `tile_shape`. Progress (loom::set_progress)
/// counts the tiles stored.
template <tensor_type Tensor>
auto to_tiled(const Tensor& t, const shape_t<Tensor::order>& tile_shape,
              empty_tiles policy = empty_tiles::keep) {
  constexpr std::size_t R = Tensor::order;
  using T = std::remove_const_t<typename Tensor::value_type>;
  key_array<R> bounds{};
  for (std::size_t d = 0; d < R; ++d) {
    if (tile_shape[d] <= 0)
      throw shape_error("loom::tra::to_tiled: tile extent " + std::to_string(tile_shape[d]) +
                        " of dimension " + std::to_string(d) + " must be positive");
    bounds[d] = (t.shape()[d] + tile_shape[d] - 1) / tile_shape[d];
  }
  tiled_tensor<T, R> out{relation<T, R, R>(bounds, tile_shape), t.shape()};
  std::map<key_array<R>, tile<T, R>> tiles;
  if (policy == empty_tiles::keep) {
    key_array<R> k{};
    const std::int64_t n = volume(bounds);
    for (std::int64_t f = 0; f < n; ++f) {
      std::int64_t r = f;
      for (std::size_t d = R; d-- > 0;) {
        k[d] = r % bounds[d];
        r /= bounds[d];
      }
      tiles.emplace(k, tile<T, R>(tile_shape));
    }
  }
  t.for_each_stored([&](const auto& c, const auto& v) {
    key_array<R> k{};
    std::int64_t off = 0;
    for (std::size_t d = 0; d < R; ++d) {
      k[d] = c[d] / tile_shape[d];
      off = off * tile_shape[d] + c[d] % tile_shape[d];
    }
    auto it = tiles.try_emplace(k, tile_shape).first;
    it->second.data()[static_cast<std::size_t>(off)] = v;
  });
  loom::detail::progress_reporter progress("tiling", "", static_cast<std::int64_t>(tiles.size()),
                                           "tiles");
  std::int64_t stored = 0;
  for (auto& [k, tl] : tiles) {
    progress.advance_to(stored++);
    out.tiles.insert(k, std::move(tl));
  }
  progress.finish();
  return out;
}

/// The loom tensor in `Format` holding a tiled tensor's entries (padding dropped; for sparse
/// formats, zeros are not stored). Progress counts the tiles read.
template <storage_format Format, class T, std::size_t R>
tensor<T, Format> from_tiled(const tiled_tensor<T, R>& tt) {
  static_assert(Format::order == R,
                "loom::tra::from_tiled: the format's order must be the tensor's");
  std::vector<std::array<std::int64_t, R>> coords;
  std::vector<T> values;
  const auto& ts = tt.tiles.tile_shape();
  const std::int64_t n = volume(ts);
  loom::detail::progress_reporter progress("untiling", "", tt.tiles.size(), "tiles");
  std::int64_t visited = 0;
  for (const auto& [key, tl] : tt.tiles) {
    progress.advance_to(visited++);
    for (std::int64_t f = 0; f < n; ++f) {
      std::array<std::int64_t, R> c{};
      std::int64_t r = f;
      bool inside = true;
      for (std::size_t d = R; d-- > 0;) {
        c[d] = key[d] * ts[d] + r % ts[d];
        r /= ts[d];
        inside = inside && c[d] < tt.shape[d];
      }
      const T v = tl.data()[static_cast<std::size_t>(f)];
      if (!inside || (!Format::all_dense && v == semiring_traits<T>::zero())) continue;
      coords.push_back(c);
      values.push_back(v);
    }
  }
  tensor<T, Format> t = from_coo<Format>(tt.shape, coords, values);
  progress.finish();
  return t;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_CONVERT_HPP
