// Defines the key and tile maps of the TRA over sparse tiles (tra/): σ (filter), REKEY, λ
// (transform) and duplicate of sparse_relations, and the transposes of a tile and of a block
// matrix in any loom format. With join and aggregation (sparse_operators.hpp) they are every
// operator an IA plan runs (ia/execute.hpp).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_SPARSE_MAPS_HPP
#define LOOM_TRA_SPARSE_MAPS_HPP

#include <loom/core/error.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/key_functions.hpp>
#include <loom/tra/operators.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/sparse_operators.hpp>
#include <loom/tra/sparse_tiles.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra {

/// The transpose of a matrix tile in any loom format, in the same format: entry (r, c) of `t`
/// is entry (c, r) of the result, whose shape is `t`'s reversed. One pass over the stored
/// entries, then loom's assembly (a sort by the new rows).
template <class T, storage_format Format> tensor<T, Format> transpose(const tensor<T, Format>& t) {
  static_assert(Format::order == 2, "loom::tra::transpose: the tile must be a matrix");
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<T> values;
  coords.reserve(static_cast<std::size_t>(t.nnz()));
  values.reserve(static_cast<std::size_t>(t.nnz()));
  t.for_each_stored([&](const auto& c, const T& v) {
    coords.push_back({static_cast<std::int64_t>(c[1]), static_cast<std::int64_t>(c[0])});
    values.push_back(v);
  });
  return from_coo<Format>({t.extent(1), t.extent(0)}, coords, values);
}

/// The transpose of a block-sparse matrix: tile (I, J) becomes tile (J, I), transposed; the
/// bounds and the tile shape are reversed. Absent tiles stay absent.
template <class T, storage_format Format>
sparse_relation<T, Format> transpose(const sparse_relation<T, Format>& r) {
  sparse_relation<T, Format> out({r.bounds()[1], r.bounds()[0]},
                                 {r.tile_shape()[1], r.tile_shape()[0]});
  for (const auto& [key, t] : r) out.insert({key[1], key[0]}, transpose(t));
  return out;
}

/// σ(boolFunc) over sparse tiles: keeps the tuples whose key satisfies `pred` (keys only).
template <class T, storage_format F, std::size_t K, class Pred>
sparse_relation<T, F, K> filter(const sparse_relation<T, F, K>& in, Pred pred) {
  sparse_relation<T, F, K> out(in.bounds(), in.tile_shape());
  for (const auto& [key, t] : in)
    if (pred(key)) out.insert(key, t);
  return out;
}

/// REKEY(keyFunc) over sparse tiles with explicit output bounds; two keys mapped to one throw
/// duplicate_error, as for dense tiles.
template <std::size_t KO, class T, storage_format F, std::size_t K, class Fn>
sparse_relation<T, F, KO> rekey(const sparse_relation<T, F, K>& in, Fn f,
                                const key_array<KO>& bounds) {
  return detail::rekey_into(sparse_relation<T, F, KO>(bounds, in.tile_shape()), in, f);
}
/// REKEY with an introspectable key function (project, permute, linearize): bounds derived.
template <class Fn, class T, storage_format F, std::size_t K>
auto rekey(const sparse_relation<T, F, K>& in, Fn f = {}) {
  return rekey<Fn::out_arity>(in, f, Fn::bounds(in.bounds()));
}

namespace detail {
// A tile map as it applies to a sparse tile: transpose_tile transposes in the tile's format; any
// other map must take a loom matrix and return one.
template <class Map> auto sparse_tile_map(const Map& m) {
  if constexpr (std::is_same_v<Map, transpose_tile>)
    return [](const auto& t) { return transpose(t); };
  else
    return m;
}
}  // namespace detail

/// λ(transformFunc) over sparse tiles: maps every tile, keys untouched. The map takes a loom
/// matrix and returns one (transpose_tile does; diag_extract makes vectors, which a sparse
/// relation does not hold, and does not compile here).
template <class T, storage_format F, std::size_t K, class Map>
auto transform(const sparse_relation<T, F, K>& in, Map map) {
  const auto f = detail::sparse_tile_map(map);
  static_assert(std::is_invocable_v<decltype(f), const tensor<T, F>&>,
                "loom::tra::transform: over sparse tiles a tile map takes a loom matrix tile "
                "(tensor<T, Format>) and returns one; this map takes only dense tiles");
  using result = std::remove_cvref_t<decltype(f(std::declval<const tensor<T, F>&>()))>;
  using Out = typename detail::tile_format<result>::type;
  static_assert(Out::order == 2,
                "loom::tra::transform: over sparse tiles a tile map must return a matrix");
  std::vector<std::pair<key_array<K>, result>> produced;
  for (const auto& [key, t] : in) produced.emplace_back(key, f(t));
  const shape_t<2> shape =
      produced.empty() ? f(tensor<T, F>(in.tile_shape())).shape() : produced.front().second.shape();
  sparse_relation<T, Out, K> out(in.bounds(), shape);
  for (auto& [key, t] : produced) out.insert(key, std::move(t));
  return out;
}

/// λᴸ(insert_dim<P>, duplicate(n)) over sparse tiles: every tuple copied n times, copy c under
/// the key with c inserted at position P.
template <std::size_t P, class T, storage_format F, std::size_t K>
  requires(P <= K)
sparse_relation<T, F, K + 1> duplicate(const sparse_relation<T, F, K>& in, std::int64_t n) {
  if (n < 0)
    throw shape_error("loom::tra::duplicate: " + std::to_string(n) + " copies of each tuple");
  sparse_relation<T, F, K + 1> out(insert_dim<P>::bounds(in.bounds(), n), in.tile_shape());
  for (const auto& [key, t] : in)
    for (std::int64_t c = 0; c < n; ++c) out.insert(insert_dim<P>::apply(key, c), t);
  return out;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_SPARSE_MAPS_HPP
