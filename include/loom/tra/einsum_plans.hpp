// Defines the distributed plans of a two-operand einsum and their choice: broadcast the left
// operand, broadcast the right one, or shuffle both on the join keys (the R2-6 alternatives at
// the join), each rewritten by the repartition rules (R2-4 drops a final shuffle the partitions
// make useless), costed by walking the plan's moves under the paper's model, the cheapest run
// over a transport; for sparse operands the sizes come from nnz statistics (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_EINSUM_PLANS_HPP
#define LOOM_TRA_EINSUM_PLANS_HPP

#include <loom/tra/cost.hpp>
#include <loom/tra/einsum.hpp>
#include <loom/tra/ia/execute.hpp>
#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/ia/rewrite.hpp>
#include <loom/tra/ia/to_string.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/rules/rule_sets.hpp>
#include <loom/tra/sparse_tiles.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace loom::tra {

/// The strategies of a distributed two-operand einsum.
enum class einsum_strategy { broadcast_left, broadcast_right, shuffle_join };
inline constexpr std::array<einsum_strategy, 3> all_einsum_strategies{
    einsum_strategy::broadcast_left, einsum_strategy::broadcast_right,
    einsum_strategy::shuffle_join};
inline std::string_view name(einsum_strategy s) {
  switch (s) {
    case einsum_strategy::broadcast_left:
      return "broadcast left";
    case einsum_strategy::broadcast_right:
      return "broadcast right";
    case einsum_strategy::shuffle_join:
      return "shuffle join";
  }
  return "?";
}

/// The three plans of einsum S over inputs placed as LeftPart and RightPart: the join made local
/// by a BCAST of one side or a SHUF of both on their join keys, then Σ over the output keys after
/// a SHUF on them (dropped by R2-4 where the join's output is already partitioned on them).
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary>
struct einsum_plans {
  using spec = detail::einsum_spec<S>;
  static_assert(spec::valid, "loom::tra::einsum_plans: see einsum's diagnostic for this spec");
  using L = detail::transposed_if<spec::transposes.left, ia::leaf<0, spec::kl, LeftPart>>;
  using R = detail::transposed_if<spec::transposes.right, ia::leaf<1, spec::kr, RightPart>>;
  using JL = detail::dims_of_t<spec::jl>;
  using JR = detail::dims_of_t<spec::jr>;
  using GBK = detail::dims_of_t<spec::gbk>;
  template <class A, class B> using join = ia::ljoin<JL, JR, mat_mul, A, B>;
  template <class J>
  using sum_out =
      detail::transposed_if<spec::transposes.out, ia::lagg<GBK, mat_add, ia::shuf<GBK, J>>>;

  using broadcast_left = ia::rewrite_t<sum_out<join<ia::bcast<L>, R>>, rules::repartition>;
  using broadcast_right = ia::rewrite_t<sum_out<join<L, ia::bcast<R>>>, rules::repartition>;
  using shuffle_join =
      ia::rewrite_t<sum_out<join<ia::shuf<JL, L>, ia::shuf<JR, R>>>, rules::repartition>;
};

namespace detail {
// Cn of a plan: the bytes its BCAST and SHUF nodes move, from the sizes of what they move
// (inputs 0 and 1, and the join's output; maps, filters and aggregations as their input).
struct einsum_sizes {
  double left = 0, right = 0, joined = 0;
};
template <class Node> struct moved {
  static double of(const cost_model&, const einsum_sizes&) { return 0; }
  static double size(const einsum_sizes&) { return 0; }
};
template <std::size_t I, std::size_t K, class P> struct moved<ia::leaf<I, K, P>> {
  static double of(const cost_model&, const einsum_sizes&) { return 0; }
  static double size(const einsum_sizes& s) { return I == 0 ? s.left : s.right; }
};
template <class C> struct moved<ia::bcast<C>> {
  static double of(const cost_model& cm, const einsum_sizes& s) {
    return moved<C>::of(cm, s) + cm.bcast(moved<C>::size(s));
  }
  static double size(const einsum_sizes& s) { return moved<C>::size(s); }
};
template <class D, class C> struct moved<ia::shuf<D, C>> {
  // a SHUF to the partition its input already has moves nothing (every tuple is on its site)
  static double of(const cost_model& cm, const einsum_sizes& s) {
    constexpr bool in_place = std::is_same_v<ia::partition_t<C>, ia::partitioned<D>>;
    return moved<C>::of(cm, s) + (in_place ? 0.0 : cm.shuf(moved<C>::size(s)));
  }
  static double size(const einsum_sizes& s) { return moved<C>::size(s); }
};
template <class K, class T, class C> struct moved<ia::lmap<K, T, C>> : moved<C> {};
template <class F, class C> struct moved<ia::lfilter<F, C>> : moved<C> {};
template <class G, class Op, class C> struct moved<ia::lagg<G, Op, C>> : moved<C> {};
template <class G, class Op, class C> struct moved<ia::lpartial<G, Op, C>> : moved<C> {};
template <class JL, class JR, class Op, class A, class B>
struct moved<ia::ljoin<JL, JR, Op, A, B>> {
  static double of(const cost_model& cm, const einsum_sizes& s) {
    return moved<A>::of(cm, s) + moved<B>::of(cm, s);
  }
  static double size(const einsum_sizes& s) { return s.joined; }
};

template <class P, class F> decltype(auto) with_einsum_plan(einsum_strategy st, F&& f) {
  switch (st) {
    case einsum_strategy::broadcast_left:
      return f(typename P::broadcast_left{});
    case einsum_strategy::broadcast_right:
      return f(typename P::broadcast_right{});
    case einsum_strategy::shuffle_join:
      break;
  }
  return f(typename P::shuffle_join{});
}
}  // namespace detail

/// One strategy's estimate.
struct einsum_cost {
  einsum_strategy strategy{};
  double cn = 0, cc = 0, total = 0;
  std::string plan;  // the plan in the paper's notation
};

/// Every strategy's Cn (the bytes or elements its BCASTs and SHUFs move), Cc (the tile products
/// of the full-box join and the aggregation's calls) and α·Cn + β·Cc, the cheapest first
/// in `chosen`, for einsum S over `l` and `r` placed as LeftPart and RightPart.
struct einsum_choice {
  std::array<einsum_cost, 3> costs{};
  einsum_cost chosen{};
  /// Each strategy with its plan and costs, and the choice.
  std::string explain() const {
    auto fmt = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g", v);
      return std::string(buf);
    };
    std::string s = "distributed einsum:\n";
    for (const auto& c : costs)
      s += std::string(c.strategy == chosen.strategy ? "  * " : "    ") +
           std::string(name(c.strategy)) + ": Cn " + fmt(c.cn) + ", Cc " + fmt(c.cc) + ", cost " +
           fmt(c.total) + "; " + c.plan + "\n";
    return s + "chosen: " + std::string(name(chosen.strategy)) + "\n";
  }
};

template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary, class T,
          std::size_t KL, std::size_t KR>
einsum_choice choose_einsum(const cost_model& cm, const relation<T, KL, 2>& l,
                            const relation<T, KR, 2>& r) {
  using spec = detail::einsum_spec<S>;
  using P = einsum_plans<S, LeftPart, RightPart>;
  // the bound of every letter, from the relations' keys
  auto bound = [&](char c) -> double {
    for (std::size_t p = 0; p < KL; ++p)
      if (spec::left[p] == c) return static_cast<double>(l.bounds()[p]);
    for (std::size_t p = 0; p < KR; ++p)
      if (spec::right[p] == c) return static_cast<double>(r.bounds()[p]);
    return 1;
  };
  double join_card = 1, out_card = 1;
  for (char c : spec::joined) join_card *= bound(c);
  for (char c : spec::out) out_card *= bound(c);
  // each tile product is (m x kk)(kk x n), a tile being transposed first where it runs the
  // other way
  const auto& ls = l.tile_shape();
  const auto& rs = r.tile_shape();
  const double m = static_cast<double>(spec::transposes.left ? ls[1] : ls[0]);
  const double kk = static_cast<double>(spec::transposes.left ? ls[0] : ls[1]);
  const double n = static_cast<double>(spec::transposes.right ? rs[0] : rs[1]);
  const double tl = static_cast<double>(ls[0] * ls[1]), tr = static_cast<double>(rs[0] * rs[1]);
  double left_tuples = 1, right_tuples = 1;
  for (std::size_t p = 0; p < KL; ++p) left_tuples *= static_cast<double>(l.bounds()[p]);
  for (std::size_t p = 0; p < KR; ++p) right_tuples *= static_cast<double>(r.bounds()[p]);
  const detail::einsum_sizes sizes{cm.size(left_tuples, tl), cm.size(right_tuples, tr),
                                   cm.size(join_card, m * n)};
  const double cc = join_card * 2.0 * m * kk * n + cm.aggregate(join_card, out_card, m * n);
  einsum_choice out;
  for (std::size_t s = 0; s < 3; ++s) {
    const einsum_strategy st = all_einsum_strategies[s];
    detail::with_einsum_plan<P>(st, [&](auto plan) {
      using Plan = decltype(plan);
      einsum_cost c{st, detail::moved<Plan>::of(cm, sizes), cc, 0, ia::to_string<Plan>()};
      c.total = cm.total(c.cn, c.cc);
      out.costs[s] = c;
    });
    if (s == 0 || out.costs[s].total < out.chosen.total) out.chosen = out.costs[s];
  }
  return out;
}

/// The same choice for block-sparse operands, costed from their statistics (`stats_of`, of each
/// operand as stored): Cn walks the plans' moves with the operands' bytes and the join's
/// estimated partial products (`estimate_product`), Cc is 2 flops per multiplication plus an
/// addition per joined entry, plus one operation per stored entry of each operand the spec
/// transposes and of the result when the output is transposed. S is a product of two matrices
/// with two letters per side, each in either order: "ij,jk->ik", "ji,jk->ik", "ij,kj->ik",
/// "ji,kj->ik" and their outputs transposed ("->ki"), any letters.
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary>
einsum_choice choose_einsum(const cost_model& cm, const sparse_stats& l, const sparse_stats& r) {
  using spec = detail::einsum_spec<S>;
  static_assert(spec::valid, "loom::tra::choose_einsum: see einsum's diagnostic for this spec");
  static_assert(spec::kl == 2 && spec::kr == 2,
                "loom::tra::choose_einsum over sparse tiles: give two letters per side (a "
                "product of two matrices, as \"ij,jk->ik\" or \"ji,kj->ki\"); batch letters "
                "are not supported over sparse relations yet");
  using P = einsum_plans<S, LeftPart, RightPart>;
  constexpr auto t = spec::transposes;
  // the product is estimated on the operands as the kernel reads them, C(x,z) = A(x,y) B(y,z)
  const sparse_stats a = t.left ? transposed(l) : l;
  const sparse_stats b = t.right ? transposed(r) : r;
  const auto e = estimate_product(cm, a, b);
  const detail::einsum_sizes sizes{l.bytes, r.bytes, e.joined_bytes};
  // a transpose reads each stored entry of the tile once and places it
  const double transposed_entries =
      (t.left ? l.nnz : 0.0) + (t.right ? r.nnz : 0.0) + (t.out ? e.out.nnz : 0.0);
  const double cc = 2.0 * e.multiplications + e.joined_nnz + transposed_entries;
  einsum_choice out;
  for (std::size_t s = 0; s < 3; ++s) {
    const einsum_strategy st = all_einsum_strategies[s];
    detail::with_einsum_plan<P>(st, [&](auto plan) {
      using Plan = decltype(plan);
      einsum_cost c{st, detail::moved<Plan>::of(cm, sizes), cc, 0, ia::to_string<Plan>()};
      c.total = cm.total(c.cn, c.cc);
      out.costs[s] = c;
    });
    if (s == 0 || out.costs[s].total < out.chosen.total) out.chosen = out.costs[s];
  }
  return out;
}

/// choose_einsum over two sparse relations themselves (their statistics; the logical extents
/// taken as the tile grid's, padding included).
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary, class T,
          storage_format FL, storage_format FR>
einsum_choice choose_einsum(const cost_model& cm, const sparse_relation<T, FL>& l,
                            const sparse_relation<T, FR>& r) {
  auto extents = [](const auto& x) {
    return std::array<std::int64_t, 2>{x.bounds()[0] * x.tile_shape()[0],
                                       x.bounds()[1] * x.tile_shape()[1]};
  };
  return choose_einsum<S, LeftPart, RightPart>(cm, stats_of(l, extents(l)),
                                               stats_of(r, extents(r)));
}

/// einsum S over a transport (sites = its sites): the strategy of `choose_einsum` (or `force`),
/// the plan run by ia::execute, the result collected on every site; `report` gets the choice.
template <fixed_string S, class LeftPart = ia::arbitrary, class RightPart = ia::arbitrary,
          class Transport, class T, std::size_t KL, std::size_t KR>
auto distributed_einsum(const Transport& tr, const relation<T, KL, 2>& l,
                        const relation<T, KR, 2>& r, cost_model cm,
                        std::optional<einsum_strategy> force = std::nullopt,
                        einsum_choice* report = nullptr) {
  cm.sites = tr.sites();
  einsum_choice c = choose_einsum<S, LeftPart, RightPart>(cm, l, r);
  if (force)
    for (const auto& e : c.costs)
      if (e.strategy == *force) c.chosen = e;
  if (report) *report = c;
  using P = einsum_plans<S, LeftPart, RightPart>;
  return detail::with_einsum_plan<P>(
      c.chosen.strategy, [&](auto plan) { return ia::evaluate<decltype(plan)>(tr, l, r); });
}

}  // namespace loom::tra

#endif  // LOOM_TRA_EINSUM_PLANS_HPP
