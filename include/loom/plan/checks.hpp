// Defines the compile-time checks of an assignment `lhs = rhs`; each failing check names the
// index variable involved (plan/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_CHECKS_HPP
#define LOOM_PLAN_CHECKS_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/bind.hpp>
#include <boost/mp11/set.hpp>

#include <cstddef>
#include <utility>

namespace loom::diag {
/// An index name as a character pack, so that both GCC and Clang print it readably
/// (`name<'j'>`) inside the diagnostics below.
template <char... Cs> struct name {};
namespace detail {
template <class I, class Seq> struct name_of_impl;
template <class I, std::size_t... Ks> struct name_of_impl<I, std::index_sequence<Ks...>> {
  using type = name<I::name[Ks]...>;
};
}  // namespace detail
template <class I>
using name_of = typename detail::name_of_impl<I, std::make_index_sequence<I::name.size()>>::type;

// Undefined templates named as sentences: instantiating one prints the offending index.
// Do not define them.
template <class Index> struct output_index_not_bound_by_any_input;
template <class Index> struct product_of_sums_over_the_same_index_cannot_be_lifted;
template <class Index> struct index_is_free_on_the_right_but_not_on_the_left_sum_over_it;
template <class Index> struct output_index_repeated;
template <class Index> struct index_repeated_within_one_access;
template <class Index> struct index_both_summed_and_free_in_one_scope;
template <class Index> struct index_summed_twice;
template <class Index, class ExtentA, class ExtentB>
struct index_used_with_two_different_static_extents;
}  // namespace loom::diag

namespace loom::plan {

using boost::mp11::mp_list;

namespace detail {
template <class L, class R>
using intersect =
    boost::mp11::mp_copy_if_q<L, boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, R>>;

// first index bound in one operand of a node and free in the other, or void
template <class E> struct scope_clash {
  using type = mp_list<>;
};
template <class L, class R> struct pair_clash {
  using here = boost::mp11::mp_append<
      intersect<boost::mp11::mp_unique<expr::summed_indices_t<L>>, expr::free_indices_t<R>>,
      intersect<expr::free_indices_t<L>, boost::mp11::mp_unique<expr::summed_indices_t<R>>>>;
  using type =
      boost::mp11::mp_append<here, typename scope_clash<L>::type, typename scope_clash<R>::type>;
};
template <class L, class R> struct scope_clash<expr::add<L, R>> : pair_clash<L, R> {};
template <class L, class R> struct scope_clash<expr::mul<L, R>> : pair_clash<L, R> {};
template <class L, class R> struct scope_clash<expr::where<L, R>> : pair_clash<L, R> {};
template <class F, class A, class B> struct scope_clash<expr::map<F, A, B>> : pair_clash<A, B> {};
template <class F, class A> struct scope_clash<expr::map<F, A>> : scope_clash<A> {};
template <class I, class E> struct scope_clash<expr::sum<I, E>> : scope_clash<E> {};
template <class I, class E> struct scope_clash<expr::expand<I, E>> : scope_clash<E> {};

template <class E> struct double_sum {
  using type = mp_list<>;
};
template <class L, class R> struct double_sum<expr::add<L, R>> {
  using type = boost::mp11::mp_append<typename double_sum<L>::type, typename double_sum<R>::type>;
};
template <class L, class R> struct double_sum<expr::mul<L, R>> : double_sum<expr::add<L, R>> {};
template <class L, class R> struct double_sum<expr::where<L, R>> : double_sum<expr::add<L, R>> {};
template <class F, class... Es> struct double_sum<expr::map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename double_sum<Es>::type...>;
};
template <class I, class E> struct double_sum<expr::sum<I, E>> {
  using here = std::conditional_t<boost::mp11::mp_contains<expr::summed_indices_t<E>, I>::value,
                                  mp_list<I>, mp_list<>>;
  using type = boost::mp11::mp_append<here, typename double_sum<E>::type>;
};
template <class I, class E> struct double_sum<expr::expand<I, E>> : double_sum<E> {};

template <class A> struct repeated_in_access {
  using type = mp_list<>;
};
template <class T, class... Is> struct repeated_in_access<expr::access<T, Is...>> {
  using all = mp_list<Is...>;
  template <class I>
  using repeated = boost::mp11::mp_bool<(boost::mp11::mp_count<all, I>::value > 1)>;
  using type = boost::mp11::mp_copy_if<all, repeated>;
};
template <class List> struct repeated_in_list;
template <class... As> struct repeated_in_list<mp_list<As...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename repeated_in_access<As>::type...>;
};

// static extents that disagree: mp_list<I, N1, N2> or empty
template <class Pairs> struct extent_clash {
  template <class P, class Q>
  using clash =
      boost::mp11::mp_bool<std::is_same_v<boost::mp11::mp_first<P>, boost::mp11::mp_first<Q>> &&
                           !std::is_same_v<boost::mp11::mp_second<P>, boost::mp11::mp_second<Q>>>;
  template <class P>
  using clashes_with_any = boost::mp11::mp_any_of_q<Pairs, boost::mp11::mp_bind_front<clash, P>>;
  using bad = boost::mp11::mp_copy_if<Pairs, clashes_with_any>;
};

template <class List, class Default = void>
using first_or =
    boost::mp11::mp_eval_if<boost::mp11::mp_empty<List>, Default, boost::mp11::mp_front, List>;
}  // namespace detail

/// The facts behind every check of `lhs = rhs` (no diagnostics here).
template <class Lhs, class Rhs> struct assignment_facts {
  using out = expr::free_indices_t<Lhs>;
  using out_all = typename detail::repeated_in_access<Lhs>::type;
  using rhs_free = expr::free_indices_t<Rhs>;
  using unbound = boost::mp11::mp_remove_if_q<
      out, boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, rhs_free>>;
  using unsummed =
      boost::mp11::mp_remove_if_q<rhs_free,
                                  boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, out>>;
  using clash = typename detail::scope_clash<Rhs>::type;
  using twice = typename detail::double_sum<Rhs>::type;
  using repeated = typename detail::repeated_in_list<expr::accesses_t<Rhs>>::type;
  using extents = boost::mp11::mp_append<expr::static_extents_t<Rhs>, expr::static_extents_t<Lhs>>;
  using extent_bad = typename detail::extent_clash<extents>::bad;

  static constexpr bool output_indices_are_distinct = boost::mp11::mp_empty<out_all>::value;
  static constexpr bool every_output_index_is_bound = boost::mp11::mp_empty<unbound>::value;
  static constexpr bool every_free_index_is_an_output = boost::mp11::mp_empty<unsummed>::value;
  static constexpr bool no_repeated_access_index = boost::mp11::mp_empty<repeated>::value;
  static constexpr bool scopes_are_clean = boost::mp11::mp_empty<clash>::value;
  static constexpr bool no_index_summed_twice = boost::mp11::mp_empty<twice>::value;
  static constexpr bool static_extents_agree = boost::mp11::mp_empty<extent_bad>::value;
  static constexpr bool valid = output_indices_are_distinct && every_output_index_is_bound &&
                                every_free_index_is_an_output && no_repeated_access_index &&
                                scopes_are_clean && no_index_summed_twice && static_extents_agree;
};

/// Whether `lhs = rhs` may be compiled.
template <class Lhs, class Rhs>
inline constexpr bool assignment_is_valid = assignment_facts<Lhs, Rhs>::valid;

/// Reports the first mistake of `lhs = rhs`: a static_assert with the fix, then an undefined
/// template naming the index. Instantiate only when `assignment_is_valid` is false.
template <class Lhs, class Rhs> void report_assignment_errors() {
  using F = assignment_facts<Lhs, Rhs>;
  if constexpr (!F::output_indices_are_distinct) {
    static_assert(F::output_indices_are_distinct,
                  "loom::assign: an index appears twice on the left-hand side; use distinct "
                  "indices for the output's modes");
    diag::output_index_repeated<diag::name_of<boost::mp11::mp_front<typename F::out_all>>>{};
  } else if constexpr (!F::every_output_index_is_bound) {
    static_assert(F::every_output_index_is_bound,
                  "loom::assign: an output index does not appear on the right-hand side; add it "
                  "to an input access or use loom::expand");
    diag::output_index_not_bound_by_any_input<
        diag::name_of<boost::mp11::mp_front<typename F::unbound>>>{};
  } else if constexpr (!F::every_free_index_is_an_output) {
    static_assert(F::every_free_index_is_an_output,
                  "loom::assign: an index is free on the right-hand side but not on the left; "
                  "sum over it with loom::sum(index, ...) or add it to the output");
    diag::index_is_free_on_the_right_but_not_on_the_left_sum_over_it<
        diag::name_of<boost::mp11::mp_front<typename F::unsummed>>>{};
  } else if constexpr (!F::no_repeated_access_index) {
    static_assert(F::no_repeated_access_index,
                  "loom: an access uses the same index for two modes (a diagonal); this is not "
                  "supported yet");
    diag::index_repeated_within_one_access<
        diag::name_of<boost::mp11::mp_front<typename F::repeated>>>{};
  } else if constexpr (!F::scopes_are_clean) {
    static_assert(F::scopes_are_clean,
                  "loom::sum: an index is summed in one operand and free in the other; rename "
                  "the summation index");
    diag::index_both_summed_and_free_in_one_scope<
        diag::name_of<boost::mp11::mp_front<typename F::clash>>>{};
  } else if constexpr (!F::no_index_summed_twice) {
    static_assert(F::no_index_summed_twice,
                  "loom::sum: an index is summed inside a sum over the same index; rename one");
    diag::index_summed_twice<diag::name_of<boost::mp11::mp_front<typename F::twice>>>{};
  } else if constexpr (!F::static_extents_agree) {
    static_assert(F::static_extents_agree,
                  "loom: an index is used with two different static extents; make the fixed "
                  "extents of the dense levels agree");
    using extents = typename F::extents;
    using first = boost::mp11::mp_front<typename F::extent_bad>;
    using other = boost::mp11::mp_front<boost::mp11::mp_copy_if_q<
        extents, boost::mp11::mp_bind_front<detail::extent_clash<extents>::template clash, first>>>;
    diag::index_used_with_two_different_static_extents<diag::name_of<boost::mp11::mp_first<first>>,
                                                       boost::mp11::mp_second<first>,
                                                       boost::mp11::mp_second<other>>{};
  }
}

}  // namespace loom::plan

#endif  // LOOM_PLAN_CHECKS_HPP
