// Defines the driver (exec/): `out(i...) = e`, `out(i...) += e`, loom::assign, loom::accumulate
// and loom::eval under a loom::options. Checks the kernel, turns the forms that are several
// kernels (a sparse `+=`, aggregates, alternatives, automatic outputs, a sum of sums) into
// single kernels, rewrites each, then decides and runs it (exec/decision.hpp).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_EVALUATE_HPP
#define LOOM_EXEC_EVALUATE_HPP

#include <loom/exec/aggregate.hpp>
#include <loom/exec/alternatives.hpp>
#include <loom/exec/decision.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/write_output.hpp>
#include <loom/expr/access.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/auto_tensor.hpp>
#include <loom/format/memory.hpp>
#include <loom/format/tensor.hpp>
#include <loom/plan/checks.hpp>
#include <loom/rewrite/for_evaluation.hpp>

#include <boost/mp11/algorithm.hpp>

#include <span>
#include <string>
#include <type_traits>

namespace loom::detail {

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

/// f(term, std::bool_constant<Acc>) for each term of an add tree, left to right: the first with
/// `First`, the others with true (each adds to what the terms before it wrote).
template <bool First, class E, class F> void for_each_term(const E& e, F& f) {
  if constexpr (is_add_node<E>) {
    for_each_term<First>(e.lhs, f);
    for_each_term<true>(e.rhs, f);
  } else {
    f(e, std::bool_constant<First>{});
  }
}

/// Runs `run(target, true)` into a copy of the output, which then replaces it (moved into an
/// owning tensor, copied back into a view's buffer): the path of an assignment where an operand
/// reads the output's storage (the same tensor, two views of one buffer, a view of the output's
/// own arrays; format/memory.hpp), so no operand sees a half-written result.
template <class OT, class... Os, class Run>
void run_into_copy(expr::access<OT, Os...>& lhs, Run&& run) {
  using out_t = std::remove_const_t<OT>;
  tensor<typename out_t::value_type, typename out_t::format_type> result(*lhs.tensor);
  expr::access<decltype(result), Os...> target{&result};
  run(target, true);
  if constexpr (out_t::owning)
    *lhs.tensor = std::move(result);
  else
    std::copy(result.values().begin(), result.values().end(), lhs.tensor->values().begin());
}

/// `run(lhs, false)`, or run_into_copy when an operand reads the output's storage.
template <class OT, class... Os, class Rhs, class Run>
void run_unaliased(expr::access<OT, Os...>& lhs, const Rhs& rhs, Run&& run) {
  if (aliases_output(lhs.tensor, rhs))
    run_into_copy(lhs, run);
  else
    run(lhs, false);
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
    auto run = [&](auto& target, bool copied) {
      if constexpr (kernel_per_term<Lhs, std::remove_cvref_t<decltype(rhs)>>()) {
        auto one = [&](const auto& term, auto add) { run_kernel(target, term, add, opts, copied); };
        for_each_term<Acc>(rhs, one);
      } else {
        run_kernel(target, rhs, accumulate, opts, copied);
      }
    };
    if (aliases_output(lhs.tensor, rhs))
      run_into_copy(lhs, run);
    else
      run(lhs, false);
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
    run_unaliased(lhs, rhs, [&](auto& target, bool copied) {
      run_kernel<Order>(target, rhs, accumulate, opts, copied);
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

/// Every choice loom makes for `lhs = rhs` under `opts` (the right-hand side rewritten; a sum
/// hoisted or not; the candidate plan and every candidate's estimated cost; the skip policies),
/// as a value that loom::run executes and loom::explain describes. For one kernel: an aggregate,
/// a loom::alternatives operand, an automatic output, `+=` into a sparse output and a sum of sums
/// into a dense one are several kernels, which loom::assign and loom::explain_analyze run.
template <class OT, class... Os, class R, options_type O = default_options>
  requires(!std::remove_cvref_t<O>::eliminate)
auto decide(expr::access<OT, Os...> lhs, const R& rhs_operand, const O& opts = {}) {
  static_assert(expr::operand<R>,
                "loom::decide: the right-hand side must be an expression or a scalar");
  const auto written = expr::as_expr(rhs_operand);
  using Written = std::remove_cvref_t<decltype(written)>;
  using Lhs = expr::access<OT, Os...>;
  using out_t = std::remove_const_t<OT>;
  static_assert(!detail::aggr::has_aggregates_v<Written> &&
                    !detail::alt::has_alternatives_v<Written> && !is_auto_tensor_v<out_t>,
                "loom::decide: this assignment runs several kernels (a max/min aggregate, a "
                "loom::alternatives operand or an auto_tensor output); use loom::assign, or "
                "loom::explain_analyze to see each kernel's decision");
  static_assert(out_t::owning || out_t::format_type::all_dense,
                "loom::decide: a sparse output must be an owning loom::tensor; a view over "
                "caller buffers cannot grow");
  if constexpr (!plan::assignment_is_valid<Lhs, Written>) {
    plan::report_assignment_errors<Lhs, Written>();
  } else {
    const auto kernel = rewrite::for_kernel(written).expr;
    static_assert(!detail::kernel_per_term<Lhs, std::remove_cvref_t<decltype(kernel)>>(),
                  "loom::decide: a sum of sums into a dense output runs one kernel per term; "
                  "decide each term, or use loom::assign");
    return detail::decide(lhs, kernel, std::false_type{}, opts);
  }
}

/// Runs a decision made by loom::decide: the same plan, skip policies and hoisting, on the data
/// the operands hold now (into a copy first when an operand reads the output).
template <class Lhs, class Rhs, class Options, bool Acc, class Order>
void run(const kernel_decision<Lhs, Rhs, Options, Acc, Order>& d) {
  if (detail::aliases_output(d.lhs.tensor, d.rhs)) {  // decided again for the copy's type
    Lhs lhs = d.lhs;
    detail::run_unaliased(lhs, d.rhs, [&](auto& target, bool copied) {
      detail::run_kernel<Order>(target, d.rhs, std::bool_constant<Acc>{}, d.options, copied);
    });
  } else if (detail::plan_log_active()) {
    detail::run_reported(d, 0.0);
  } else {
    detail::run_decided(d);
  }
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
    loom::detail::run_kernel(target, rewrite::for_kernel(written).expr, std::false_type{}, opts);
  return value;
}

}  // namespace loom

#endif  // LOOM_EXEC_EVALUATE_HPP
