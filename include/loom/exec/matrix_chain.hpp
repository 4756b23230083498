// Defines loom::matrix_chain: a product of sparse matrices decomposed by variable elimination
// into one SpGEMM kernel per step, the order chosen from sparsity estimates (Galley's logical
// optimizer on chains), with materialised sparse intermediates (optimize/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_MATRIX_CHAIN_HPP
#define LOOM_EXEC_MATRIX_CHAIN_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/index.hpp>
#include <loom/core/unpack.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/expr/operators.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/statistics/chain_bound_estimator.hpp>
#include <loom/optimize/statistics/gather_statistics.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom {

/// How `matrix_chain` orders its products.
enum class chain_order {
  optimized,      ///< exact search over every elimination order (interval DP) by estimated cost
  greedy,         ///< eliminate the cheapest inner index first, repeatedly
  left_to_right,  ///< (((A B) C) D): the fixed plan, for comparison
};

/// Galley's logical cost constants (Galley).
struct logical_cost_constants {
  double compute = 1.0;           // per pointwise product entry and index
  double dense_allocate = 0.5;    // per entry of a dense intermediate
  double sparse_allocate = 60.0;  // per entry of a sparse intermediate
};

/// A decomposition of M0 M1 ... M(n-1): `steps[s]` multiplies the products of factor ranges
/// [first, split] and [split + 1, last]; steps are in execution order.
struct chain_plan {
  struct step {
    std::size_t first, split, last;
    double compute, output;  // estimated pointwise entries and non-zeros of the result
    double cost;
  };
  std::vector<step> steps;
  double cost = 0;
  LOOM_DECL std::string describe(const std::vector<std::string>& names) const;
};

namespace detail {

LOOM_DECL std::string chain_index(std::size_t t);

struct chain_planner {
  std::vector<chain_bound_estimator> factors;  // factor t over (x_t, x_{t+1})
  std::vector<std::int64_t> extents;           // extent of x_t, t = 0..n
  logical_cost_constants k;

  // estimate of the product of two interval results over (x_a, x_b) and (x_b, x_c)
  LOOM_DECL chain_plan::step cost_of(const chain_bound_estimator& left,
                                     const chain_bound_estimator& right, std::size_t a,
                                     std::size_t b, std::size_t c,
                                     chain_bound_estimator& result) const;

  // Exact: interval dynamic programming over every parenthesisation (= elimination order).
  LOOM_DECL chain_plan exact() const;

  // Greedy (or fixed left-to-right): repeatedly multiply the cheapest adjacent pair.
  LOOM_DECL chain_plan sequential(bool left_to_right) const;
};

// Statistics per factor, kept between calls (per thread) while the factor's arrays are unchanged:
// a chain run again on the same matrices is planned without reading them.
inline statistics_cache& chain_statistics() {
  thread_local statistics_cache cache;
  return cache;
}

LOOM_DECL chain_bound_estimator chain_factor(const statistics& s, std::size_t t);

// A factor as csr: itself when it is csr already, else a converted copy.
template <class T, class F> struct csr_factor {
  std::optional<tensor<T, csr>> copy;
  const tensor<T, csr>* ptr;
  explicit csr_factor(const tensor<T, F>& m) {
    if constexpr (std::is_same_v<F, csr>)
      ptr = &m;
    else
      ptr = &copy.emplace(m);
  }
  csr_factor(const csr_factor&) = delete;
};

}  // namespace detail

/// The decomposition `matrix_chain` would run for these factors.
template <class T, class... Fs>
chain_plan plan_matrix_chain(chain_order order, const tensor<T, Fs>&... ms) {
  static_assert(sizeof...(Fs) >= 2, "loom::matrix_chain: give at least two matrices");
  // a plan is kept per (order, factors) while no factor's statistics were gathered again since
  statistics_cache& stats = detail::chain_statistics();
  const std::array<const statistics*, sizeof...(Fs)> factor_stats{
      &stats.get(ms)...};  // node-stable
  std::vector<const void*> key{static_cast<const void*>(&ms)...};
  key.push_back(reinterpret_cast<const void*>(static_cast<std::uintptr_t>(order)));
  thread_local std::map<std::vector<const void*>, std::pair<std::int64_t, chain_plan>> plans;
  if (auto it = plans.find(key); it != plans.end() && it->second.first == stats.misses())
    return it->second.second;
  detail::chain_planner p;
  std::size_t t = 0;
  for (const statistics* s : factor_stats) p.factors.push_back(detail::chain_factor(*s, t++));
  std::array<std::array<std::int64_t, 2>, sizeof...(Fs)> shapes{
      std::array<std::int64_t, 2>{ms.extent(0), ms.extent(1)}...};
  for (std::size_t q = 0; q + 1 < shapes.size(); ++q)
    if (shapes[q][1] != shapes[q + 1][0])
      throw shape_error("loom::matrix_chain: factor " + std::to_string(q) + " has " +
                        std::to_string(shapes[q][1]) + " columns but factor " +
                        std::to_string(q + 1) + " has " + std::to_string(shapes[q + 1][0]) +
                        " rows");
  p.extents.push_back(shapes[0][0]);
  for (const auto& s : shapes) p.extents.push_back(s[1]);
  chain_plan plan;
  switch (order) {
    case chain_order::optimized:
      plan = p.exact();
      break;
    case chain_order::greedy:
      plan = p.sequential(false);
      break;
    case chain_order::left_to_right:
      plan = p.sequential(true);
      break;
  }
  if (plans.size() > 256) plans.clear();  // bounded: a plan is cheap to make again
  plans[std::move(key)] = {stats.misses(), plan};
  return plan;
}

/// M0 M1 ... M(n-1) for sparse matrices of any format: one fused SpGEMM kernel per step of the
/// chosen decomposition, intermediates materialised as csr. Factors must be matrices.
template <class T, class... Fs>
tensor<T, csr> matrix_chain(chain_order order, const tensor<T, Fs>&... ms) {
  static_assert(((tensor<T, Fs>::order == 2) && ...),
                "loom::matrix_chain: every factor must be a matrix");
  const chain_plan plan = plan_matrix_chain(order, ms...);
  constexpr std::size_t n = sizeof...(Fs);
  const std::tuple<detail::csr_factor<T, Fs>...> held(ms...);
  const std::array<const tensor<T, csr>*, n> factors = loom::detail::unpack(
      [](const auto&... f) { return std::array<const tensor<T, csr>*, n>{f.ptr...}; }, held);
  // products[a][z]: the product of factors a..z once computed
  std::vector<std::vector<std::optional<tensor<T, csr>>>> done(
      n, std::vector<std::optional<tensor<T, csr>>>(n));
  auto take = [&](std::size_t a, std::size_t z) -> const tensor<T, csr>& {
    if (a == z) return *factors[a];
    return *done[a][z];
  };
  constexpr loom::index<"i"> i;
  constexpr loom::index<"k"> k;
  constexpr loom::index<"j"> j;
  for (const auto& st : plan.steps) {
    const tensor<T, csr>& left = take(st.first, st.split);
    const tensor<T, csr>& right = take(st.split + 1, st.last);
    tensor<T, csr> out({left.extent(0), right.extent(1)});
    out(i, j) = sum(k, left(i, k) * right(k, j));
    done[st.first][st.last] = std::move(out);
  }
  return std::move(*done[0][n - 1]);
}

/// Same, with the optimized order.
template <class T, class... Fs> tensor<T, csr> matrix_chain(const tensor<T, Fs>&... ms) {
  return matrix_chain(chain_order::optimized, ms...);
}

#if LOOM_HEADER_ONLY
LOOM_DEF std::string chain_plan::describe(const std::vector<std::string>& names) const {
  std::vector<std::string> label(names);
  std::ostringstream s;
  auto range = [&](std::size_t a, std::size_t z) {
    if (a == z) return label[a];
    std::string r = "(";
    for (std::size_t t = a; t <= z; ++t) r += label[t];
    return r + ")";
  };
  for (std::size_t q = 0; q < steps.size(); ++q) {
    const step& st = steps[q];
    s << "  kernel " << q + 1 << ": " << range(st.first, st.split) << " * "
      << range(st.split + 1, st.last) << ": estimated " << static_cast<std::int64_t>(st.compute)
      << " products, " << static_cast<std::int64_t>(st.output) << " non-zeros, cost "
      << static_cast<std::int64_t>(st.cost) << "\n";
  }
  s << "  estimated total cost " << static_cast<std::int64_t>(cost) << "\n";
  return s.str();
}

namespace detail {
LOOM_DEF std::string chain_index(std::size_t t) { return "x" + std::to_string(t); }

LOOM_DEF chain_plan::step chain_planner::cost_of(const chain_bound_estimator& left,
                                                 const chain_bound_estimator& right, std::size_t a,
                                                 std::size_t b, std::size_t c,
                                                 chain_bound_estimator& result) const {
  const chain_bound_estimator comp = chain_bound_estimator::conjunction(std::vector{left, right});
  result = comp.aggregate({chain_index(b)});
  const double compute = comp.estimate();
  const double out = result.estimate();
  const double cells = static_cast<double>(extents[a]) * static_cast<double>(extents[c]);
  const double density = cells > 0 ? out / cells : 0;
  const double cost =
      compute * 3 * k.compute + out * (density > 0.5 ? k.dense_allocate : k.sparse_allocate);
  return {a, b - 1, c - 1, compute, out, cost};
}

LOOM_DEF chain_plan chain_planner::exact() const {
  const std::size_t n = factors.size();
  struct cell {
    double cost = 0;
    std::size_t split = 0;
    chain_plan::step last{};
    std::optional<chain_bound_estimator> est;
  };
  std::vector<std::vector<cell>> best(n, std::vector<cell>(n));
  for (std::size_t t = 0; t < n; ++t) best[t][t].est = factors[t];
  for (std::size_t len = 2; len <= n; ++len)
    for (std::size_t a = 0; a + len <= n; ++a) {
      const std::size_t z = a + len - 1;
      cell& c = best[a][z];
      c.cost = std::numeric_limits<double>::infinity();
      for (std::size_t s = a; s < z; ++s) {
        chain_bound_estimator result = factors[0];
        const auto st = cost_of(*best[a][s].est, *best[s + 1][z].est, a, s + 1, z + 1, result);
        const double total = best[a][s].cost + best[s + 1][z].cost + st.cost;
        if (total < c.cost) {
          c.cost = total;
          c.split = s;
          c.last = st;
          c.est = result;
        }
      }
    }
  chain_plan plan;
  plan.cost = best[0][n - 1].cost;
  // post-order: children before parents
  auto emit = [&](auto&& self, std::size_t a, std::size_t z) -> void {
    if (a == z) return;
    self(self, a, best[a][z].split);
    self(self, best[a][z].split + 1, z);
    plan.steps.push_back(best[a][z].last);
  };
  emit(emit, 0, n - 1);
  return plan;
}

LOOM_DEF chain_plan chain_planner::sequential(bool left_to_right) const {
  struct range {
    std::size_t first, last;
    chain_bound_estimator est;
  };
  std::vector<range> live;
  for (std::size_t t = 0; t < factors.size(); ++t) live.push_back({t, t, factors[t]});
  chain_plan plan;
  while (live.size() > 1) {
    std::size_t pick = 0;
    chain_plan::step best_step{};
    chain_bound_estimator best_est = factors[0];
    for (std::size_t p = 0; p + 1 < live.size(); ++p) {
      chain_bound_estimator result = factors[0];
      const auto st = cost_of(live[p].est, live[p + 1].est, live[p].first, live[p + 1].first,
                              live[p + 1].last + 1, result);
      if (p == 0 || (!left_to_right && st.cost < best_step.cost)) {
        pick = p;
        best_step = st;
        best_est = result;
      }
    }
    plan.steps.push_back(best_step);
    plan.cost += best_step.cost;
    live[pick] = {live[pick].first, live[pick + 1].last, best_est};
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick) + 1);
  }
  return plan;
}

LOOM_DEF chain_bound_estimator chain_factor(const statistics& s, std::size_t t) {
  return chain_bound_estimator(s, {chain_index(t), chain_index(t + 1)});
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY
}  // namespace loom

#endif  // LOOM_EXEC_MATRIX_CHAIN_HPP
