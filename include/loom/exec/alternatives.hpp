// Defines the driver's run-time format choices: among the formats a tensor is held in
// (loom::alternatives; every variant of the expression, one per combination, is costed by the plan
// cost model and the cheapest runs), and the format of a loom::auto_tensor output (from its
// estimated fill) (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_ALTERNATIVES_HPP
#define LOOM_EXEC_ALTERNATIVES_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/debug.hpp>
#include <loom/core/unpack.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/alternatives.hpp>
#include <loom/format/auto_tensor.hpp>
#include <loom/format/format_name.hpp>
#include <loom/optimize/choice/output_format_choice.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>
#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/rewrite/for_evaluation.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
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
    return loom::detail::unpack(
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

/// Variant N of `e`: its alternatives read, left to right, each replaced by one of its tensors,
/// the first varying slowest (N = d0 * (variants of the rest) + ...).
template <std::size_t N, class E> auto build_variant(const E& e) {
  if constexpr (!has_alternatives_v<E>) {
    static_assert(N == 0);
    return e;
  } else {
    constexpr std::size_t rest =
        variant_count<decltype(replace_first<0>(std::declval<const E&>()))>();
    return build_variant<N % rest>(replace_first<N / rest>(e));
  }
}

/// Calls `f(holder, digit)` for each alternatives read by `e`, left to right, with the tensor
/// variant `number` reads from it.
template <class E, class F> void for_each_digit(const E& e, std::size_t number, F&& f) {
  std::size_t rest = variant_count<E>();
  expr::for_each_access(e, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
    if constexpr (is_alternatives_v<std::remove_const_t<T>>) {
      rest /= std::remove_const_t<T>::count;
      f(*a.tensor, number / rest);
      number %= rest;
    }
  });
}

/// Whether every tensor variant `number` reads is there (an auto_tensor holds one of its formats).
template <class E> bool variant_available(const E& e, std::size_t number) {
  bool ok = true;
  for_each_digit(e, number,
                 [&](const auto& holder, std::size_t nth) { ok = ok && holder.available(nth); });
  return ok;
}

/// "A2 as csr, B2 as csc": what variant `number` reads.
template <class E> std::string variant_label(const E& e, std::size_t number) {
  std::string label;
  std::size_t ordinal = 0;
  for_each_digit(e, number, [&](const auto& holder, std::size_t nth) {
    label += (label.empty() ? "" : ", ") +
             (holder.name().empty() ? "T" + std::to_string(ordinal) : holder.name()) + " as " +
             holder.format_name(nth);
    ++ordinal;
  });
  return label;
}

/// Calls `f(variant, number)` for every variant of `e` that can run (all of them, unless it
/// reads an auto_tensor, which holds one format at a time).
template <class E, class F> void for_each_variant(const E& e, F&& f) {
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<variant_count<E>()>>([&](auto n) {
    if (variant_available(e, decltype(n)::value)) f(build_variant<decltype(n)::value>(e), n);
  });
}

struct purpose;  // separates this choice's plan cache from the loop-order choice's

/// Every variant's estimated cost (its cheapest loop order's; infinite when it cannot run) and
/// label, and the cheapest.
struct variant_costs {
  std::vector<double> cost;
  std::vector<std::string> label;
  std::size_t chosen = 0;
};

template <class Lhs, class E>
variant_costs cost_variants(const Lhs& lhs, const E& written, statistics_cache& stats) {
  variant_costs out;
  constexpr std::size_t n = variant_count<E>();
  out.cost.assign(n, std::numeric_limits<double>::infinity());
  for (std::size_t v = 0; v < n; ++v) out.label.push_back(variant_label(written, v));
  bool first = true;
  for_each_variant(written, [&](const auto& v, std::size_t number) {
    using V = std::remove_cvref_t<decltype(v)>;
    if constexpr (plan::assignment_is_valid<Lhs, V>) {
      const auto rhs = rewrite::for_kernel(v).expr;
      const optimize::plan_choice p = optimize::choose_plan(lhs, rhs, stats);
      out.cost[number] = p.cost[p.chosen];
    }
    if (first || out.cost[number] < out.cost[out.chosen]) out.chosen = number;
    first = false;
  });
  return out;
}

/// The variant to run for `lhs = written`: the only one that can run, else cached per kernel by
/// the coarse signature of every variant's operands (and which can run), else costed.
template <class Lhs, class E> std::size_t cached_variant(const Lhs& lhs, const E& written) {
  constexpr std::size_t n = variant_count<E>();
  std::size_t available = 0, last = 0;
  for (std::size_t v = 0; v < n; ++v)
    if (variant_available(written, v)) ++available, last = v;
  if (available == 1) return last;
  thread_local std::vector<std::uint8_t> signature, part;  // reused: a hit allocates nothing
  signature.clear();
  for (std::size_t v = 0; v < n; ++v)
    signature.push_back(static_cast<std::uint8_t>(variant_available(written, v)));
  for_each_variant(written, [&](const auto& v, std::size_t) {
    optimize::detail::coarse_signature(v, part);
    loom::detail::append_range(signature, part);
  });
  return optimize::plan_cache<Lhs, E, purpose>::local().find_or(
      signature, [&](statistics_cache& stats) {
        const variant_costs c = cost_variants(lhs, written, stats);
        if (loom::debug_plan())
          loom::detail::debug_line({"loom: format chosen among alternatives: ", c.label[c.chosen]});
        return c.chosen;
      });
}

/// Runs `run(variant)` for variant `chosen` of `written` (clamped to the last); throws
/// shape_error when it reads a format an auto_tensor does not hold now.
template <class E, class Run> void run_variant(const E& written, std::size_t chosen, Run&& run) {
  constexpr std::size_t n = variant_count<E>();
  chosen = std::min(chosen, n - 1);
  if (!variant_available(written, chosen))
    throw shape_error("loom: variant #" + std::to_string(chosen) + " (" +
                      variant_label(written, chosen) +
                      ") reads a format its auto_tensor does not hold now");
  boost::mp11::mp_with_index<n>(chosen,
                                [&](auto c) { run(build_variant<decltype(c)::value>(written)); });
}

template <class Lhs> struct auto_output : std::false_type {};
template <class OT, class... Os>
struct auto_output<expr::access<OT, Os...>> : std::bool_constant<is_auto_tensor_v<OT>> {};
/// Whether Lhs writes a loom::auto_tensor.
template <class Lhs>
inline constexpr bool auto_output_v = auto_output<std::remove_cvref_t<Lhs>>::value;

/// The format of `lhs`'s auto_tensor for `rhs` (one runnable variant, rewritten): the estimated
/// entries of the output (the plan cost model's join estimate, Galley's), and whether the plan a
/// sorted output would get writes it in order.
template <class OT, class... Os, class Rhs>
optimize::output_format_choice estimate_output_format(const expr::access<OT, Os...>& lhs,
                                                      const Rhs& rhs, statistics_cache& stats) {
  using auto_t = std::remove_const_t<OT>;
  using sorted_t = typename auto_t::sorted_type;
  double cells = 1;
  for (std::size_t m = 0; m < auto_t::order; ++m)
    cells *= static_cast<double>(lhs.tensor->extent(m));
  using Lhs = expr::access<const sorted_t, Os...>;
  if constexpr (!plan::assignment_is_valid<Lhs, Rhs>) {
    return optimize::choose_output_format(0, cells, true);  // the assignment reports the error
  } else {
    const sorted_t probe(lhs.tensor->shape());
    const Lhs target{&probe};
    const optimize::loop_order_query q = optimize::describe(target, rhs, stats);
    const optimize::plan_choice p = optimize::choose_plan(target, rhs, stats);
    bool in_order = true;
    boost::mp11::mp_with_index<plan::plan_candidates<Lhs, Rhs>::count>(p.chosen, [&](auto c) {
      using P = plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>;
      std::size_t d = 0;
      boost::mp11::mp_for_each<typename P::order>([&](auto idx) {
        if (d < q.output.size()) in_order = in_order && q.output[d] == decltype(idx)::name;
        ++d;
      });
    });
    return optimize::choose_output_format(q.iterations(q.output), cells, in_order);
  }
}

struct auto_purpose;

/// The choices made for one kernel writing an auto_tensor, per thread, by coarse signature.
template <class Lhs, class W> struct output_format_cache {
  std::map<std::vector<std::uint8_t>, optimize::output_format_choice,
           optimize::detail::signature_less>
      chosen;
  statistics_cache stats;
  static output_format_cache& local() {
    thread_local output_format_cache cache;
    return cache;
  }
};

/// The format of `lhs`'s auto_tensor for `lhs = written`: cached per kernel by the coarse
/// signature of the operands and the output's extents, else estimated from statistics.
template <class OT, class... Os, class W>
optimize::output_format_choice cached_output_format(const expr::access<OT, Os...>& lhs,
                                                    const W& written) {
  optimize::output_format_choice out;
  bool done = false;
  for_each_variant(written, [&](const auto& v, std::size_t) {
    if (done) return;
    done = true;
    const auto rhs = rewrite::for_kernel(v).expr;
    thread_local std::vector<std::uint8_t> signature;  // reused: a hit allocates nothing
    optimize::detail::coarse_signature(rhs, signature);
    for (std::size_t m = 0; m < std::remove_const_t<OT>::order; ++m)
      signature.push_back(optimize::detail::magnitude(lhs.tensor->extent(m)));
    auto& cache = output_format_cache<expr::access<OT, Os...>, W>::local();
    if (const auto it = cache.chosen.find(signature); it != cache.chosen.end()) {
      out = it->second;
      return;
    }
    out = estimate_output_format(lhs, rhs, cache.stats);
    cache.chosen.emplace(signature, out);
    if (loom::debug_plan())
      loom::detail::debug_line({"loom: output format chosen: ", out.describe()});
  });
  return out;
}

}  // namespace loom::detail::alt

#endif  // LOOM_EXEC_ALTERNATIVES_HPP
