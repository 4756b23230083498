// Defines loom::kernel_decision, decide and run (exec/): one kernel's choices as a value. `decide`
// makes every choice of `lhs = rhs` (a sum hoisted or not, the candidate plan, the skip policies);
// `run` executes the decision with one dispatch; explain() prints it and the plan log
// (core/plan_log.hpp) reports it with what the run measured.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DECISION_HPP
#define LOOM_EXEC_DECISION_HPP

#include <loom/core/clock.hpp>
#include <loom/core/config.hpp>
#include <loom/core/plan_log.hpp>
#include <loom/core/static_text.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/exec/bind.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/plan_text.hpp>
#include <loom/exec/run_plan.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/choice/hoist_choice.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/skip_choice.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/plan/order.hpp>
#include <loom/rewrite/hoist.hpp>
#include <loom/stream/skip.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom {

/// How a kernel's intersections co-iterate (optimize/choice/skip_choice.hpp): the static table
/// (the default), one of several instantiated variants chosen from statistics
/// (`opt::skip_candidates<N>`), codes read at run time (`opt::runtime_skips`), or fixed by the
/// options (`opt::fixed_skips`).
enum class skip_decision { static_table, candidates, runtime_codes, fixed };

namespace detail {

template <skip_decision S, class P, class Options> struct skip_variant_list {
  using type = boost::mp11::mp_list<stream::skip::per_loop<>>;
};
template <class P, class Options> struct skip_variant_list<skip_decision::fixed, P, Options> {
  using type = boost::mp11::mp_list<typename fixed_skips_of<typename Options::skips>::type>;
};
template <class P, class Options> struct skip_variant_list<skip_decision::candidates, P, Options> {
  using type = optimize::skip_candidates_t<P, Options::skip_cap>;
};
template <class P, class Options>
struct skip_variant_list<skip_decision::runtime_codes, P, Options> {
  using type = boost::mp11::mp_list<stream::skip::every_loop<stream::skip::runtime>>;
};

/// The skip policy plan P runs with under Options.
template <class P, class Options> constexpr skip_decision skip_policy_of() {
  using skips = typename Options::skips;
  if constexpr (!std::is_void_v<typename fixed_skips_of<skips>::type>) {
    return skip_decision::fixed;
  } else if constexpr (Options::skip_cap > 1) {
    if constexpr (boost::mp11::mp_size<optimize::skip_candidates_t<P, Options::skip_cap>>::value >
                  1)
      return skip_decision::candidates;
    else
      return skip_decision::static_table;
  } else if constexpr (std::is_same_v<skips, opt::runtime_skips>) {
    if constexpr (optimize::has_runtime_skip_loop<P>)
      return skip_decision::runtime_codes;
    else
      return skip_decision::static_table;
  } else {
    return skip_decision::static_table;
  }
}

/// The skip-policy types plan P may run with under Options: `run` picks one by index.
template <class P, class Options>
using skip_variants_t = typename skip_variant_list<skip_policy_of<P, Options>(), P, Options>::type;

}  // namespace detail

/// What loom decided for one kernel `lhs = rhs` (the right-hand side rewritten): whether a sum is
/// computed first (hoisted), which candidate plan runs and what each was estimated to cost, and
/// the skip policies of its loops. Made by loom::decide, run by loom::run; holds the operands by
/// pointer, as the expression does.
template <class Lhs, class Rhs, class Options, bool Accumulate, class Order = void>
struct kernel_decision {
  using lhs_type = Lhs;
  using kernel_type = Rhs;
  using options_type = Options;
  static constexpr bool accumulate = Accumulate;
  /// The plans instantiated (plan/order.hpp): one under a loop order fixed by loom::order.
  static constexpr std::size_t candidate_count = [] {
    if constexpr (std::is_void_v<Order>)
      return plan::plan_candidates<Lhs, Rhs>::count;
    else
      return std::size_t{1};
  }();
  template <std::size_t C>
  using plan_type = std::conditional_t<
      !std::is_void_v<Order>, plan::order_plan<Lhs, Rhs, -1, Order>,
      std::conditional_t<(candidate_count > 1), plan::order_plan<Lhs, Rhs, static_cast<int>(C)>,
                         plan::order_plan<Lhs, Rhs>>>;

  kernel_decision(const Lhs& target, const Rhs& kernel, const Options& opts)
      : lhs(target), rhs(kernel), options(opts) {}

  Lhs lhs;
  Rhs rhs;
  Options options;
  bool hoisted = false;                     // a sum is computed first (rewrite/hoist.hpp)
  std::size_t candidate = 0;                // the plan run
  std::span<const double> candidate_costs;  // per candidate, from the plan cache (none: one)
  bool cache_hit = false;                   // the plan choice was remembered, not costed
  std::size_t skip_variant = 0;             // among skip_variants_t of the plan run
  stream::skip::codes skip_codes = stream::skip::default_codes;  // skip_decision::runtime_codes
  bool aliased = false;  // the output is a copy that replaces the one an operand reads
  /// A sparse output written out of order: its workspace's kind and estimates
  /// (optimize/choice/workspace_choice.hpp).
  optimize::workspace_choice workspace;

  /// f(std::type_identity<P>{}) with the plan P decided.
  template <class F> void with_plan(F&& f) const {
    if constexpr (candidate_count > 1)
      boost::mp11::mp_with_index<candidate_count>(
          candidate, [&](auto c) { f(std::type_identity<plan_type<decltype(c)::value>>{}); });
    else
      f(std::type_identity<plan_type<0>>{});
  }
};

namespace detail {

/// The skip variant or codes plan P runs with, as the options say: cached choices from
/// statistics unless the options force one.
template <class P, class D> void decide_skips(D& d) {
  using Options = typename D::options_type;
  constexpr skip_decision policy = skip_policy_of<P, Options>();
  const Options& opts = d.options;
  if constexpr (policy == skip_decision::candidates) {
    constexpr std::size_t n = boost::mp11::mp_size<skip_variants_t<P, Options>>::value;
    d.skip_variant = opts.skip_candidate
                         ? std::min(*opts.skip_candidate, n - 1)
                         : optimize::cached_skip_choice<P, Options::skip_cap>(d.lhs, d.rhs);
  } else if constexpr (policy == skip_decision::runtime_codes) {
    d.skip_codes =
        opts.skip_codes ? *opts.skip_codes : optimize::cached_runtime_skips<P>(d.lhs, d.rhs);
  }
  (void)opts;
}

/// Whether plan P writes the output of `Lhs` through a workspace: a sparse output (not a dense
/// or bitmap one, written in place) whose entries the loops produce out of order.
template <class P, class Lhs>
inline constexpr bool writes_through_workspace = [] {
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(std::declval<Lhs>().tensor)>>;
  return !out_t::format_type::all_dense && !out_t::format_type::dense_over_bitmap &&
         !P::output_in_order;
}();

/// The decision of `lhs = rhs` as one fused loop nest (no sum hoisted): the candidate plan from
/// statistics (cached), then its skip policies. Under loom::order<...> (`Order`), that order.
template <class Order = void, class Options, class Lhs, class Rhs, bool Acc>
kernel_decision<Lhs, Rhs, Options, Acc, Order> decide_fused(const Lhs& lhs, const Rhs& rhs,
                                                            std::bool_constant<Acc>,
                                                            const Options& opts) {
  kernel_decision<Lhs, Rhs, Options, Acc, Order> d{lhs, rhs, opts};
  if constexpr (decltype(d)::candidate_count > 1) {
    const optimize::plan_choice& c = optimize::cached_plan_choice(lhs, rhs, d.cache_hit);
    d.candidate = c.chosen;
    d.candidate_costs = c.cost;
  }
  d.with_plan([&](auto p) {
    using P = typename decltype(p)::type;
    decide_skips<P>(d);
    if constexpr (writes_through_workspace<P, Lhs>)
      d.workspace = optimize::cached_workspace_choice<P>(lhs, rhs);
  });
  return d;
}

/// Whether a sum the fused loops would recompute for each value of indices it does not depend on
/// (e.g. the inner sum of sum(i, A(i,j) * sum(k, A(i,k) * x(k)))) is better computed once first:
/// the cost model decides (optimize/choice/hoist_choice.hpp, cached). Fixed skip policies name the
/// loops of one plan, so they hoist nothing.
template <class Options, class Lhs, class Rhs> bool hoist_pays(const Lhs& lhs, const Rhs& rhs) {
  constexpr bool fixed = !std::is_void_v<typename fixed_skips_of<typename Options::skips>::type>;
  bool hoist = false;
  if constexpr (rewrite::has_hoistable_v<Rhs> && !fixed) {
    rewrite::hoist_first(rhs, [&](const auto& s, auto) {
      hoist = optimize::cached_hoist(lhs, rhs, s,
                                     rewrite::hoisted_dense_v<std::remove_cvref_t<decltype(s)>>);
    });
  }
  (void)lhs, (void)rhs;
  return hoist;
}

}  // namespace detail

namespace detail {
// A hoisted sum's storage: a dense vector (the size of one operand mode), a dense matrix unless
// the sum is statically sparse (then DCSR).
template <class V, class S, std::size_t N>
using hoisted_tensor =
    tensor<V, std::conditional_t<N == 0, format<>,
                                 std::conditional_t<N == 1, dense_vector,
                                                    std::conditional_t<rewrite::hoisted_dense_v<S>,
                                                                       dense_matrix, dcsr>>>>;

template <class Options, class OT, class... Os, class R, bool Acc>
void assign_checked(expr::access<OT, Os...>& lhs, const R& rhs_operand,
                    std::bool_constant<Acc> accumulate, const Options& opts);

template <class Order = void, class Options, class Lhs, class Rhs, bool Acc>
void run_kernel(const Lhs& lhs, const Rhs& rhs, std::bool_constant<Acc> accumulate,
                const Options& opts, bool aliased = false);

// The first hoistable sum computed into a temporary (its own kernel), then the kernel that reads
// it in the sum's place.
template <class D> void run_hoisted(const D& d) {
  rewrite::hoist_first(d.rhs, [&](const auto& s, auto rebuild) {
    using S = std::remove_cvref_t<decltype(s)>;
    [&]<class... Is>(mp_list<Is...>) {
      using T = hoisted_tensor<expr::value_type_t<S>, S, sizeof...(Is)>;
      T t(typename T::shape_type{expr::extent_read<Is>(s)...});
      t.set_name("hoisted");  // how explain_analyze and the plan log name it
      if constexpr (T::format_type::all_dense)
        LOOM_COUNT_WORK_N(writes, t.values().size());  // zeroed
      expr::access<T, Is...> target{&t};
      assign_checked(target, s, std::false_type{}, d.options);
      if constexpr (sizeof...(Is) == 0)  // a scalar: a literal (order-0 operands not streamed)
        run_kernel(d.lhs, rebuild(expr::literal<expr::value_type_t<S>>{t.values()[0]}),
                   std::bool_constant<D::accumulate>{}, d.options);
      else
        run_kernel(d.lhs, rebuild(expr::access<const T, Is...>{&t}),
                   std::bool_constant<D::accumulate>{}, d.options);
    }(expr::free_indices_t<S>{});
  });
}

// A decision type's report figures that types fix, as constants: the kernel's text with holes
// for names and values, the output's format, each candidate's loop order and skip policy. One
// non-template function (describe_decision) turns them and a run's choices into the report.
struct decision_constants {
  std::string_view output_pattern;  // plan_text.hpp's expression_pattern: "\x01(i)"
  std::string_view kernel_pattern;  // the right-hand side's
  std::string_view output_format;
  const std::string_view* loop_orders;     // per candidate: "i,j"
  const skip_decision* skip_policies;      // per candidate
  const std::size_t* skip_variant_counts;  // per candidate
  std::size_t candidates = 1;
  bool accumulate = false;
};
// The choices one decision made at run time.
struct decision_choices {
  bool hoisted = false, aliased = false, cache_hit = false;
  std::size_t candidate = 0, skip_variant = 0;
  std::span<const double> candidate_costs;
};
/// Fills `r` with what is known before the kernel runs. The operands are named as explain()
/// names them: an unnamed output "out", an unnamed operand "T<its ordinal>".
LOOM_DECL void describe_decision(const decision_constants& constants,
                                 const decision_choices& choices, std::string_view output_label,
                                 std::span<const std::string_view> operand_labels,
                                 std::span<const std::string> values, kernel_report& r);
template <class P> struct loop_order_writer {
  static constexpr void write(text_sink& s) {
    bool first = true;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, typename P::order>>(
        [&](auto idx) {
          s.put(first ? "" : ",");
          s.put(decltype(idx)::type::name);
          first = false;
        });
  }
};
template <class D, class Candidates = std::make_index_sequence<D::candidate_count>>
struct decision_tables;
template <class D, std::size_t... C> struct decision_tables<D, std::index_sequence<C...>> {
  using options = typename D::options_type;
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(std::declval<D>().lhs.tensor)>>;
  static constexpr std::string_view loop_orders[] = {
      static_text<loop_order_writer<typename D::template plan_type<C>>>::view...};
  static constexpr skip_decision skip_policies[] = {
      skip_policy_of<typename D::template plan_type<C>, options>()...};
  static constexpr std::size_t skip_variant_counts[] = {
      boost::mp11::mp_size<skip_variants_t<typename D::template plan_type<C>, options>>::value...};
  static constexpr decision_constants value{expression_pattern<typename D::lhs_type>,
                                            expression_pattern<typename D::kernel_type>,
                                            format_name_v<typename out_t::format_type>,
                                            loop_orders,
                                            skip_policies,
                                            skip_variant_counts,
                                            D::candidate_count,
                                            D::accumulate};
};

/// Runs the decision: the hoisted sum first, or the plan decided with its skip policies (one
/// dispatch over the instantiated plans and skip variants), into the output `lhs` names.
template <class D> void run_decided(const D& d) {
  if constexpr (rewrite::has_hoistable_v<typename D::kernel_type>)
    if (d.hoisted) return run_hoisted(d);
  auto& out = *d.lhs.tensor;
  d.with_plan([&](auto p) {
    using P = typename decltype(p)::type;
    using variants = skip_variants_t<P, typename D::options_type>;
    boost::mp11::mp_with_index<boost::mp11::mp_size<variants>::value>(d.skip_variant, [&](auto s) {
      using Skips = boost::mp11::mp_at_c<variants, decltype(s)::value>;
      const auto extents = gather_extents(d.lhs, d.rhs);  // by P::universe
      if constexpr (needs_map_variants<typename D::kernel_type>) {
        if (maps_need_dense_domain(d.rhs))
          return run_plan<P, true, Skips, D::accumulate>(out, d.lhs, d.rhs, extents, d.skip_codes,
                                                         d.workspace);
      }
      run_plan<P, false, Skips, D::accumulate>(out, d.lhs, d.rhs, extents, d.skip_codes,
                                               d.workspace);
    });
  });
}

// run_decided, its report built and published (the plan log is on).
template <class D> LOOM_NOINLINE void run_reported(const D& d, double decide_seconds) {
  kernel_report r;
  {
    std::vector<std::string_view> labels;
    std::vector<std::string> values;
    collect_labels(d.rhs, labels);
    collect_values(d.rhs, values);
    describe_decision(
        decision_tables<D>::value,
        {d.hoisted, d.aliased, d.cache_hit, d.candidate, d.skip_variant, d.candidate_costs},
        d.lhs.tensor->name(), labels, values, r);
  }
  r.decide_seconds = decide_seconds;
  const report_scope scope = open_report(r);
  try {
    run_decided(d);
  } catch (...) {
    abandon_report(scope);
    throw;
  }
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(d.lhs.tensor)>>;
  if constexpr (!out_t::format_type::all_dense) r.actual_entries = d.lhs.tensor->nnz();
  close_report(r, scope);
}

/// Every choice of `lhs = rhs` (the right-hand side checked and rewritten): a sum hoisted when
/// the cost model says so (then the plans are not costed), else decide_fused.
template <class Order = void, class Options, class Lhs, class Rhs, bool Acc>
kernel_decision<Lhs, Rhs, Options, Acc, Order> decide(const Lhs& lhs, const Rhs& rhs,
                                                      std::bool_constant<Acc> accumulate,
                                                      const Options& opts) {
  if constexpr (std::is_void_v<Order>) {
    if (hoist_pays<Options>(lhs, rhs)) {
      kernel_decision<Lhs, Rhs, Options, Acc, Order> d{lhs, rhs, opts};
      d.hoisted = true;
      return d;
    }
  }
  return decide_fused<Order>(lhs, rhs, accumulate, opts);
}

/// Decides `lhs = rhs` and runs the decision; with the plan log on, times both and reports them.
template <class Order, class Options, class Lhs, class Rhs, bool Acc>
void run_kernel(const Lhs& lhs, const Rhs& rhs, std::bool_constant<Acc> accumulate,
                const Options& opts, bool aliased) {
  if (!plan_log_active()) return run_decided(decide<Order>(lhs, rhs, accumulate, opts));
  const std::int64_t t0 = monotonic_ns();
  auto d = decide<Order>(lhs, rhs, accumulate, opts);
  d.aliased = aliased;
  run_reported(d, seconds_since(t0));
}

}  // namespace detail
}  // namespace loom

#if LOOM_HEADER_ONLY
namespace loom::detail {
LOOM_DEF void describe_decision(const decision_constants& constants,
                                const decision_choices& choices, std::string_view output_label,
                                std::span<const std::string_view> operand_labels,
                                std::span<const std::string> values, kernel_report& r) {
  r.kernel = fill_pattern(constants.output_pattern, {&output_label, 1}, 0, {}, "out") +
             (constants.accumulate ? " += " : " = ") +
             fill_pattern(constants.kernel_pattern, operand_labels, 0, values);
  r.output_format = std::string(constants.output_format);
  r.accumulate = constants.accumulate;
  r.hoisted = choices.hoisted;
  r.aliased = choices.aliased;
  r.cache_hit = choices.cache_hit;
  r.candidate = choices.candidate;
  r.candidates = constants.candidates;
  r.candidate_costs.assign(choices.candidate_costs.begin(), choices.candidate_costs.end());
  if (choices.hoisted) return;
  r.loop_order = std::string(constants.loop_orders[choices.candidate]);
  switch (constants.skip_policies[choices.candidate]) {
    case skip_decision::fixed:
      r.skip_policy = "fixed by the options";
      break;
    case skip_decision::runtime_codes:
      r.skip_policy = "codes chosen at run time";
      break;
    case skip_decision::candidates:
      r.skip_policy = "variant " + std::to_string(choices.skip_variant) + " of " +
                      std::to_string(constants.skip_variant_counts[choices.candidate]);
      break;
    case skip_decision::static_table:
      r.skip_policy = "static table";
      break;
  }
}
}  // namespace loom::detail
#endif  // LOOM_HEADER_ONLY

#endif  // LOOM_EXEC_DECISION_HPP
