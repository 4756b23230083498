// Defines the driver's choice among the formats a tensor is held in (loom::alternatives): every
// variant of the expression, one per combination of alternatives, is costed by the plan cost
// model (loop order, transposed copies, dense walks) and the cheapest runs (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_ALTERNATIVES_HPP
#define LOOM_EXEC_ALTERNATIVES_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/alternatives.hpp>
#include <loom/format/format_name.hpp>
#include <loom/optimize/plan_choice.hpp>
#include <loom/optimize/statistics_cache.hpp>
#include <loom/plan/checks.hpp>
#include <loom/rewrite/for_evaluation.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::detail::alt {

template <class A> struct reads_alternatives : std::false_type {};
template <class T, class... Is>
struct reads_alternatives<expr::access<T, Is...>>
    : std::bool_constant<is_alternatives_v<std::remove_const_t<T>>> {};

/// Whether expression E reads a loom::alternatives.
template <class E>
inline constexpr bool has_alternatives_v =
    boost::mp11::mp_any_of<expr::accesses_t<E>, reads_alternatives>::value;

template <class A> struct holder_of;
template <class T, class... Is> struct holder_of<expr::access<T, Is...>> {
  using type = std::remove_const_t<T>;
};
/// The first loom::alternatives type E reads (left to right).
template <class E>
using first_holder = typename holder_of<boost::mp11::mp_at<
    expr::accesses_t<E>, boost::mp11::mp_find_if<expr::accesses_t<E>, reads_alternatives>>>::type;

template <std::size_t K, class E> auto replace_first(const E& e);

// replace_node<K>(e): e with its first read of alternatives reading alternative K instead
template <std::size_t K, class T, class... Is> auto replace_node(const expr::access<T, Is...>& a) {
  const auto& held = a.tensor->template get<K>();
  return expr::access<std::remove_reference_t<decltype(held)>, Is...>{&held};
}
template <std::size_t K, template <class, class> class Node, class L, class R>
  requires(std::is_same_v<Node<L, R>, expr::add<L, R>> ||
           std::is_same_v<Node<L, R>, expr::mul<L, R>>)
auto replace_node(const Node<L, R>& e) {
  if constexpr (has_alternatives_v<L>) {
    auto l = replace_first<K>(e.lhs);
    return Node<decltype(l), R>{l, e.rhs};
  } else {
    auto r = replace_first<K>(e.rhs);
    return Node<L, decltype(r)>{e.lhs, r};
  }
}
template <std::size_t K, class P, class E> auto replace_node(const expr::where<P, E>& e) {
  if constexpr (has_alternatives_v<P>) {
    auto p = replace_first<K>(e.pred);
    return expr::where<decltype(p), E>{p, e.body};
  } else {
    auto b = replace_first<K>(e.body);
    return expr::where<P, decltype(b)>{e.pred, b};
  }
}
template <std::size_t K, class I, class E> auto replace_node(const expr::sum<I, E>& e) {
  auto b = replace_first<K>(e.body);
  return expr::sum<I, decltype(b)>{b};
}
template <std::size_t K, class I, class E> auto replace_node(const expr::expand<I, E>& e) {
  auto b = replace_first<K>(e.body);
  return expr::expand<I, decltype(b)>{b};
}
template <std::size_t K, class F, class... Es> auto replace_node(const expr::map<F, Es...>& e) {
  return [&]<std::size_t... Ns>(std::index_sequence<Ns...>) {
    constexpr std::size_t at = [] {
      std::size_t n = 0;
      const bool has[] = {has_alternatives_v<Es>...};
      while (!has[n]) ++n;
      return n;
    }();
    auto args = std::make_tuple([&] {
      if constexpr (Ns == at)
        return replace_first<K>(std::get<Ns>(e.args));
      else
        return std::get<Ns>(e.args);
    }()...);
    return std::apply(
        [&](const auto&... a) {
          return expr::map<F, std::remove_cvref_t<decltype(a)>...>{e.f, std::tuple(a...)};
        },
        args);
  }(std::index_sequence_for<Es...>{});
}

/// `e` with its first read of a loom::alternatives (left to right) reading alternative K.
template <std::size_t K, class E> auto replace_first(const E& e) {
  if constexpr (!has_alternatives_v<E>)
    return e;
  else
    return replace_node<K>(e);
}

/// The number of variants of E: the product of its alternatives' counts.
template <class E> constexpr std::size_t variant_count() {
  if constexpr (!has_alternatives_v<E>)
    return 1;
  else
    return first_holder<E>::count *
           variant_count<decltype(replace_first<0>(std::declval<const E&>()))>();
}

/// Calls `f(variant, number)` for every variant of `e` (the expression reading one format of each
/// loom::alternatives), numbered from 0, the first alternatives read varying slowest.
template <class E, class F> void for_each_variant(const E& e, F& f, std::size_t& number) {
  if constexpr (!has_alternatives_v<E>) {
    f(e, number++);
  } else {
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<first_holder<E>::count>>(
        [&](auto k) { for_each_variant(replace_first<decltype(k)::value>(e), f, number); });
  }
}

/// "A2 as csr, B2 as csc" for every variant of `e`, in for_each_variant's order.
template <class E>
void variant_labels(const E& e, std::vector<std::string>& out, const std::string& prefix = {}) {
  if constexpr (!has_alternatives_v<E>) {
    out.push_back(prefix);
  } else {
    std::string name;
    expr::for_each_access(
        e, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t ordinal) {
          if constexpr (is_alternatives_v<std::remove_const_t<T>>)
            if (name.empty())
              name = a.tensor->name().empty() ? "T" + std::to_string(ordinal) : a.tensor->name();
        });
    using holder = first_holder<E>;
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<holder::count>>([&](auto k) {
      using held = std::tuple_element_t<decltype(k)::value, typename holder::held_types>;
      variant_labels(replace_first<decltype(k)::value>(e), out,
                     prefix + (prefix.empty() ? "" : ", ") + name + " as " +
                         format_name<typename held::format_type>());
    });
  }
}

struct purpose;  // separates this choice's plan cache from the loop-order choice's

/// Every variant's estimated cost (its cheapest loop order's) and labels, and the cheapest.
struct variant_costs {
  std::vector<double> cost;
  std::vector<std::string> label;
  std::size_t chosen = 0;
};

template <class Lhs, class E>
variant_costs cost_variants(const Lhs& lhs, const E& written, statistics_cache& stats) {
  variant_costs out;
  variant_labels(written, out.label);
  auto cost = [&](const auto& v, std::size_t number) {
    using V = std::remove_cvref_t<decltype(v)>;
    double c = std::numeric_limits<double>::infinity();
    if constexpr (plan::assignment_is_valid<Lhs, V>) {
      const auto rhs = rewrite::for_kernel(v).expr;
      const optimize::plan_choice p = optimize::choose_plan(lhs, rhs, stats);
      c = p.cost[p.chosen];
    }
    out.cost.push_back(c);
    if (c < out.cost[out.chosen]) out.chosen = number;
  };
  std::size_t number = 0;
  for_each_variant(written, cost, number);
  return out;
}

/// The variant to run for `lhs = written`: cached per kernel by the coarse signature of every
/// variant's operands, else costed from statistics.
template <class Lhs, class E> std::size_t cached_variant(const Lhs& lhs, const E& written) {
  thread_local std::vector<std::uint8_t> signature, part;  // reused: a hit allocates nothing
  signature.clear();
  auto sign = [&](const auto& v, std::size_t) {
    optimize::detail::coarse_signature(v, part);
    signature.insert(signature.end(), part.begin(), part.end());
  };
  std::size_t number = 0;
  for_each_variant(written, sign, number);
  return optimize::plan_cache<Lhs, E, purpose>::local().find_or(
      signature, [&](statistics_cache& stats) {
        const variant_costs c = cost_variants(lhs, written, stats);
        if (loom::debug_plan()) {
          std::clog << "loom: format chosen among alternatives: " << c.label[c.chosen] << "\n";
        }
        return c.chosen;
      });
}

/// Runs `run(variant)` for variant `chosen` of `written` (clamped to the last).
template <class E, class Run> void run_variant(const E& written, std::size_t chosen, Run&& run) {
  chosen = std::min(chosen, variant_count<E>() - 1);
  auto pick = [&](const auto& v, std::size_t number) {
    if (number == chosen) run(v);
  };
  std::size_t number = 0;
  for_each_variant(written, pick, number);
}

}  // namespace loom::detail::alt

#endif  // LOOM_EXEC_ALTERNATIVES_HPP
