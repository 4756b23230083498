// Defines loom::mapping::assign_distributed and explain_distributed: the distribution of a program
// over a sum of mappings, STOREL's `sum(<k,v> in e1 + e2) e3 = sum(<k,v> in e1) e3 +
// sum(<k,v> in e2) e3`: one fused kernel per term, each planned for its own term (exec/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_DISTRIBUTE_HPP
#define LOOM_EXEC_DISTRIBUTE_HPP

#include <loom/core/error.hpp>
#include <loom/core/unpack.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/explain.hpp>
#include <loom/format/mapping/sum.hpp>
#include <loom/plan/order.hpp>
#include <loom/rewrite/for_evaluation.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace loom::mapping {

namespace detail {
/// How often a program reads S (the distribution needs exactly once: linear in S).
template <class Term> struct counting_term {
  Term t;
  int* reads;
  template <index_variable... Is> auto operator()(Is... is) const {
    ++*reads;
    return t(is...);
  }
};

template <class A> struct is_mapped_access : std::false_type {};
template <class T, class... Is>
struct is_mapped_access<expr::access<T, Is...>>
    : std::bool_constant<mapped_format<typename std::remove_const_t<T>::format_type>> {};

/// Whether some candidate plan of `out = e` transposes a mapped operand: a guarded mapping
/// cannot hold its transpose in its own levels, so such a term is materialised instead.
template <class Out, class E> constexpr bool transposes_a_mapping() {
  using Rhs = std::remove_cvref_t<
      decltype(rewrite::for_kernel(expr::as_expr(std::declval<const E&>())).expr)>;
  bool any = false;
  boost::mp11::mp_for_each<boost::mp11::mp_iota_c<plan::plan_candidates<Out, Rhs>::count>>(
      [&](auto c) {
        using P = plan::order_plan<Out, Rhs, static_cast<int>(decltype(c)::value)>;
        using accesses = typename P::accesses;
        std::size_t k = 0;
        boost::mp11::mp_for_each<boost::mp11::mp_transform<boost::mp11::mp_identity, accesses>>(
            [&](auto a) {
              if (P::chosen.transposed[k++] && is_mapped_access<typename decltype(a)::type>::value)
                any = true;
            });
      });
  return any;
}

/// Runs (or explains, `Explain`) `out op= program(t)` for one term t.
template <bool Explain, class Out, class Program, class Term>
std::string run_term(Out out, Program& program, const Term& t, bool first) {
  using E = decltype(program(t));
  if constexpr (transposes_a_mapping<Out, E>()) {
    const auto m = sum_of<Term, Term>::materialize_one(t);
    if constexpr (Explain) {
      return "the loop order needs " + t.text() +
             " transposed, which its mapping cannot store: the "
             "term is materialised (compressed levels) first\n" +
             loom::explain(out, program(as_is(m)));
    } else {
      if (first)
        out = program(as_is(m));
      else
        out += program(as_is(m));
      return {};
    }
  } else if constexpr (Explain) {
    return loom::explain(out, program(t));
  } else {
    if (first)
      out = program(t);
    else
      out += program(t);
    return {};
  }
}
}  // namespace detail

/// `out = program(S)` distributed over the sum (STOREL's rule `sum(<k,v> in e1 + e2) e3 =
/// sum(<k,v> in e1) e3 + sum(<k,v> in e2) e3`): `out = program(T_0)`, then `out += program(T_k)`
/// for each further term, every kernel planned and fused for its own term (a transposed term
/// gets the loop order of its storage, so nothing is transposed). `program` is called with an
/// object whose `(i, j, ...)` is the term's access; it must read S exactly once and be linear
/// in it (products, sums and additions around S). A program that reads S more than once runs
/// as one kernel over `S(i, j) = T_0(i, j) + ...` instead. Returns the number of kernels run.
template <class Out, class Program, class... Terms>
int assign_distributed(Out out, Program&& program, const sum_of<Terms...>& s) {
  int reads = 0;
  (void)program(detail::counting_term<std::tuple_element_t<0, std::tuple<Terms...>>>{
      std::get<0>(s.terms), &reads});
  if (reads != 1) {
    const auto m = s.materialize();
    out = program(m);
    return 1;
  }
  int kernels = 0;
  loom::detail::unpack(
      [&](const auto&... t) {
        ([&] { detail::run_term<false>(out, program, t, kernels++ == 0); }(), ...);
      },
      s.terms);
  return kernels;
}

/// What `assign_distributed` does: the rule, then the plan of each term's kernel.
template <class Out, class Program, class... Terms>
std::string explain_distributed(Out out, Program&& program, const sum_of<Terms...>& s) {
  int reads = 0;
  (void)program(detail::counting_term<std::tuple_element_t<0, std::tuple<Terms...>>>{
      std::get<0>(s.terms), &reads});
  std::string text = "sum of mappings: " + s.text() + "\n";
  if (reads != 1)
    return text + "not distributed: the program reads " + (s.name.empty() ? "S" : s.name) + " " +
           std::to_string(reads) +
           " times (the rule needs it once, linearly); the sum is "
           "materialised (compressed levels) and read by one kernel\n" +
           loom::explain(out, program(s.materialize()));
  text += "distributed (STOREL: sum over e1 + e2 = sum over e1 + sum over e2): " +
          std::to_string(sizeof...(Terms)) + " kernels, each fused with its own term\n";
  int k = 0;
  loom::detail::unpack(
      [&](const auto&... t) {
        ((text += "kernel " + std::to_string(k) + (k == 0 ? " (=)" : " (+=)") + " over " +
                  t.text() + ":\n" + detail::run_term<true>(out, program, t, k == 0),
          ++k),
         ...);
      },
      s.terms);
  return text;
}

}  // namespace loom::mapping

#endif  // LOOM_EXEC_DISTRIBUTE_HPP
