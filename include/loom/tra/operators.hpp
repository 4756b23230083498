// Defines the seven TRA operators over tensor relations with the paper's semantics (the TRA
// paper): aggregate (Σ), join (⋈), rekey, filter (σ), transform (λ), tile_dim (TILE), stack
// (STACK); plus duplicate (λᴸ with insert_dim) and dual_rekey (footnote 2) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_OPERATORS_HPP
#define LOOM_TRA_OPERATORS_HPP

#include <loom/core/error.hpp>
#include <loom/tra/counters.hpp>
#include <loom/tra/key_functions.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/tile.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra {

namespace detail {
template <class X> struct tile_traits;
template <class T, std::size_t R> struct tile_traits<tile<T, R>> {
  using value_type = T;
  static constexpr std::size_t rank = R;
};
template <class X> using tile_value_t = typename tile_traits<std::remove_cvref_t<X>>::value_type;
template <class X>
inline constexpr std::size_t tile_rank_v = tile_traits<std::remove_cvref_t<X>>::rank;

template <std::size_t K, std::size_t G>
key_array<G> pick(const key_array<K>& k, const std::array<std::size_t, G>& pos) {
  key_array<G> out{};
  for (std::size_t g = 0; g < G; ++g) out[g] = k[pos[g]];
  return out;
}
template <std::size_t K, std::size_t G>
std::array<std::size_t, K - G> complement(const std::array<std::size_t, G>& pos) {
  std::array<std::size_t, K - G> out{};
  std::size_t n = 0;
  for (std::size_t d = 0; d < K; ++d) {
    bool in = false;
    for (std::size_t p : pos) in = in || p == d;
    if (!in) out[n++] = d;
  }
  return out;
}
template <std::size_t K, std::size_t G>
void check_positions(const std::array<std::size_t, G>& pos, const char* who) {
  std::array<bool, K> seen{};
  for (std::size_t p : pos) {
    if (p >= K || seen[p])
      throw shape_error(std::string("loom::tra::") + who + ": key position " + std::to_string(p) +
                        " is out of range or repeated (key-arity " + std::to_string(K) + ")");
    seen[p] = true;
  }
}
}  // namespace detail

/// Σ(groupByKeys, aggOp): groups tuples by the key positions `gbk` (output key = that
/// projection, in gbk's order) and folds each group with `op` in key order. `op` must be
/// associative and commutative (the paper gives no order).
template <class T, std::size_t K, std::size_t R, std::size_t G, class Op>
relation<T, G, R> aggregate(const relation<T, K, R>& in, const std::array<std::size_t, G>& gbk,
                            Op op) {
  detail::check_positions<K>(gbk, "aggregate");
  relation<T, G, R> out(detail::pick(in.bounds(), gbk), in.tile_shape());
  for (const auto& [key, t] : in) out.merge(detail::pick(key, gbk), t, op);
  return out;
}

/// ⋈(joinKeysL, joinKeysR, projOp): every pair with left[jl[m]] == right[jr[m]] for all m gives
/// projOp(left tile, right tile) under the key [L∖jl, jl, R∖jr] (the paper's formal layout,
/// notes §2.2 item 2). Matched dimensions must have equal bounds (extended join integrity).
template <class T, std::size_t KL, std::size_t RL, class U, std::size_t KR, std::size_t RR,
          std::size_t G, class Op>
auto join(const relation<T, KL, RL>& left, const relation<U, KR, RR>& right,
          const std::array<std::size_t, G>& jl, const std::array<std::size_t, G>& jr, Op op) {
  using result_tile = std::remove_cvref_t<decltype(op(std::declval<const tile<T, RL>&>(),
                                                      std::declval<const tile<U, RR>&>()))>;
  using V = detail::tile_value_t<result_tile>;
  constexpr std::size_t RO = detail::tile_rank_v<result_tile>;
  constexpr std::size_t KO = KL + KR - G;
  detail::check_positions<KL>(jl, "join");
  detail::check_positions<KR>(jr, "join");
  for (std::size_t m = 0; m < G; ++m)
    if (left.bounds()[jl[m]] != right.bounds()[jr[m]])
      throw shape_error("loom::tra::join: left key position " + std::to_string(jl[m]) +
                        " has bound " + std::to_string(left.bounds()[jl[m]]) +
                        " but right key position " + std::to_string(jr[m]) + " has bound " +
                        std::to_string(right.bounds()[jr[m]]) +
                        " (extended join integrity: matched dimensions need equal bounds)");
  const auto lrest = detail::complement<KL>(jl);
  const auto rrest = detail::complement<KR>(jr);
  auto out_key = [&](const key_array<KL>& a, const key_array<KR>& b) {
    key_array<KO> o{};
    std::size_t n = 0;
    for (std::size_t p : lrest) o[n++] = a[p];
    for (std::size_t p : jl) o[n++] = a[p];
    for (std::size_t p : rrest) o[n++] = b[p];
    return o;
  };
  const key_array<KO> bounds = out_key(left.bounds(), right.bounds());
  std::map<key_array<G>, std::vector<const std::pair<const key_array<KR>, tile<U, RR>>*>> index;
  for (const auto& tuple : right) index[detail::pick(tuple.first, jr)].push_back(&tuple);
  shape_t<RO> shape{};
  bool have_shape = false;
  std::vector<std::pair<key_array<KO>, result_tile>> produced;
  for (const auto& [a, ta] : left) {
    auto it = index.find(detail::pick(a, jl));
    if (it == index.end()) continue;
    for (const auto* b : it->second) {
      produced.emplace_back(out_key(a, b->first), op(ta, b->second));
      if (!have_shape) shape = produced.back().second.shape();
      have_shape = true;
    }
  }
  if (!have_shape) {
    uncounted probe;
    shape = op(tile<T, RL>(left.tile_shape()), tile<U, RR>(right.tile_shape())).shape();
  }
  relation<V, KO, RO> out(bounds, shape);
  for (auto& [k, t] : produced) out.insert(k, std::move(t));
  return out;
}

/// Σ(gbk, aggOp)(⋈(jl, jr, projOp)(left, right)), fused when projOp can accumulate its product
/// into a tile with aggOp (matmul into a sum: no joined tile is materialised). Same result as
/// the two operators in sequence; the join's integrity checks still apply.
template <class T, std::size_t KL, std::size_t KR, std::size_t G, std::size_t GB, class Proj,
          class Agg>
auto join_aggregate(const relation<T, KL, 2>& left, const relation<T, KR, 2>& right,
                    const std::array<std::size_t, G>& jl, const std::array<std::size_t, G>& jr,
                    Proj proj, const std::array<std::size_t, GB>& gbk, Agg agg) {
  if constexpr (requires { typename Proj::accumulates_with; } &&
                std::is_same_v<typename Proj::accumulates_with, Agg>) {
    constexpr std::size_t KO = KL + KR - G;
    // the join's checks and output bounds, on empty relations (cheap)
    const auto probe = join(relation<T, KL, 2>(left.bounds(), left.tile_shape()),
                            relation<T, KR, 2>(right.bounds(), right.tile_shape()), jl, jr, proj);
    detail::check_positions<KO>(gbk, "join_aggregate");
    const auto lrest = detail::complement<KL>(jl);
    const auto rrest = detail::complement<KR>(jr);
    relation<T, GB, 2> out(detail::pick(probe.bounds(), gbk), probe.tile_shape());
    std::map<key_array<G>, std::vector<const std::pair<const key_array<KR>, tile<T, 2>>*>> index;
    for (const auto& tuple : right) index[detail::pick(tuple.first, jr)].push_back(&tuple);
    for (const auto& [a, ta] : left) {
      auto it = index.find(detail::pick(a, jl));
      if (it == index.end()) continue;
      for (const auto* b : it->second) {
        key_array<KO> o{};
        std::size_t n = 0;
        for (std::size_t p : lrest) o[n++] = a[p];
        for (std::size_t p : jl) o[n++] = a[p];
        for (std::size_t p : rrest) o[n++] = b->first[p];
        proj.accumulate_product(ta, b->second, out.get_or_zero(detail::pick(o, gbk)));
      }
    }
    return out;
  } else {
    return aggregate(join(left, right, jl, jr, proj), gbk, agg);
  }
}

/// σ(boolFunc): keeps the tuples whose key satisfies `pred` (keys only, never tile contents).
template <class T, std::size_t K, std::size_t R, class Pred>
relation<T, K, R> filter(const relation<T, K, R>& in, Pred pred) {
  relation<T, K, R> out(in.bounds(), in.tile_shape());
  for (const auto& [key, t] : in)
    if (pred(key)) out.insert(key, t);
  return out;
}

/// REKEY(keyFunc) with explicit output bounds. Throws duplicate_error when two keys map to one
/// (a non-injective key function breaks uniqueness: filter first, or aggregate instead).
namespace detail {
// REKEY of any relation (dense or sparse tiles) into `out`, empty and of the output's bounds.
template <class Out, class In, class F> Out rekey_into(Out out, const In& in, F& f) {
  using out_key = typename Out::key_type;
  std::map<out_key, typename In::key_type> source;
  for (const auto& [key, t] : in) {
    const out_key k = f(key);
    auto [it, fresh] = source.emplace(k, key);
    if (!fresh)
      throw duplicate_error("loom::tra::rekey: keys " + to_string(it->second) + " and " +
                            to_string(key) + " both map to " + to_string(k) +
                            "; the key function is not injective here (filter first, or use "
                            "aggregate)");
    out.insert(k, t);
  }
  return out;
}
}  // namespace detail

template <std::size_t KO, class T, std::size_t K, std::size_t R, class F>
relation<T, KO, R> rekey(const relation<T, K, R>& in, F f, const key_array<KO>& bounds) {
  return detail::rekey_into(relation<T, KO, R>(bounds, in.tile_shape()), in, f);
}
/// REKEY with an introspectable key function (project, permute, linearize): bounds derived.
template <class F, class T, std::size_t K, std::size_t R>
auto rekey(const relation<T, K, R>& in, F f = {}) {
  return rekey<F::out_arity>(in, f, F::bounds(in.bounds()));
}

/// λ(transformFunc): maps every tile, keys untouched.
template <class T, std::size_t K, std::size_t R, class F>
auto transform(const relation<T, K, R>& in, F f) {
  using result_tile = std::remove_cvref_t<decltype(f(std::declval<const tile<T, R>&>()))>;
  using V = detail::tile_value_t<result_tile>;
  constexpr std::size_t RO = detail::tile_rank_v<result_tile>;
  shape_t<RO> shape{};
  if (in.empty()) {
    uncounted probe;
    shape = f(tile<T, R>(in.tile_shape())).shape();
  }
  std::vector<std::pair<key_array<K>, result_tile>> produced;
  for (const auto& [key, t] : in) {
    produced.emplace_back(key, f(t));
    shape = produced.back().second.shape();
  }
  relation<V, K, RO> out(in.bounds(), shape);
  for (auto& [key, t] : produced) out.insert(key, std::move(t));
  return out;
}

/// TILE(tileDim, tileSize): splits every tile along array dimension `dim` (0 = rows) into tiles
/// of extent `size`; the piece number becomes a new, last key position (notes §2.2 item 6).
template <class T, std::size_t K, std::size_t R>
relation<T, K + 1, R> tile_dim(const relation<T, K, R>& in, std::size_t dim, std::int64_t size) {
  const auto& s = in.tile_shape();
  if (dim >= R || size <= 0 || s[dim] == 0 || s[dim] % size != 0)  // 0 pieces lose the keys
    throw shape_error("loom::tra::tile_dim: dimension " + std::to_string(dim) + " of tiles " +
                      to_string(s) + " cannot be cut into pieces of " + std::to_string(size) +
                      " (the paper's relations have no ragged tiles)");
  const std::int64_t pieces = s[dim] / size;
  shape_t<R> ps = s;
  ps[dim] = size;
  key_array<K + 1> bounds{};
  for (std::size_t d = 0; d < K; ++d) bounds[d] = in.bounds()[d];
  bounds[K] = pieces;
  relation<T, K + 1, R> out(bounds, ps);
  std::int64_t outer = 1, inner = 1;  // tile as (outer, s[dim], inner)
  for (std::size_t d = 0; d < dim; ++d) outer *= s[d];
  for (std::size_t d = dim + 1; d < R; ++d) inner *= s[d];
  for (const auto& [key, t] : in)
    for (std::int64_t p = 0; p < pieces; ++p) {
      tile<T, R> piece(ps);
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t x = 0; x < size; ++x)
          for (std::int64_t i = 0; i < inner; ++i)
            piece.data()[static_cast<std::size_t>((o * size + x) * inner + i)] =
                t.data()[static_cast<std::size_t>((o * s[dim] + p * size + x) * inner + i)];
      key_array<K + 1> k{};
      for (std::size_t d = 0; d < K; ++d) k[d] = key[d];
      k[K] = p;
      out.insert(k, std::move(piece));
    }
  return out;
}

/// STACK(keyDim, arrayDim): groups tuples by every key position except `key_dim` and
/// concatenates each group's tiles along `array_dim`, in `key_dim` order (the inverse of TILE).
/// Every group must hold all bound(key_dim) pieces.
template <class T, std::size_t K, std::size_t R>
  requires(K >= 1)
relation<T, K - 1, R> stack(const relation<T, K, R>& in, std::size_t key_dim,
                            std::size_t array_dim) {
  if (key_dim >= K || array_dim >= R)
    throw shape_error("loom::tra::stack: key dimension " + std::to_string(key_dim) +
                      " or array dimension " + std::to_string(array_dim) + " is out of range");
  const std::int64_t pieces = in.bounds()[key_dim];
  const auto& s = in.tile_shape();
  shape_t<R> big = s;
  big[array_dim] = s[array_dim] * pieces;
  key_array<K - 1> bounds{};
  for (std::size_t d = 0, n = 0; d < K; ++d)
    if (d != key_dim) bounds[n++] = in.bounds()[d];
  std::map<key_array<K - 1>, std::vector<const tile<T, R>*>> groups;
  for (const auto& [key, t] : in) {
    key_array<K - 1> g{};
    for (std::size_t d = 0, n = 0; d < K; ++d)
      if (d != key_dim) g[n++] = key[d];
    auto& slot = groups[g];
    slot.resize(static_cast<std::size_t>(pieces), nullptr);
    slot[static_cast<std::size_t>(key[key_dim])] = &t;
  }
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < array_dim; ++d) outer *= s[d];
  for (std::size_t d = array_dim + 1; d < R; ++d) inner *= s[d];
  relation<T, K - 1, R> out(bounds, big);
  for (const auto& [g, parts] : groups) {
    tile<T, R> whole(big);
    for (std::int64_t p = 0; p < pieces; ++p) {
      const tile<T, R>* t = parts[static_cast<std::size_t>(p)];
      if (!t)
        throw shape_error("loom::tra::stack: group " + to_string(g) + " lacks piece " +
                          std::to_string(p) + " of key dimension " + std::to_string(key_dim));
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t x = 0; x < s[array_dim]; ++x)
          for (std::int64_t i = 0; i < inner; ++i)
            whole.data()[static_cast<std::size_t>(
                (o * big[array_dim] + p * s[array_dim] + x) * inner + i)] =
                t->data()[static_cast<std::size_t>((o * s[array_dim] + x) * inner + i)];
    }
    out.insert(g, std::move(whole));
  }
  return out;
}

/// λᴸ(insert_dim<P>, duplicate(n)): every tuple copied n times, copy c under the key with c
/// inserted at position P (notes §4.3 as corrected by UT-6: no duplicate keys).
template <std::size_t P, class T, std::size_t K, std::size_t R>
  requires(P <= K)
relation<T, K + 1, R> duplicate(const relation<T, K, R>& in, std::int64_t n) {
  if (n < 0)
    throw shape_error("loom::tra::duplicate: " + std::to_string(n) + " copies of each tuple");
  relation<T, K + 1, R> out(insert_dim<P>::bounds(in.bounds(), n), in.tile_shape());
  for (const auto& [key, t] : in)
    for (std::int64_t c = 0; c < n; ++c) out.insert(insert_dim<P>::apply(key, c), t);
  return out;
}

/// The dual REKEY of footnote 2: the N keys, in lexicographic order, become <0> .. <N-1>, which
/// restores continuity after a filter.
template <class T, std::size_t K, std::size_t R>
relation<T, 1, R> dual_rekey(const relation<T, K, R>& in) {
  relation<T, 1, R> out({in.size()}, in.tile_shape());
  std::int64_t n = 0;
  for (const auto& [key, t] : in) out.insert({n++}, t);
  return out;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_OPERATORS_HPP
