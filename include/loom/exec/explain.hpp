// Defines loom::explain(lhs, rhs): the chosen plan in words: the kernel, the loop order, the
// strategy at each loop level, transpositions and the output strategy (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_EXPLAIN_HPP
#define LOOM_EXEC_EXPLAIN_HPP

#include <loom/exec/aggregate.hpp>
#include <loom/exec/alternatives.hpp>
#include <loom/exec/decision.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/plan_text.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/assembly/appender.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/memory.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/choice/hoist_choice.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/choice/skip_choice.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/pattern.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/rewrite/hoist.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace loom {

// `!options_type<R>`: `explain(e, opts)` is the scalar form below, not `lhs = opts`.
template <class Lhs, class R, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate && !options_type<R>)
std::string explain(const Lhs& lhs, const R& rhs_operand, const O& opts = {});

namespace detail {

// `lhs = rhs` into a loom::auto_tensor: the format chosen and why, then the plan of the
// assignment into that format.
template <class OT, class... Os, class W, class O>
std::string explain_auto(const expr::access<OT, Os...>& lhs, const W& written, const O& opts) {
  loom::statistics_cache stats;
  optimize::output_format_choice c;
  bool done = false;
  loom::detail::alt::for_each_variant(written, [&](const auto& v, std::size_t) {
    if (!done)
      c = loom::detail::alt::estimate_output_format(lhs, rewrite::for_kernel(v).expr, stats);
    done = true;
  });
  std::string out;
  boost::mp11::mp_with_index<4>(static_cast<std::size_t>(c.format), [&](auto kc) {
    using held =
        std::tuple_element_t<decltype(kc)::value, typename std::remove_const_t<OT>::held_types>;
    held probe(lhs.tensor->shape());
    probe.set_name(lhs.tensor->name());
    out = "output format chosen: " + c.describe() + "\n" +
          explain(expr::access<held, Os...>{&probe}, written, opts);
  });
  return out;
}

// `lhs = rhs` where rhs reads a loom::alternatives: every variant's estimated cost (one format
// per alternatives), then the plan of the variant that runs.
template <class Lhs, class W, class O>
std::string explain_alternatives(const Lhs& lhs, const W& written, const O& opts) {
  loom::statistics_cache stats;
  const auto c = loom::detail::alt::cost_variants(lhs, written, stats);
  std::ostringstream pre;
  pre << "alternatives: " << c.cost.size() << " variants, one per format held:\n";
  for (std::size_t k = 0; k < c.cost.size(); ++k)
    pre << "  " << (k == c.chosen ? "* " : "  ") << "#" << k << " " << c.label[k]
        << ": estimated cost " << static_cast<std::int64_t>(c.cost[k] + 0.5) << "\n";
  std::size_t chosen = c.chosen;
  if (opts.alternative) {
    chosen = std::min(*opts.alternative, c.cost.size() - 1);
    pre << "variant #" << chosen << " forced by the options\n";
  } else {
    pre << "chosen: variant #" << chosen << ", the cheapest (*)\n";
  }
  std::string out;
  loom::detail::alt::run_variant(written, chosen,
                                 [&](const auto& v) { out = pre.str() + explain(lhs, v, opts); });
  return out;
}

// `lhs = rhs` with max or min aggregates: each computed first (its body's kernel runs now), then
// the plan of the expression that reads them.
template <class Lhs, class W, class O>
std::string explain_aggregates(const Lhs& lhs, const W& written, const O& opts) {
  std::string pre;
  loom::detail::aggr::kept keep;
  const auto e =
      loom::detail::aggr::materialize(written, keep, [&](auto& target, const auto& body) {
        std::size_t ordinal = 0;
        pre += "aggregate computed first: " + to_string(body, ordinal) +
               " into a temporary (plan "
               "below), then reduced into a dense tensor\n" +
               explain(target, body, opts);
        loom::detail::assign_checked(target, body, std::false_type{}, opts);
      });
  return pre + explain(lhs, e, opts);
}

template <class Lhs, class R, class O>
std::string explain_kernel(const Lhs& lhs, const R& rhs_operand, const O& opts);

}  // namespace detail

/// A description of the plan loom compiles for `lhs = rhs`, e.g.
/// `loom::explain(y(i), loom::sum(j, A(i, j) * x(j)))`, under `opts` as loom::assign runs it.
template <class Lhs, class R, options_type O>
  requires(!std::remove_cvref_t<O>::eliminate && !options_type<R>)
std::string explain(const Lhs& lhs, const R& rhs_operand, const O& opts) {
  const auto written = expr::as_expr(rhs_operand);
  using W = std::remove_cvref_t<decltype(written)>;
  if constexpr (loom::detail::aggr::has_aggregates_v<W>)
    return detail::explain_aggregates(lhs, written, opts);
  else if constexpr (loom::detail::alt::auto_output_v<Lhs>)
    return detail::explain_auto(lhs, written, opts);
  else if constexpr (loom::detail::alt::has_alternatives_v<W>)
    return detail::explain_alternatives(lhs, written, opts);
  else
    return detail::explain_kernel(lhs, written, opts);
}

// One kernel's plan: the rewrites, the hoisted sums, the candidates and their costs, the loops.
template <class Lhs, class R, class O>
std::string detail::explain_kernel(const Lhs& lhs, const R& rhs_operand, const O& opts) {
  const auto rewritten = rewrite::for_kernel(expr::as_expr(rhs_operand));  // as the evaluator does
  const auto rhs = rewritten.expr;
  using Rhs = std::remove_cvref_t<decltype(rhs)>;
  using fired = typename decltype(rewritten)::fired;
  std::string rules = boost::mp11::mp_empty<fired>::value
                          ? ""
                          : "rules fired: " + rewrite::fired_names<fired>() + "\n";
  rules += detail::aliasing_line(lhs, rhs);
  if constexpr (loom::detail::kernel_per_term<Lhs, Rhs>()) {  // as the evaluator runs it
    std::string out = rules +
                      "one kernel per term (a dense output, a sum of sums over its indices): "
                      "the first term assigns, the others add, in order\n";
    std::size_t t = 0;
    auto one = [&](const auto& term, auto) {
      out += "term " + std::to_string(++t) + ":\n" + explain_kernel(lhs, term, opts);
    };
    loom::detail::for_each_term<false>(rhs, one);
    return out;
  }
  constexpr bool fixed =
      !std::is_void_v<typename loom::detail::fixed_skips_of<typename O::skips>::type>;
  if constexpr (rewrite::has_hoistable_v<Rhs> && !fixed) {  // as the evaluator (hoist_choice.hpp)
    rewrite::hoist_first(rhs, [&](const auto& s, auto) {
      std::size_t ordinal = 0;
      loom::statistics_cache stats;
      const auto c = optimize::choose_hoist(
          lhs, rhs, s, rewrite::hoisted_dense_v<std::remove_cvref_t<decltype(s)>>, stats);
      rules += (c.hoist() ? "hoisted: " : "not hoisted: ") + detail::to_string(s, ordinal) +
               (c.hoist() ? " is computed once, before the loops below ("
                          : " stays in the fused loops (") +
               c.describe() + ")\n";
    });
  }
  using P0 = plan::order_plan<Lhs, Rhs>;
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {
    const auto decision = loom::detail::decide_fused(lhs, rhs, std::false_type{}, opts);
    loom::statistics_cache stats;  // the figures shown; the choice is the decision's
    std::ostringstream pre;
    pre << rules << "candidates (" << n << " instantiated, at most " << plan::max_plan_candidates
        << "; loom::limits::plan_candidates), costed at run time from statistics:\n";
    boost::mp11::mp_for_each<boost::mp11::mp_iota_c<n>>([&](auto c) {
      using P = plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>;
      std::string moved;
      expr::for_each_access(rhs, [&](const auto& a, std::size_t operand) {
        if (P::chosen.transposed[operand])
          moved += (moved.empty() ? "" : ", ") + detail::tensor_label(*a.tensor, operand);
      });
      std::string names;
      boost::mp11::mp_for_each<typename P::order>([&](auto idx) {
        names += (names.empty() ? "" : ",") + std::string(decltype(idx)::name);
      });
      pre << "  " << (c == decision.candidate ? "* " : "  ") << "#" << c << " order " << names;
      if (!moved.empty()) pre << "; transpose " << moved;
      pre << ": estimated cost " << static_cast<std::int64_t>(decision.candidate_costs[c] + 0.5)
          << "\n";
    });
    pre << "statistics:";
    expr::for_each_access(rhs, [&](const auto& a, std::size_t operand) {
      using tensor_t = std::remove_const_t<std::remove_pointer_t<decltype(a.tensor)>>;
      pre << " " << detail::tensor_label(*a.tensor, operand);
      if constexpr (tensor_t::format_type::all_dense) {
        pre << " [dense]";
      } else {
        const auto& st = stats.get(*a.tensor);
        pre << " [nnz " << st.nnz << ", max degree per mode";
        for (auto d : st.max_degree) pre << " " << d;
        pre << "]";
      }
    });
    pre << "\nchosen: candidate #" << decision.candidate << ", the cheapest (*)"
        << (decision.cache_hit ? ", remembered from an earlier run of this kernel" : "") << "\n";
    std::string out;
    decision.with_plan([&](auto p) {
      using P = typename decltype(p)::type;
      out = detail::explain_plan<P>(lhs, rhs, pre.str()) + detail::skip_section<P>(lhs, rhs, opts);
    });
    return out;
  }
  return detail::explain_plan<P0>(lhs, rhs, rules) + detail::skip_section<P0>(lhs, rhs, opts);
}

}  // namespace loom

namespace loom {
/// The plan of `lhs = loom::order<...>(e)`: that loop order only (no candidates, no hoisting).
template <class Lhs, class Order, class E, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
std::string explain(const Lhs& lhs, const expr::ordered<Order, E>& fixed, const O& opts = {}) {
  const auto rewritten = rewrite::for_kernel(fixed.expr);
  const auto rhs = rewritten.expr;
  using Rhs = std::remove_cvref_t<decltype(rhs)>;
  using fired = typename decltype(rewritten)::fired;
  std::string rules = boost::mp11::mp_empty<fired>::value
                          ? ""
                          : "rules fired: " + rewrite::fired_names<fired>() + "\n";
  rules += detail::aliasing_line(lhs, rhs);
  std::string names;
  boost::mp11::mp_for_each<Order>(
      [&](auto idx) { names += (names.empty() ? "" : ", ") + std::string(decltype(idx)::name); });
  rules += "loop order fixed by loom::order<" + names + ">\n";
  using P = plan::order_plan<Lhs, Rhs, -1, Order>;
  return detail::explain_plan<P>(lhs, rhs, rules) + detail::skip_section<P>(lhs, rhs, opts);
}

/// The plan of `loom::eval(e, opts)`, an expression without free indices:
/// `loom::explain(loom::sum(i, x(i) * y(i)))`. The result is named "result".
template <expr::operand E, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
std::string explain(const E& e, const O& opts = {}) {
  const auto written = expr::as_expr(e);
  using V = expr::value_type_t<std::remove_cvref_t<decltype(written)>>;
  V value = semiring_traits<V>::zero();  // the target loom::eval writes through
  view<V, format<>> result({}, {}, std::span<V>(&value, 1));
  result.set_name("result");
  return explain(expr::access<view<V, format<>>>{&result}, written, opts);
}
}  // namespace loom

namespace loom {
/// An expression in index notation, with tensor names (T0, T1, ... for unnamed ones):
/// `loom::to_string(sum(j, A(i, j) * x(j)))` gives "sum(j, A(i,j) * x(j))".
template <expr::operand E> std::string to_string(const E& e) {
  std::size_t ordinal = 0;
  return detail::to_string(expr::as_expr(e), ordinal);
}
}  // namespace loom

#endif  // LOOM_EXEC_EXPLAIN_HPP
