// Defines the driver (exec/): `out(i...) = e`, `out(i...) += e`, loom::assign, loom::accumulate
// and loom::eval under a loom::options. Checks the kernel, rewrites it, hoists what the loops
// would recompute, picks the plan and the skip policies, and runs the plan (exec/run_plan.hpp).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_EVALUATE_HPP
#define LOOM_EXEC_EVALUATE_HPP

#include <loom/core/error.hpp>
#include <loom/core/work_counters.hpp>
#include <loom/exec/aggregate.hpp>
#include <loom/exec/alternatives.hpp>
#include <loom/exec/bind.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/run_plan.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/appender.hpp>
#include <loom/format/assemble.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/memory.hpp>
#include <loom/format/tensor.hpp>
#include <loom/optimize/choice/hoist_choice.hpp>
#include <loom/optimize/choice/leader_choice.hpp>
#include <loom/optimize/choice/plan_cache.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/choice/workspace_choice.hpp>
#include <loom/parallel/run.hpp>
#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/pattern.hpp>
#include <loom/plan/transposed_format.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/rewrite/hoist.hpp>
#include <loom/stream/lower.hpp>
#include <loom/stream/run.hpp>
#include <loom/stream/skip.hpp>
#include <loom/stream/workspace_storage.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace loom::detail {

/// Calls `run(std::type_identity<P>{})` with the plan P of `lhs = rhs` to run: the only candidate,
/// or the one the runtime optimizer picks from statistics (optimize/choice/plan_choice.hpp,
/// cached).
template <class Lhs, class Rhs, class Run>
void with_chosen_plan(const Lhs& lhs, const Rhs& rhs, Run&& run) {
  constexpr std::size_t n = plan::plan_candidates<Lhs, Rhs>::count;
  if constexpr (n > 1) {
    boost::mp11::mp_with_index<n>(optimize::cached_choice(lhs, rhs), [&](auto c) {
      run(std::type_identity<plan::order_plan<Lhs, Rhs, static_cast<int>(decltype(c)::value)>>{});
    });
  } else {
    run(std::type_identity<plan::order_plan<Lhs, Rhs>>{});
  }
}

/// Calls `run(std::type_identity<Skips>{}, codes)` with the skip policies of plan P's loops as
/// the options say (optimize/choice/leader_choice.hpp): the static table (the default); one of
/// `skip_candidates<N>` instantiated variants chosen from statistics; one kernel whose
/// intersections read `codes` (`runtime_skips`); or fixed. The options' forced fields override
/// the statistics.
template <class P, class Options, class Lhs, class Rhs, class Run>
void with_chosen_skips(const Lhs& lhs, const Rhs& rhs, const Options& opts, Run&& run) {
  using skips = typename Options::skips;
  constexpr auto static_codes = stream::skip::default_codes;
  if constexpr (!std::is_void_v<typename fixed_skips_of<skips>::type>) {
    run(std::type_identity<typename fixed_skips_of<skips>::type>{}, static_codes);
    return;
  } else if constexpr (Options::skip_cap > 1) {
    using candidates = optimize::skip_candidates_t<P, Options::skip_cap>;
    constexpr std::size_t n = boost::mp11::mp_size<candidates>::value;
    if constexpr (n > 1) {
      const std::size_t chosen = opts.skip_candidate
                                     ? std::min(*opts.skip_candidate, n - 1)
                                     : optimize::cached_skip_choice<P, Options::skip_cap>(lhs, rhs);
      boost::mp11::mp_with_index<n>(chosen, [&](auto c) {
        run(std::type_identity<boost::mp11::mp_at_c<candidates, decltype(c)::value>>{},
            static_codes);
      });
      return;
    }
  } else if constexpr (std::is_same_v<skips, opt::runtime_skips>) {
    if constexpr (optimize::has_runtime_skip_loop<P>) {
      run(std::type_identity<stream::skip::every_loop<stream::skip::runtime>>{},
          opts.skip_codes ? *opts.skip_codes : optimize::cached_runtime_skips<P>(lhs, rhs));
      return;
    }
  }
  (void)lhs, (void)rhs, (void)opts;
  run(std::type_identity<stream::skip::per_loop<>>{}, static_codes);
}

/// Runs plan P of `lhs = rhs` with the skip policies the options choose.
template <class P, class Options, class Out, class Lhs, class Rhs>
void run_plan_with_skips(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate,
                         const Options& opts) {
  with_chosen_skips<P>(lhs, rhs, opts, [&](auto skips, const stream::skip::codes& codes) {
    execute_plan<P, typename decltype(skips)::type>(out, lhs, rhs, accumulate, codes);
  });
}

// A hoisted sum's storage: a dense vector (the size of one operand mode), a dense matrix unless
// the sum is statically sparse (then DCSR).
template <class V, class S, std::size_t N>
using hoisted_tensor =
    tensor<V, std::conditional_t<N == 0, format<>,
                                 std::conditional_t<N == 1, dense_vector,
                                                    std::conditional_t<rewrite::hoisted_dense_v<S>,
                                                                       dense_matrix, dcsr>>>>;

template <class E> inline constexpr bool is_add_node = false;
template <class L, class R> inline constexpr bool is_add_node<expr::add<L, R>> = true;

/// The terms of a sum of sums, `sum(j, a) + sum(k, b) + ...`, each over the indices Out.
template <class Out, class E> struct sum_terms {
  static constexpr bool all_sums = false;
};
template <class Out, class I, class B> struct sum_terms<Out, expr::sum<I, B>> {
  static constexpr bool all_sums =
      rewrite::detail::same_index_set_v<expr::free_indices_t<expr::sum<I, B>>, Out>;
};
template <class Out, class L, class R> struct sum_terms<Out, expr::add<L, R>> {
  static constexpr bool all_sums = sum_terms<Out, L>::all_sums && sum_terms<Out, R>::all_sums;
};

/// Whether `lhs = rhs` runs one kernel per term: a dense output and a right-hand side that is a
/// sum of sums over the output's own indices, `y(i) = sum(j, A(i,j) * x(j)) + sum(j, B(i,j) *
/// x(j))`. Each term is then the plain kernel it is alone (two SpMVs), written into the output
/// in order (the first assigns, the others add), rather than one loop over the terms whose
/// per-row state the compilers keep on the stack (docs/optimizer.md, "A sum of sums").
template <class Lhs, class Rhs> constexpr bool kernel_per_term() {
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(std::declval<Lhs>().tensor)>>;
  if constexpr (!out_t::format_type::all_dense || !is_add_node<Rhs>)
    return false;
  else
    return sum_terms<expr::free_indices_t<Lhs>, Rhs>::all_sums;
}

/// f(term) for each term of an add tree, left to right.
template <class E, class F> void for_each_term(const E& e, F& f) {
  if constexpr (is_add_node<E>) {
    for_each_term(e.lhs, f);
    for_each_term(e.rhs, f);
  } else {
    f(e);
  }
}

template <class Options, class OT, class... Os, class R, bool Acc>
void assign_checked(expr::access<OT, Os...>& lhs, const R& rhs_operand,
                    std::bool_constant<Acc> accumulate, const Options& opts);

template <class Options, class Out, class Lhs, class Rhs>
void run_kernel(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const Options& opts);

/// Whether `lhs = rhs` ran by first computing once a sum that the fused loop nest would recompute
/// for each value of indices it does not depend on (rewrite/hoist.hpp), e.g. the inner sum of
/// sum(i, A(i,j) * sum(k, A(i,k) * x(k))): done when the cost model says that is cheaper
/// (optimize/choice/hoist_choice.hpp; a filter the sum would lose, as in TPC-H Q5, keeps it
/// fused). Fixed skip policies name the loops of one plan, so they hoist nothing.
template <class Options, class Out, class Lhs, class Rhs>
bool ran_hoisted(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const Options& opts) {
  constexpr bool fixed = !std::is_void_v<typename fixed_skips_of<typename Options::skips>::type>;
  bool hoisted = false;
  if constexpr (rewrite::has_hoistable_v<Rhs> && !fixed) {
    rewrite::hoist_first(rhs, [&](const auto& s, auto rebuild) {
      using S = std::remove_cvref_t<decltype(s)>;
      [&]<class... Is>(mp_list<Is...>) {
        using T = hoisted_tensor<expr::value_type_t<S>, S, sizeof...(Is)>;
        if (!optimize::cached_hoist(lhs, rhs, s, rewrite::hoisted_dense_v<S>)) return;
        hoisted = true;
        T t(typename T::shape_type{expr::extent_read<Is>(s)...});
        if constexpr (T::format_type::all_dense)
          LOOM_COUNT_WORK_N(writes, t.values().size());  // zeroed
        expr::access<T, Is...> target{&t};
        // its own kernel (rewritten and hoisted in turn)
        assign_checked(target, s, std::false_type{}, opts);
        if constexpr (sizeof...(Is) == 0)  // a scalar: a literal (order-0 operands not streamed)
          run_kernel(out, lhs, rebuild(expr::literal<expr::value_type_t<S>>{t.values()[0]}),
                     accumulate, opts);
        else
          run_kernel(out, lhs, rebuild(expr::access<const T, Is...>{&t}), accumulate, opts);
      }(expr::free_indices_t<S>{});
    });
  }
  (void)out, (void)lhs, (void)rhs, (void)accumulate, (void)opts;
  return hoisted;
}

/// Runs `lhs = rhs` as one fused loop nest, no sum hoisted: the plan and the skip policies
/// chosen, then the plan run (exec/run_plan.hpp). tests/work and benchmarks compare with it.
template <class Options, class Out, class Lhs, class Rhs>
void run_fused(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const Options& opts) {
  with_chosen_plan(lhs, rhs, [&](auto plan) {
    run_plan_with_skips<typename decltype(plan)::type>(out, lhs, rhs, accumulate, opts);
  });
}

/// Runs the checked, rewritten kernel `lhs = rhs` into `out`: a sum hoisted first when cheaper,
/// else fused.
template <class Options, class Out, class Lhs, class Rhs>
void run_kernel(Out& out, const Lhs& lhs, const Rhs& rhs, bool accumulate, const Options& opts) {
  if (!ran_hoisted(out, lhs, rhs, accumulate, opts)) run_fused(out, lhs, rhs, accumulate, opts);
}

/// Runs `run(target, out)` for `lhs = rhs`: straight into the output, or, when an operand reads
/// the output's storage (the same tensor, two views of one buffer, a view of the output's own
/// arrays; format/memory.hpp), into a copy that then replaces the output (moved into an owning
/// tensor, copied back into a view's buffer), so no operand sees a half-written result.
template <class OT, class... Os, class Rhs, class Run>
void run_unaliased(expr::access<OT, Os...>& lhs, const Rhs& rhs, Run&& run) {
  using out_t = std::remove_const_t<OT>;
  if (!aliases_output(lhs.tensor, rhs)) {
    run(lhs, *lhs.tensor);
    return;
  }
  tensor<typename out_t::value_type, typename out_t::format_type> result(*lhs.tensor);
  expr::access<decltype(result), Os...> target{&result};
  run(target, result);
  if constexpr (out_t::owning)
    *lhs.tensor = std::move(result);
  else
    std::copy(result.values().begin(), result.values().end(), lhs.tensor->values().begin());
}

}  // namespace loom::detail

namespace loom::detail {

template <class Options, class OT, class... Os, class R, bool Acc>
void assign_checked(expr::access<OT, Os...>& lhs, const R& rhs_operand,
                    std::bool_constant<Acc> accumulate, const Options& opts);

/// `lhs += rhs` into a sparse tensor: `rhs` assigned to a fresh tensor (the kernel of `=`, so
/// `=` compiles no merge and `+=` no second loop nest), then merged with the stored entries.
/// The output is untouched until the merge.
template <class Options, class OT, class... Os, class R>
void add_into_sparse(expr::access<OT, Os...>& lhs, const R& rhs, const Options& opts) {
  using out_t = std::remove_const_t<OT>;
  out_t fresh(lhs.tensor->shape());
  expr::access<out_t, Os...> target{&fresh};
  assign_checked(target, rhs, std::false_type{}, opts);
  merge_into(*lhs.tensor, fresh);
}

/// Whether `+=` into a tensor of type T runs as `=` then a merge (add_into_sparse): an owning
/// tensor whose entries are appended (written in place, dense and bitmap outputs add in the loop).
template <class T> constexpr bool adds_by_merge() {
  if constexpr (is_auto_tensor_v<T>)
    return false;  // `+=` keeps the format held, then is the held tensor's
  else
    return T::owning && !T::format_type::all_dense && !T::format_type::dense_over_bitmap;
}

/// `lhs = written` (or `+=`) into a loom::auto_tensor: the format chosen from the estimated fill
/// (exec/alternatives.hpp), made unless held, then written as any output. `+=`, and a right-hand
/// side that reads the output, keep the format held.
template <class Options, class OT, class... Os, class W, bool Acc>
void assign_auto(expr::access<OT, Os...>& lhs, const W& written, std::bool_constant<Acc> accumulate,
                 const Options& opts) {
  auto& out = *lhs.tensor;
  auto into = [&](auto kc) {
    auto& t = out.template hold<static_cast<auto_format>(decltype(kc)::value)>();
    expr::access<std::remove_reference_t<decltype(t)>, Os...> target{&t};
    assign_checked(target, written, accumulate, opts);
  };
  bool reads_output = false;
  expr::for_each_access(written, [&](const auto& a, std::size_t) {
    reads_output = reads_output || static_cast<const void*>(a.tensor) == &out;
  });
  if (accumulate || reads_output) {
    out.set_reason(
        std::string(auto_format_name(out.held_format())) + ": kept, " +
        (accumulate ? "+= adds to the format held" : "the right-hand side reads the output"));
    boost::mp11::mp_with_index<4>(static_cast<std::size_t>(out.held_format()), into);
    return;
  }
  const optimize::output_format_choice c = alt::cached_output_format(lhs, written);
  out.set_reason(c.describe());
  boost::mp11::mp_with_index<4>(static_cast<std::size_t>(c.format), into);
}

/// `lhs = rhs` (or `+=`) under `opts`: checks the kernel (compile time), applies the
/// always-profitable rewrites (rewrite/), then runs it as fused loop nests (the plan and the skip
/// policies chosen as the options allow), into a copy when an operand reads the output.
template <class Options, class OT, class... Os, class R, bool Acc>
void assign_checked(expr::access<OT, Os...>& lhs, const R& rhs_operand,
                    std::bool_constant<Acc> accumulate, const Options& opts) {
  static_assert(expr::operand<R>,
                "loom::assign: the right-hand side must be an expression or a scalar");
  const auto written = expr::as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  using Lhs = expr::access<OT, Os...>;
  using out_t = std::remove_const_t<OT>;
  if constexpr (Acc && adds_by_merge<out_t>()) {
    add_into_sparse(lhs, written, opts);
  } else if constexpr (aggr::has_aggregates_v<Written>) {  // max and min computed first
    aggr::kept keep;
    const auto e = aggr::materialize(written, keep, [&](auto& target, const auto& body) {
      assign_checked(target, body, std::false_type{}, opts);
    });
    assign_checked(lhs, e, accumulate, opts);
  } else if constexpr (is_auto_tensor_v<out_t>) {  // the output's format chosen from its fill
    assign_auto(lhs, written, accumulate, opts);
  } else if constexpr (!out_t::owning && !out_t::format_type::all_dense) {
    static_assert(out_t::owning,
                  "loom::assign: a sparse output must be an owning loom::tensor; "
                  "a view over caller buffers cannot grow");
  } else if constexpr (alt::has_alternatives_v<Written>) {  // one format per alternatives, costed
    alt::run_variant(written,
                     opts.alternative ? *opts.alternative : alt::cached_variant(lhs, written),
                     [&](const auto& v) { assign_checked(lhs, v, accumulate, opts); });
  } else if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto rhs = rewrite::for_kernel(written).expr;
    if constexpr (kernel_per_term<Lhs, std::remove_cvref_t<decltype(rhs)>>()) {
      run_unaliased(lhs, rhs, [&](auto& target, auto& out) {
        bool add = accumulate;
        auto one = [&](const auto& term) {
          run_kernel(out, target, term, add, opts);
          add = true;
        };
        for_each_term(rhs, one);
      });
    } else {
      run_unaliased(lhs, rhs, [&](auto& target, auto& out) {
        run_kernel(out, target, rhs, accumulate, opts);
      });
    }
  }
}

/// `lhs = loom::order<...>(e)` under `opts`: e checked and rewritten as above, then run as one
/// loop nest in the order given (operands transposed where they disagree; no candidates, no
/// hoisting).
template <class Options, class OT, class... Os, class Order, class E, bool Acc>
void assign_checked(expr::access<OT, Os...>& lhs, const expr::ordered<Order, E>& fixed,
                    std::bool_constant<Acc> accumulate, const Options& opts) {
  using Lhs = expr::access<OT, Os...>;
  using out_t = std::remove_const_t<OT>;
  static_assert(out_t::owning || out_t::format_type::all_dense,
                "loom::assign: a sparse output must be an owning loom::tensor; a view over "
                "caller buffers cannot grow");
  static_assert(!alt::has_alternatives_v<E>,
                "loom::order<...>: the formats of a loom::alternatives are chosen with the loop "
                "order; under a fixed order, read one of its tensors");
  static_assert(!aggr::has_aggregates_v<E>,
                "loom::order<...>: a max or min aggregate is its own kernel; assign it to a "
                "tensor first");
  if constexpr (Acc && adds_by_merge<out_t>()) {
    add_into_sparse(lhs, fixed, opts);
  } else if constexpr (!plan::assignment_is_valid<Lhs, E>) {
    plan::report_assignment_errors<Lhs, E>();
  } else {
    const auto rhs = rewrite::for_kernel(fixed.expr).expr;
    using Rhs = std::remove_cvref_t<decltype(rhs)>;
    run_unaliased(lhs, rhs, [&](auto& target, auto& out) {
      using T = std::remove_cvref_t<decltype(target)>;
      run_plan_with_skips<plan::order_plan<T, Rhs, -1, Order>>(out, target, rhs, accumulate, opts);
    });
  }
}

}  // namespace loom::detail

namespace loom::expr {

/// `out(i...) = rhs` and `out(i...) += rhs`, with the default options. Found by
/// argument-dependent lookup from `access::operator=`.
template <class OT, class... Os, class R, class Tag>
void evaluate_assignment(access<OT, Os...>& lhs, const R& rhs, Tag) {
  loom::detail::assign_checked(lhs, rhs, std::bool_constant<std::is_same_v<Tag, accumulate_tag>>{},
                               default_options{});
}

}  // namespace loom::expr

namespace loom {

/// `lhs = rhs` under `opts`, e.g.
/// `loom::assign(y(i), sum(j, A(i, j) * x(j)), loom::options<loom::opt::runtime_skips>{})`;
/// `y(i) = e` is `loom::assign(y(i), e)`. With `opt::eliminate`, see loom::decompose.
template <class OT, class... Os, class R, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
void assign(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  detail::assign_checked(lhs, rhs, std::false_type{}, opts);
}

/// `lhs += rhs` under `opts`.
template <class OT, class... Os, class R, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
void accumulate(expr::access<OT, Os...> lhs, const R& rhs, const O& opts = {}) {
  detail::assign_checked(lhs, rhs, std::true_type{}, opts);
}

/// The value of an expression without free indices under `opts`:
/// `double s = loom::eval(sum(i, x(i)));`
template <expr::operand E, options_type O = default_options>
auto eval(const E& e, const O& opts = {}) {
  const auto written = expr::as_expr(e);
  using Written = std::remove_cvref_t<decltype(written)>;
  using V = expr::value_type_t<Written>;
  V value = semiring_traits<V>::zero();  // the kernel writes through a view: no allocation
  view<V, format<>> result({}, {}, std::span<V>(&value, 1));
  expr::access<view<V, format<>>> target{&result};
  if constexpr (detail::aggr::has_aggregates_v<Written>) {
    detail::aggr::kept keep;
    const auto m = detail::aggr::materialize(written, keep, [&](auto& out, const auto& body) {
      detail::assign_checked(out, body, std::false_type{}, opts);
    });
    value = loom::eval(m, opts);
  } else if constexpr (detail::alt::has_alternatives_v<Written>)
    detail::alt::run_variant(
        written,
        opts.alternative ? *opts.alternative : detail::alt::cached_variant(target, written),
        [&](const auto& v) { value = loom::eval(v, opts); });
  else if constexpr (!plan::assignment_is_valid<decltype(target), Written>)
    plan::report_assignment_errors<decltype(target), Written>();
  else
    loom::detail::run_kernel(result, target, rewrite::for_kernel(written).expr, false, opts);
  return value;
}

}  // namespace loom

#endif  // LOOM_EXEC_EVALUATE_HPP
