// Defines compile-time traits of expressions: free and summed indices, accesses, value type,
// static sparsity class, static extents (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_TRAITS_HPP
#define LOOM_EXPR_TRAITS_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>
#include <boost/mp11/set.hpp>

#include <cstddef>
#include <type_traits>

namespace loom::expr {

using boost::mp11::mp_list;

// is_node<E>
template <class E> struct is_node : std::false_type {};
template <class T, class... Is> struct is_node<access<T, Is...>> : std::true_type {};
template <class T> struct is_node<literal<T>> : std::true_type {};
template <class L, class R> struct is_node<add<L, R>> : std::true_type {};
template <class L, class R> struct is_node<mul<L, R>> : std::true_type {};
template <class I, class E> struct is_node<sum<I, E>> : std::true_type {};
template <class F, class... Es> struct is_node<map<F, Es...>> : std::true_type {};
template <class P, class E> struct is_node<where<P, E>> : std::true_type {};
template <class I, class E> struct is_node<expand<I, E>> : std::true_type {};
template <class Op, class I, class E> struct is_node<aggregate<Op, I, E>> : std::true_type {};

}  // namespace loom::expr

namespace loom {

/// Satisfied by the expression node types of index notation.
template <class E>
concept expression = expr::is_node<std::remove_cvref_t<E>>::value;

}  // namespace loom

namespace loom::expr {

namespace detail {
template <class... Ls>
using set_union = boost::mp11::mp_unique<boost::mp11::mp_append<mp_list<>, Ls...>>;

template <class E> struct free_indices;
template <class T, class... Is> struct free_indices<access<T, Is...>> {
  using type = boost::mp11::mp_unique<mp_list<Is...>>;
};
template <class T> struct free_indices<literal<T>> {
  using type = mp_list<>;
};
template <class L, class R> struct free_indices<add<L, R>> {
  using type = set_union<typename free_indices<L>::type, typename free_indices<R>::type>;
};
template <class L, class R> struct free_indices<mul<L, R>> {
  using type = set_union<typename free_indices<L>::type, typename free_indices<R>::type>;
};
template <class P, class E> struct free_indices<where<P, E>> {
  using type = set_union<typename free_indices<P>::type, typename free_indices<E>::type>;
};
template <class F, class... Es> struct free_indices<map<F, Es...>> {
  using type = set_union<typename free_indices<Es>::type...>;
};
template <class I, class E> struct free_indices<sum<I, E>> {
  using type = boost::mp11::mp_remove<typename free_indices<E>::type, I>;
};
template <class I, class E> struct free_indices<expand<I, E>> {
  using type = set_union<typename free_indices<E>::type, mp_list<I>>;
};
template <class Op, class I, class E> struct free_indices<aggregate<Op, I, E>> {
  using type = boost::mp11::mp_remove<typename free_indices<E>::type, I>;
};

// Every index bound by a sum inside E (with repetitions: a repeated entry is a reuse).
template <class E> struct summed_indices {
  using type = mp_list<>;
};
template <class L, class R> struct summed_indices<add<L, R>> {
  using type =
      boost::mp11::mp_append<typename summed_indices<L>::type, typename summed_indices<R>::type>;
};
template <class L, class R> struct summed_indices<mul<L, R>> {
  using type =
      boost::mp11::mp_append<typename summed_indices<L>::type, typename summed_indices<R>::type>;
};
template <class P, class E> struct summed_indices<where<P, E>> {
  using type =
      boost::mp11::mp_append<typename summed_indices<P>::type, typename summed_indices<E>::type>;
};
template <class F, class... Es> struct summed_indices<map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename summed_indices<Es>::type...>;
};
template <class I, class E> struct summed_indices<sum<I, E>> {
  using type = boost::mp11::mp_push_front<typename summed_indices<E>::type, I>;
};
template <class I, class E> struct summed_indices<expand<I, E>> {
  using type = typename summed_indices<E>::type;
};
template <class Op, class I, class E> struct summed_indices<aggregate<Op, I, E>> {
  using type = boost::mp11::mp_push_front<typename summed_indices<E>::type, I>;
};

// Every access node in E, depth first, left to right.
template <class E> struct accesses {
  using type = mp_list<>;
};
template <class T, class... Is> struct accesses<access<T, Is...>> {
  using type = mp_list<access<T, Is...>>;
};
template <class L, class R> struct accesses<add<L, R>> {
  using type = boost::mp11::mp_append<typename accesses<L>::type, typename accesses<R>::type>;
};
template <class L, class R> struct accesses<mul<L, R>> {
  using type = boost::mp11::mp_append<typename accesses<L>::type, typename accesses<R>::type>;
};
template <class P, class E> struct accesses<where<P, E>> {
  using type = boost::mp11::mp_append<typename accesses<P>::type, typename accesses<E>::type>;
};
template <class F, class... Es> struct accesses<map<F, Es...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename accesses<Es>::type...>;
};
template <class I, class E> struct accesses<sum<I, E>> {
  using type = typename accesses<E>::type;
};
template <class I, class E> struct accesses<expand<I, E>> {
  using type = typename accesses<E>::type;
};
template <class Op, class I, class E> struct accesses<aggregate<Op, I, E>> {
  using type = typename accesses<E>::type;
};
}  // namespace detail

/// The indices free in E (an MP11 list, in order of first appearance).
template <class E>
using free_indices_t = typename detail::free_indices<std::remove_cvref_t<E>>::type;
/// The indices bound by `sum` inside E, one entry per binding.
template <class E>
using summed_indices_t = typename detail::summed_indices<std::remove_cvref_t<E>>::type;
/// The access nodes of E, depth first.
template <class E> using accesses_t = typename detail::accesses<std::remove_cvref_t<E>>::type;
/// Every index of E, free or bound, each once.
template <class E>
using all_indices_t =
    boost::mp11::mp_unique<boost::mp11::mp_append<free_indices_t<E>, summed_indices_t<E>>>;

// value_type_t<E>
namespace detail {
template <class E> struct value_type;
template <class T, class... Is> struct value_type<access<T, Is...>> {
  using type = typename std::remove_const_t<T>::value_type;
};
template <class T> struct value_type<literal<T>> {
  using type = T;
};
template <class A, class B> struct combine_value {
  using type = typename std::conditional_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>,
                                           std::common_type<A, B>, std::type_identity<A>>::type;
};
template <class A, class B> struct binary_value {
  using type =
      typename combine_value<typename value_type<A>::type, typename value_type<B>::type>::type;
};
template <class T, class B>  // a literal adopts the other side's type
struct binary_value<literal<T>, B> {
  using type = typename value_type<B>::type;
};
template <class A, class T> struct binary_value<A, literal<T>> {
  using type = typename value_type<A>::type;
};
template <class T, class U> struct binary_value<literal<T>, literal<U>> {
  using type = typename combine_value<T, U>::type;
};
template <class L, class R> struct value_type<add<L, R>> : binary_value<L, R> {};
template <class L, class R> struct value_type<mul<L, R>> : binary_value<L, R> {};
template <class P, class E> struct value_type<where<P, E>> : value_type<E> {};
template <class I, class E> struct value_type<sum<I, E>> : value_type<E> {};
template <class I, class E> struct value_type<expand<I, E>> : value_type<E> {};
template <class Op, class I, class E> struct value_type<aggregate<Op, I, E>> : value_type<E> {};
template <class F, class E> struct value_type<map<F, E>> : value_type<E> {};
template <class F, class A, class B> struct value_type<map<F, A, B>> : binary_value<A, B> {};
}  // namespace detail

/// The value type (semiring) of E.
template <class E> using value_type_t = typename detail::value_type<std::remove_cvref_t<E>>::type;

/// Static sparsity class of a subexpression.
enum class sparsity { dense, sparse };

namespace detail {
template <class E> struct sparsity_of;
template <class T, class... Is> struct sparsity_of<access<T, Is...>> {
  static constexpr sparsity value =
      std::remove_const_t<T>::format_type::all_dense ? sparsity::dense : sparsity::sparse;
};
template <class T> struct sparsity_of<literal<T>> {
  static constexpr sparsity value = sparsity::dense;
};
template <class L, class R> struct sparsity_of<add<L, R>> {
  static constexpr sparsity value =
      (sparsity_of<L>::value == sparsity::dense || sparsity_of<R>::value == sparsity::dense)
          ? sparsity::dense
          : sparsity::sparse;
};
template <class L, class R> struct sparsity_of<mul<L, R>> {
  static constexpr sparsity value =
      (sparsity_of<L>::value == sparsity::sparse || sparsity_of<R>::value == sparsity::sparse)
          ? sparsity::sparse
          : sparsity::dense;
};
template <class P, class E> struct sparsity_of<where<P, E>> : sparsity_of<mul<P, E>> {};
template <class I, class E> struct sparsity_of<sum<I, E>> : sparsity_of<E> {};
template <class I, class E> struct sparsity_of<expand<I, E>> : sparsity_of<E> {};
template <class Op, class I, class E> struct sparsity_of<aggregate<Op, I, E>> {
  static constexpr sparsity value = sparsity::dense;  // computed first, into a dense tensor
};
template <class F, class... Es> struct sparsity_of<map<F, Es...>> {
  static constexpr sparsity value =
      (fn::is_zero_preserving_v<F> && ((sparsity_of<Es>::value == sparsity::sparse) && ...))
          ? sparsity::sparse
          : sparsity::dense;
};
}  // namespace detail

/// The static sparsity class of E: dense (may be non-zero everywhere) or sparse.
template <class E>
inline constexpr sparsity sparsity_v = detail::sparsity_of<std::remove_cvref_t<E>>::value;

/// True when E is zero wherever all its accessed tensors are zero (E(0) = 0): products,
/// sums and zero-preserving maps of accesses, without additive literals.
template <class E> inline constexpr bool annihilates_v = sparsity_v<E> == sparsity::sparse;

// Static extents: mp_list of mp_list<Index, mp_size_t<N>> for dense levels with a fixed extent.
namespace detail {
template <class Tensor, class IndexList, class Levels> struct access_static_extents;
template <class Tensor, class... Is, std::size_t... Ks>
struct access_static_extents<Tensor, mp_list<Is...>, std::index_sequence<Ks...>> {
  using format = typename std::remove_const_t<Tensor>::format_type;
  template <std::size_t K> using level = boost::mp11::mp_at_c<typename format::levels, K>;
  template <std::size_t K>
  using entry =
      std::conditional_t<level<K>::static_extent == dynamic_extent, mp_list<>,
                         mp_list<mp_list<boost::mp11::mp_at_c<mp_list<Is...>, format::modes[K]>,
                                         boost::mp11::mp_size_t<level<K>::static_extent>>>>;
  using type = boost::mp11::mp_append<mp_list<>, entry<Ks>...>;
};
template <class A> struct static_extents_of_access;
template <class T, class... Is> struct static_extents_of_access<access<T, Is...>> {
  using type = typename access_static_extents<T, mp_list<Is...>,
                                              std::make_index_sequence<sizeof...(Is)>>::type;
};
template <class List> struct static_extents_of_list;
template <class... As> struct static_extents_of_list<mp_list<As...>> {
  using type = boost::mp11::mp_append<mp_list<>, typename static_extents_of_access<As>::type...>;
};
}  // namespace detail

/// (index, extent) pairs contributed by fixed-extent dense levels in E.
template <class E>
using static_extents_t = typename detail::static_extents_of_list<accesses_t<E>>::type;

}  // namespace loom::expr

#endif  // LOOM_EXPR_TRAITS_HPP
