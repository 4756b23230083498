// Defines the TRA operators over sparse tiles (tra/): join (⋈) and aggregation (Σ) of
// sparse_relations whose tiles are loom tensors in any matrix format, the fused Σ∘⋈ of a block
// product, and the tile kernels they take (product, sum, element-wise product), each a loom kernel
// in the tiles' own formats.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_SPARSE_OPERATORS_HPP
#define LOOM_TRA_SPARSE_OPERATORS_HPP

#include <loom/core/error.hpp>
#include <loom/core/index.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/format/assembly/workspace_storage.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/sparse_tiles.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::tra {

template <storage_format Out> struct sparse_mat_add;

namespace detail {
/// Runs `product` with a dense workspace when the output tile has at most 4096 cells (a row space
/// of a few KB, the cheapest kind there whatever the entries) and no kind is forced: the runtime
/// choice would estimate it from the tiles' statistics for every product, which costs more than
/// a product of small tiles (half a tiled SpGEMM's time in tests/mpi/sparse_plans).
template <class Product> void with_small_tile_workspace(std::int64_t cells, Product&& product) {
  if (cells > 4096 || loom::detail::forced_workspace) {
    product();
    return;
  }
  const loom::scoped_workspace dense(loom::workspace_kind::dense);
  product();
}
}  // namespace detail

/// The tile product C(i, j) = sum(k, A(i, k) * B(k, j)) as a loom kernel over the tiles' formats,
/// C in `Out`; it accumulates into a tile of a sum (`join_aggregate` then materialises no
/// joined tile). A small output tile is written through a dense workspace without estimating
/// one (detail::with_small_tile_workspace).
template <storage_format Out> struct sparse_mat_mul {
  using accumulates_with = sparse_mat_add<Out>;
  template <class T, storage_format FA, storage_format FB>
  tensor<T, Out> operator()(const tensor<T, FA>& a, const tensor<T, FB>& b) const {
    constexpr loom::index<"tra_i"> i;
    constexpr loom::index<"tra_j"> j;
    constexpr loom::index<"tra_k"> k;
    tensor<T, Out> c({a.extent(0), b.extent(1)});
    detail::with_small_tile_workspace(a.extent(0) * b.extent(1),
                                      [&] { c(i, j) = loom::sum(k, a(i, k) * b(k, j)); });
    return c;
  }
  template <class T, storage_format FA, storage_format FB>
  void accumulate_product(const tensor<T, FA>& a, const tensor<T, FB>& b, tensor<T, Out>& c) const {
    constexpr loom::index<"tra_i"> i;
    constexpr loom::index<"tra_j"> j;
    constexpr loom::index<"tra_k"> k;
    detail::with_small_tile_workspace(a.extent(0) * b.extent(1),
                                      [&] { c(i, j) += loom::sum(k, a(i, k) * b(k, j)); });
  }
};

/// The tile sum C = A + B (the union of their entries), C in `Out`; `accumulate` adds into C.
template <storage_format Out> struct sparse_mat_add {
  template <class T, storage_format FA, storage_format FB>
  tensor<T, Out> operator()(const tensor<T, FA>& a, const tensor<T, FB>& b) const {
    constexpr loom::index<"tra_i"> i;
    constexpr loom::index<"tra_j"> j;
    tensor<T, Out> c(a.shape());
    c(i, j) = a(i, j) + b(i, j);
    return c;
  }
  template <class T, storage_format F>
  void accumulate(tensor<T, Out>& c, const tensor<T, F>& b) const {
    constexpr loom::index<"tra_i"> i;
    constexpr loom::index<"tra_j"> j;
    c(i, j) += b(i, j);
  }
};

/// The element-wise tile product C = A ∘ B (the intersection of their entries), C in `Out`: the
/// kernel of a join on both keys.
template <storage_format Out> struct sparse_hadamard {
  template <class T, storage_format FA, storage_format FB>
  tensor<T, Out> operator()(const tensor<T, FA>& a, const tensor<T, FB>& b) const {
    constexpr loom::index<"tra_i"> i;
    constexpr loom::index<"tra_j"> j;
    tensor<T, Out> c(a.shape());
    c(i, j) = a(i, j) * b(i, j);
    return c;
  }
};

namespace detail {
template <std::size_t K, std::size_t G>
std::array<std::int64_t, G> pick_keys(const std::array<std::int64_t, K>& k,
                                      const std::array<std::size_t, G>& pos) {
  std::array<std::int64_t, G> out{};
  for (std::size_t g = 0; g < G; ++g) out[g] = k[pos[g]];
  return out;
}
template <std::size_t K, std::size_t G>
std::array<std::size_t, K - G> other_positions(const std::array<std::size_t, G>& pos) {
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
void check_key_positions(const std::array<std::size_t, G>& pos, const char* who) {
  std::array<bool, K> seen{};
  for (std::size_t p : pos) {
    if (p >= K || seen[p])
      throw shape_error(std::string("loom::tra::") + who + ": key position " + std::to_string(p) +
                        " is out of range or repeated (key-arity " + std::to_string(K) + ")");
    seen[p] = true;
  }
}

// The join's key layout [L∖jl, jl, R∖jr], its bounds and checks, shared by join and
// join_aggregate.
template <std::size_t KL, std::size_t KR, std::size_t G> struct sparse_join_keys {
  static constexpr std::size_t KO = KL + KR - G;
  std::array<std::size_t, G> jl, jr;
  std::array<std::size_t, KL - G> lrest = other_positions<KL>(jl);
  std::array<std::size_t, KR - G> rrest = other_positions<KR>(jr);
  std::array<std::int64_t, KO> of(const std::array<std::int64_t, KL>& a,
                                  const std::array<std::int64_t, KR>& b) const {
    std::array<std::int64_t, KO> o{};
    std::size_t n = 0;
    for (std::size_t p : lrest) o[n++] = a[p];
    for (std::size_t p : jl) o[n++] = a[p];
    for (std::size_t p : rrest) o[n++] = b[p];
    return o;
  }
};
template <std::size_t KL, std::size_t KR, std::size_t G>
sparse_join_keys<KL, KR, G> check_join(const std::array<std::int64_t, KL>& lb,
                                       const std::array<std::int64_t, KR>& rb,
                                       const std::array<std::size_t, G>& jl,
                                       const std::array<std::size_t, G>& jr, const char* who) {
  check_key_positions<KL>(jl, who);
  check_key_positions<KR>(jr, who);
  for (std::size_t m = 0; m < G; ++m)
    if (lb[jl[m]] != rb[jr[m]])
      throw shape_error(std::string("loom::tra::") + who + ": left key position " +
                        std::to_string(jl[m]) + " has bound " + std::to_string(lb[jl[m]]) +
                        " but right key position " + std::to_string(jr[m]) + " has bound " +
                        std::to_string(rb[jr[m]]) +
                        " (extended join integrity: matched dimensions need equal bounds)");
  return {jl, jr};
}

// Every pair of tiles that meet: f(left key, left tile, right key, right tile), left in key order.
template <class L, class R, std::size_t G, class F>
void for_each_match(const L& left, const R& right, const std::array<std::size_t, G>& jl,
                    const std::array<std::size_t, G>& jr, F&& f) {
  std::map<std::array<std::int64_t, G>,
           std::vector<const std::pair<const typename R::key_type, typename R::tile_type>*>>
      index;
  for (const auto& tuple : right) index[pick_keys(tuple.first, jr)].push_back(&tuple);
  for (const auto& [a, ta] : left) {
    const auto it = index.find(pick_keys(a, jl));
    if (it == index.end()) continue;
    for (const auto* b : it->second) f(a, ta, b->first, b->second);
  }
}

// The sparse tile operator an operator of an IA plan stands for: mat_mul and mat_add (the names
// the plan types use, after the dense tiles' kernels) become the loom kernels over the tiles'
// formats with the result in Out; any other operator (sparse_mat_mul<F>, a user's) is used as is.
template <storage_format Out, class Op> auto sparse_tile_op(const Op& op) {
  if constexpr (std::is_same_v<Op, mat_mul>)
    return sparse_mat_mul<Out>{};
  else if constexpr (std::is_same_v<Op, mat_add>)
    return sparse_mat_add<Out>{};
  else
    return op;
}
template <class Op> struct product_format {};
template <storage_format Out> struct product_format<sparse_mat_mul<Out>> {
  using type = Out;
};

template <class Op, class T, storage_format FA, storage_format FB>
using sparse_result_t = std::remove_cvref_t<decltype(std::declval<const Op&>()(
    std::declval<const tensor<T, FA>&>(), std::declval<const tensor<T, FB>&>()))>;
template <class Tile> struct tile_format;
template <class T, storage_format F> struct tile_format<tensor<T, F>> {
  using type = F;
};

// Folds `t` into the tile of `key` of `out` with `op` (in place when op accumulates), or stores
// it, converted to out's format, when the key is new.
template <class T, storage_format Out, std::size_t K, storage_format F, class Op>
void merge_tile(sparse_relation<T, Out, K>& out, const std::array<std::int64_t, K>& key,
                const tensor<T, F>& t, const Op& op) {
  if (auto* have = out.find(key)) {
    if constexpr (requires { op.accumulate(*have, t); })
      op.accumulate(*have, t);
    else
      *have = op(*have, t);
  } else if constexpr (std::is_same_v<F, Out>) {
    out.insert(key, t);
  } else {
    out.insert(key, tensor<T, Out>(t));
  }
}

// Σ(gbk, sum)(⋈(jl, jr, product)) fused: each pair's product accumulated into its group's tile
// of `out`; pairs whose group fails `keep` are skipped. Returns the tile products run.
template <class T, storage_format Out, std::size_t GB, class L, class R, std::size_t G, class Keep>
std::int64_t accumulate_products(sparse_relation<T, Out, GB>& out, const L& left, const R& right,
                                 const std::array<std::size_t, G>& jl,
                                 const std::array<std::size_t, G>& jr,
                                 const std::array<std::size_t, GB>& gbk, Keep&& keep) {
  const auto keys = check_join(left.bounds(), right.bounds(), jl, jr, "join_aggregate");
  check_key_positions<L::key_arity + R::key_arity - G>(gbk, "join_aggregate");
  const sparse_mat_mul<Out> mul;
  std::int64_t products = 0;
  for_each_match(left, right, jl, jr,
                 [&](const auto& a, const auto& ta, const auto& b, const auto& tb) {
                   const auto g = pick_keys(keys.of(a, b), gbk);
                   if (!keep(g)) return;
                   ++products;
                   if (auto* have = out.find(g))
                     mul.accumulate_product(ta, tb, *have);
                   else
                     out.insert(g, mul(ta, tb));
                 });
  return products;
}
}  // namespace detail

/// ⋈(joinKeysL, joinKeysR, projOp) over sparse tiles: every pair with left[jl[m]] ==
/// right[jr[m]] gives op(left tile, right tile), a loom tensor, under the key [L∖jl, jl, R∖jr]
/// (the dense join's layout). Absent tiles never meet; matched dimensions need equal bounds.
template <class T, storage_format FA, std::size_t KL, storage_format FB, std::size_t KR,
          std::size_t G, class Op>
auto join(const sparse_relation<T, FA, KL>& left, const sparse_relation<T, FB, KR>& right,
          const std::array<std::size_t, G>& jl, const std::array<std::size_t, G>& jr,
          const Op& plan_op) {
  const auto op = detail::sparse_tile_op<FA>(plan_op);
  using result = detail::sparse_result_t<decltype(op), T, FA, FB>;
  using Out = typename detail::tile_format<result>::type;
  const auto keys = detail::check_join(left.bounds(), right.bounds(), jl, jr, "join");
  std::vector<std::pair<std::array<std::int64_t, KL + KR - G>, result>> produced;
  detail::for_each_match(left, right, jl, jr,
                         [&](const auto& a, const auto& ta, const auto& b, const auto& tb) {
                           produced.emplace_back(keys.of(a, b), op(ta, tb));
                         });
  const shape_t<2> shape =
      produced.empty()
          ? op(tensor<T, FA>(left.tile_shape()), tensor<T, FB>(right.tile_shape())).shape()
          : produced.front().second.shape();
  sparse_relation<T, Out, KL + KR - G> out(keys.of(left.bounds(), right.bounds()), shape);
  for (auto& [k, t] : produced) out.insert(k, std::move(t));
  return out;
}

/// Σ(groupByKeys, aggOp) over sparse tiles: groups by the key positions `gbk` (output key = that
/// projection, in gbk's order) and folds each group's tiles with `op` (sparse_mat_add<Out>: the
/// sum of tiles by key, any input formats, the result in Out; mat_add: the same in the input's
/// format). Op must be associative and commutative.
template <class T, storage_format F, std::size_t K, std::size_t G, class Op>
auto aggregate(const sparse_relation<T, F, K>& in, const std::array<std::size_t, G>& gbk,
               const Op& plan_op) {
  const auto op = detail::sparse_tile_op<F>(plan_op);
  using Out = typename detail::tile_format<detail::sparse_result_t<decltype(op), T, F, F>>::type;
  detail::check_key_positions<K>(gbk, "aggregate");
  sparse_relation<T, Out, G> out(detail::pick_keys(in.bounds(), gbk), in.tile_shape());
  for (const auto& [key, t] : in) detail::merge_tile(out, detail::pick_keys(key, gbk), t, op);
  return out;
}

/// A + B over tiles: Σ by key of both relations' tiles (a key in one only is copied), in `Out`.
template <storage_format Out, class T, storage_format FA, storage_format FB>
sparse_relation<T, Out> add(const sparse_relation<T, FA>& a, const sparse_relation<T, FB>& b) {
  if (a.bounds() != b.bounds() || a.tile_shape() != b.tile_shape())
    throw shape_error("loom::tra::add: the relations' tile grids or tile shapes differ");
  sparse_relation<T, Out> out(a.bounds(), a.tile_shape());
  const sparse_mat_add<Out> op;
  for (const auto& [key, t] : a) detail::merge_tile(out, key, t, op);
  for (const auto& [key, t] : b) detail::merge_tile(out, key, t, op);
  return out;
}

/// Σ(gbk, sparse_mat_add<Out>)(⋈(jl, jr, sparse_mat_mul<Out>)(left, right)) fused: each pair's
/// tile product accumulates into its group's tile, no joined tile is kept. With jl = {1},
/// jr = {0}, gbk = {0, 2} it is the block matrix product (block_matmul).
template <storage_format Out, class T, storage_format FA, std::size_t KL, storage_format FB,
          std::size_t KR, std::size_t G, std::size_t GB>
sparse_relation<T, Out, GB> join_aggregate(const sparse_relation<T, FA, KL>& left,
                                           const sparse_relation<T, FB, KR>& right,
                                           const std::array<std::size_t, G>& jl,
                                           const std::array<std::size_t, G>& jr,
                                           const std::array<std::size_t, GB>& gbk) {
  const auto keys = detail::check_join(left.bounds(), right.bounds(), jl, jr, "join_aggregate");
  detail::check_key_positions<KL + KR - G>(gbk, "join_aggregate");
  const shape_t<2> ts =
      sparse_mat_mul<Out>{}(tensor<T, FA>(left.tile_shape()), tensor<T, FB>(right.tile_shape()))
          .shape();
  sparse_relation<T, Out, GB> out(detail::pick_keys(keys.of(left.bounds(), right.bounds()), gbk),
                                  ts);
  detail::accumulate_products(out, left, right, jl, jr, gbk, [](const auto&) { return true; });
  return out;
}

/// Σ(gbk, agg)(⋈(jl, jr, proj)) in the dense operators' form (what an IA plan runs): fused as
/// above when proj is a tile product and agg the sum into the same format (mat_mul and mat_add
/// into the left operand's format, or sparse_mat_mul<F> and sparse_mat_add<F>); otherwise the
/// join, then the aggregation.
template <class T, storage_format FA, std::size_t KL, storage_format FB, std::size_t KR,
          std::size_t G, std::size_t GB, class Proj, class Agg>
auto join_aggregate(const sparse_relation<T, FA, KL>& left, const sparse_relation<T, FB, KR>& right,
                    const std::array<std::size_t, G>& jl, const std::array<std::size_t, G>& jr,
                    const Proj& proj, const std::array<std::size_t, GB>& gbk, const Agg& agg) {
  const auto p = detail::sparse_tile_op<FA>(proj);
  const auto a = detail::sparse_tile_op<FA>(agg);
  using P = std::remove_cvref_t<decltype(p)>;
  using A = std::remove_cvref_t<decltype(a)>;
  if constexpr (requires { typename detail::product_format<P>::type; }) {
    using Out = typename detail::product_format<P>::type;
    if constexpr (std::is_same_v<A, sparse_mat_add<Out>>)
      return join_aggregate<Out>(left, right, jl, jr, gbk);
    else
      return aggregate(join(left, right, jl, jr, p), gbk, a);
  } else {
    return aggregate(join(left, right, jl, jr, p), gbk, a);
  }
}

/// True when two matrix tiles, in any formats, have one shape and the same nonzero entries (an
/// explicitly stored zero equals an absent entry).
template <class T, storage_format FA, storage_format FB>
bool tiles_equal(const tensor<T, FA>& a, const tensor<T, FB>& b) {
  if (a.extent(0) != b.extent(0) || a.extent(1) != b.extent(1)) return false;
  using entry = std::tuple<std::int64_t, std::int64_t, T>;
  auto entries = [](const auto& t) {
    std::vector<entry> e;
    t.for_each_stored([&](const auto& c, const T& v) {
      if (!(v == semiring_traits<T>::zero()))
        e.emplace_back(static_cast<std::int64_t>(c[0]), static_cast<std::int64_t>(c[1]), v);
    });
    std::sort(e.begin(), e.end(), [](const entry& x, const entry& y) {
      return std::get<0>(x) != std::get<0>(y) ? std::get<0>(x) < std::get<0>(y)
                                              : std::get<1>(x) < std::get<1>(y);
    });
    return e;
  };
  return entries(a) == entries(b);
}
/// The same for two dense tiles (their own ==), so generic code compares tiles of either kind.
template <class T, std::size_t R> bool tiles_equal(const tile<T, R>& a, const tile<T, R>& b) {
  return a == b;
}

}  // namespace loom::tra

#endif  // LOOM_TRA_SPARSE_OPERATORS_HPP
