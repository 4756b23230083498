// Defines loom::rewrite::saturate(e): equality saturation of e's sum-product form in constant
// evaluation, the cheapest term by static cost rebuilt as an expression; the bounded set of
// alternatives whose ranking needs run-time sizes, the run-time choice among them, and the
// saturation report `explain` prints (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_SATURATE_HPP
#define LOOM_REWRITE_SATURATION_SATURATE_HPP

#include <loom/core/config.hpp>
#include <loom/core/debug.hpp>
#include <loom/rewrite/engine.hpp>
#include <loom/rewrite/rule_sets.hpp>
#include <loom/rewrite/saturation/egraph.hpp>
#include <loom/rewrite/saturation/encode.hpp>
#include <loom/rewrite/saturation/extract.hpp>
#include <loom/rewrite/saturation/rebuild.hpp>
#include <loom/rewrite/saturation/rules.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::rewrite {

/// Bounds of one saturation: nodes of the e-graph, rule iterations, alternatives kept.
template <std::size_t MaxNodes = limits::saturation_nodes,
          std::size_t MaxIterations = limits::saturation_iterations,
          std::size_t MaxAlternatives = limits::saturation_alternatives>
struct saturation_limits {
  static constexpr std::size_t max_nodes = MaxNodes;
  static constexpr std::size_t max_iterations = MaxIterations;
  static constexpr std::size_t max_alternatives = MaxAlternatives;
};

namespace saturation {

// The seed: E's sum-product normal form (the rule engine's, over E's operands named by slot),
// put in E's class before the first iteration, so the expanded terms are there from the start
// and the node budget goes to factorising them. None when E holds an opaque map.
template <class E, class Tagged = tagged_t<E>> struct seed {
  using type = void;
};
template <class E, class Tagged>
  requires(!std::is_void_v<Tagged>)
struct seed<E, Tagged> {
  using apart = renamed_apart_t<Tagged>;
  using normal = rewrite_t<apart, sum_product_normal_form>;
  using type =
      std::conditional_t<boost::mp11::mp_empty<boost::mp11::mp_set_difference<
                             expr::all_indices_t<normal>, expr::all_indices_t<apart>>>::value,
                         normal, void>;
};
template <class E> using seed_t = typename seed<E>::type;

// Each iteration is its own constant (own evaluation budget: clang's -fconstexpr-steps counts
// per constant), and a saturated graph is copied unchanged.
template <class E, std::size_t Max, std::size_t K>
inline constexpr egraph<Max> graph_v = step(graph_v<E, Max, K - 1>);
template <class E, std::size_t Max>
inline constexpr egraph<Max> graph_v<E, Max, 0> = encode<E, Max, seed_t<E>>();

template <class E, class F, std::size_t Max, std::size_t K>
inline constexpr egraph<Max> pair_v = step(pair_v<E, F, Max, K - 1>);
template <class E, class F, std::size_t Max>
inline constexpr egraph<Max> pair_v<E, F, Max, 0> = encode_pair<E, F, Max>();

/// The scenarios alternatives are extracted under: the default; dense data; very sparse data
/// with thin dense factors (indices only dense operands use are short); dense data, thin factors.
inline constexpr std::size_t scenario_count = 4;
constexpr scenario scenario_at(const signature& s, std::size_t k) {
  switch (k) {
    case 0:
      return default_scenario(s);
    case 1:
      return default_scenario(s, 1.0);
    case 2:
      return default_scenario(s, 1e-4, 16, 1e5);
    default:
      return default_scenario(s, 1.0, 16, 1e4);
  }
}

template <class E, class Limits> struct result {
  using expression = E;
  using indices = seeded_indices_t<E, seed_t<E>>;
  static constexpr const egraph<Limits::max_nodes>& graph =
      graph_v<E, Limits::max_nodes, 2 * Limits::max_iterations>;
  static constexpr signature sig = signature_of(graph);
  template <std::size_t K> static constexpr term candidate = extract(graph, scenario_at(sig, K));

  // distinct candidates, the default first, at most max_alternatives
  static constexpr auto pick = [] {
    const std::array<term, scenario_count> all{candidate<0>, candidate<1>, candidate<2>,
                                               candidate<3>};
    std::array<std::size_t, scenario_count> which{};
    std::size_t n = 0;
    for (std::size_t k = 0; k < scenario_count && n < Limits::max_alternatives; ++k) {
      bool seen = all[k].root == no_id;
      for (std::size_t j = 0; j < n; ++j) seen = seen || all[which[j]] == all[k];
      if (!seen) which[n++] = k;
    }
    return std::pair{which, n};
  }();
  static constexpr std::size_t alternative_count = pick.second;
  static constexpr bool usable = graph.supported && alternative_count > 0;
  static constexpr double static_cost = usable ? cost(candidate<0>, scenario_at(sig, 0)) : 0;
};

// the term of alternative K as a rebuild source
template <class R, std::size_t K> struct alternative_source {
  using expression = typename R::expression;
  using indices = typename R::indices;
  static constexpr const term& value = R::template candidate<R::pick.first[K]>;
};

}  // namespace saturation

/// The saturation of E under Limits: the e-graph, the extracted terms, the report.
template <class E, class Limits = saturation_limits<>>
using saturation_result = saturation::result<E, Limits>;

/// Whether saturation puts E and F in one e-class (so they are equal on every input). Operands
/// are named across both by accesses of `saturation::slot_tag<N, Tensor>` types. False proves
/// nothing: the search is bounded (and the rule set needs bound names renamed alike).
template <class E, class F, class Limits = saturation_limits<>>
inline constexpr bool equivalent_v = [] {
  const auto& g = saturation::pair_v<E, F, Limits::max_nodes, 2 * Limits::max_iterations>;
  return g.supported && g.find(g.root) == g.find(g.other);
}();

/// `e` rewritten by equality saturation: the cheapest term under the static cost, as an
/// expression over e's tensors. `e` itself when it holds nodes the e-graph does not model
/// (where, expand) or exceeds its capacities.
template <class Limits = saturation_limits<>, class E> constexpr auto saturate(const E& e) {
  using R = saturation_result<E, Limits>;
  if constexpr (!R::usable)
    return e;
  else
    return saturation::rebuild<saturation::alternative_source<R, 0>>(e);
}

/// Alternative K (K < saturation_result<E>::alternative_count) as an expression over e's tensors.
template <std::size_t K, class Limits = saturation_limits<>, class E>
constexpr auto saturate_alternative(const E& e) {
  using R = saturation_result<E, Limits>;
  static_assert(K < R::alternative_count,
                "loom::rewrite::saturate_alternative: no such alternative; "
                "ask for K < saturation_result<E>::alternative_count");
  return saturation::rebuild<saturation::alternative_source<R, K>>(e);
}

namespace saturation {
template <class Leaves, std::size_t... Ss>
scenario measured(const signature& sig, const Leaves& leaves, std::index_sequence<Ss...>) {
  scenario sc = scenario_at(sig, 0);
  auto one = [&](std::size_t source, const auto& leaf) {
    if constexpr (requires {
                    leaf.tensor->shape();
                    leaf.tensor->nnz();
                  }) {
      const auto& t = *leaf.tensor;
      for (std::size_t s = 0; s < sig.leaf_count; ++s) {
        if (sig.leaves[s].source != source) continue;
        double size = 1;
        for (std::size_t m = 0; m < sig.leaves[s].order; ++m) {
          const auto e = static_cast<double>(t.shape()[m]);
          sc.extent[sig.original[sig.leaves[s].ids[m]]] = e;
          size *= e;
        }
        sc.density[s] = size > 0 ? static_cast<double>(t.nnz()) / size : 0.0;
      }
    }
  };
  (one(Ss, std::get<Ss>(leaves)), ...);
  return sc;
}
}  // namespace saturation

/// The run-time choice among the alternatives: each one's cost under the tensors' extents and
/// densities (shape and nnz: the statistics the Figure 12 estimator reads), and the cheapest.
struct saturation_choice {
  std::size_t chosen = 0;
  std::vector<double> costs;
};

template <class Limits = saturation_limits<>, class E>
saturation_choice choose_alternative(const E& e) {
  using R = saturation_result<E, Limits>;
  saturation_choice c;
  if constexpr (R::usable) {
    const auto leaves = saturation::collect_leaves(e);
    const saturation::scenario sc = saturation::measured(
        R::sig, leaves, std::make_index_sequence<std::tuple_size_v<decltype(leaves)>>{});
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      (c.costs.push_back(saturation::cost(saturation::alternative_source<R, Ks>::value, sc)), ...);
    }(std::make_index_sequence<R::alternative_count>{});
    for (std::size_t k = 1; k < c.costs.size(); ++k)
      if (c.costs[k] < c.costs[c.chosen]) c.chosen = k;
  }
  return c;
}

/// Calls `f` with the alternative of `e` that is cheapest for the tensors it reads (a switch
/// over the instantiated alternatives); returns what f returns (the same type for every one).
template <class Limits = saturation_limits<>, class E, class F>
decltype(auto) with_cheapest(const E& e, F&& f) {
  using R = saturation_result<E, Limits>;
  if constexpr (!R::usable) {
    return f(e);
  } else {
    const saturation_choice choice = choose_alternative<Limits>(e);
    const std::size_t k = choice.chosen;
    if (loom::debug_plan())
      loom::detail::debug_choice("loom saturation: alternative", k, choice.costs);
    return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) -> decltype(auto) {
      using out = decltype(f(saturate<Limits>(e)));
      if constexpr (std::is_void_v<out>) {
        (void)((k == Ks ? (f(saturate_alternative<Ks, Limits>(e)), true) : false) || ...);
      } else {
        out r{};
        (void)((k == Ks ? (r = f(saturate_alternative<Ks, Limits>(e)), true) : false) || ...);
        return r;
      }
    }(std::make_index_sequence<R::alternative_count>{});
  }
}

/// The saturation line of `explain`: e-graph size, iterations, limits hit, extracted cost.
template <class Limits = saturation_limits<>, class E> std::string explain_saturation(const E&) {
  using R = saturation_result<E, Limits>;
  if constexpr (!R::graph.supported) {
    return "saturation: not applied (a node the e-graph does not model)";
  } else {
    const auto& g = R::graph;
    std::string s = "saturation: e-graph " + std::to_string(g.size) + " nodes, " +
                    std::to_string(g.class_count()) + " classes, " + std::to_string(g.iterations) +
                    " iterations, ";
    s += g.saturated ? "saturated" : g.node_limit_hit ? "node limit hit" : "iteration limit hit";
    char cost[32];
    std::snprintf(cost, sizeof cost, "%.4g", R::static_cost);
    s += ", extracted cost " + std::string(cost) + ", " + std::to_string(R::alternative_count) +
         " alternative(s)";
    return s;
  }
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_SATURATION_SATURATE_HPP
