// Defines hoisting: a sum that is a factor of a product whose other factor iterates indices the
// sum does not depend on would be recomputed inside the fused loop nest for every value of those
// indices; it is computed once instead (materialised by the evaluator). This file finds such sums
// and rebuilds the expression around their replacement (rewrite/); it never runs a kernel.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_HOIST_HPP
#define LOOM_REWRITE_HOIST_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>

#include <tuple>
#include <type_traits>

namespace loom::rewrite {

namespace detail {
template <class E> struct is_sum : std::false_type {};
template <class I, class E> struct is_sum<expr::sum<I, E>> : std::true_type {};
template <class L, class R>
using difference = boost::mp11::mp_set_difference<boost::mp11::mp_unique<L>, R>;
template <class A> struct access_indices;
template <class T, class... Is> struct access_indices<expr::access<T, Is...>> {
  using type = boost::mp11::mp_list<Is...>;
};
template <class A> using access_indices_t = typename access_indices<A>::type;
// the indices some access of E reads (their extents are known from the tensors)
template <class E>
using read_indices = boost::mp11::mp_unique<boost::mp11::mp_apply<
    boost::mp11::mp_append,
    boost::mp11::mp_push_front<boost::mp11::mp_transform<access_indices_t, expr::accesses_t<E>>,
                               boost::mp11::mp_list<>>>>;
template <class L, class R>
using intersection =
    boost::mp11::mp_set_intersection<boost::mp11::mp_unique<L>, boost::mp11::mp_unique<R>>;
}  // namespace detail

/// Whether the sum S, multiplied by Sibling, should be computed once: Sibling iterates an index
/// S does not depend on, the two bind no index name in common (that case is the planner's
/// lifting rule, with its own diagnostic), S reads a tensor (a count sum(i, 1) is a scaling, whose
/// extent comes from the rest of the kernel), every free index of S is read by one of its
/// accesses (not only broadcast), and S has at most two free indices.
template <class S, class Sibling>
inline constexpr bool hoistable_v = [] {
  if constexpr (!detail::is_sum<S>::value) {
    return false;
  } else {
    using extra = detail::difference<expr::all_indices_t<Sibling>, expr::free_indices_t<S>>;
    using shared = detail::intersection<expr::summed_indices_t<S>, expr::summed_indices_t<Sibling>>;
    return !boost::mp11::mp_empty<extra>::value && boost::mp11::mp_empty<shared>::value &&
           !boost::mp11::mp_empty<expr::accesses_t<S>>::value &&  // counts sum(i, 1) are scalings
           boost::mp11::mp_empty<
               detail::difference<expr::free_indices_t<S>, detail::read_indices<S>>>::value &&
           boost::mp11::mp_size<expr::free_indices_t<S>>::value <=
               2;  // materialised as a matrix at most
  }
}();

/// Whether a hoisted S is computed into a dense temporary (a scalar, a vector, or a matrix that
/// is not statically sparse) rather than a sparse one (`dcsr`).
template <class S>
inline constexpr bool hoisted_dense_v = boost::mp11::mp_size<expr::free_indices_t<S>>::value <= 1 ||
                                        expr::sparsity_v<S> == expr::sparsity::dense;

namespace detail {
template <class E> struct has_hoistable : std::false_type {};
template <class L, class R>
struct has_hoistable<expr::mul<L, R>>
    : std::bool_constant<hoistable_v<L, R> || hoistable_v<R, L> || has_hoistable<L>::value ||
                         has_hoistable<R>::value> {};
template <class L, class R>
struct has_hoistable<expr::add<L, R>>
    : std::bool_constant<has_hoistable<L>::value || has_hoistable<R>::value> {};
template <class P, class B>
struct has_hoistable<expr::where<P, B>>
    : std::bool_constant<has_hoistable<P>::value || has_hoistable<B>::value> {};
template <class I, class B> struct has_hoistable<expr::sum<I, B>> : has_hoistable<B> {};
template <class I, class B> struct has_hoistable<expr::expand<I, B>> : has_hoistable<B> {};
template <class F, class... Es>
struct has_hoistable<expr::map<F, Es...>> : std::bool_constant<(has_hoistable<Es>::value || ...)> {
};
}  // namespace detail

/// Whether E holds a sum to hoist.
template <class E> inline constexpr bool has_hoistable_v = detail::has_hoistable<E>::value;

/// Calls `k(s, rebuild)` for the first sum `s` of `e` to hoist (depth first, left to right);
/// `rebuild(x)` is `e` with `s` replaced by `x`. Requires `has_hoistable_v<E>`.
template <class E, class K> constexpr void hoist_first(const E& e, K&& k) {
  if constexpr (requires { []<class L, class R>(const expr::mul<L, R>&) {}(e); }) {
    using L = std::remove_cvref_t<decltype(e.lhs)>;
    using R = std::remove_cvref_t<decltype(e.rhs)>;
    if constexpr (hoistable_v<L, R>) {
      k(e.lhs, [&](const auto& x) {
        return expr::mul<std::remove_cvref_t<decltype(x)>, R>{x, e.rhs};
      });
    } else if constexpr (hoistable_v<R, L>) {
      k(e.rhs, [&](const auto& x) {
        return expr::mul<L, std::remove_cvref_t<decltype(x)>>{e.lhs, x};
      });
    } else if constexpr (has_hoistable_v<L>) {
      hoist_first(e.lhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto l = rebuild(x);
          return expr::mul<decltype(l), R>{l, e.rhs};
        });
      });
    } else {
      hoist_first(e.rhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto r = rebuild(x);
          return expr::mul<L, decltype(r)>{e.lhs, r};
        });
      });
    }
  } else if constexpr (requires { []<class L, class R>(const expr::add<L, R>&) {}(e); }) {
    using L = std::remove_cvref_t<decltype(e.lhs)>;
    using R = std::remove_cvref_t<decltype(e.rhs)>;
    if constexpr (has_hoistable_v<L>) {
      hoist_first(e.lhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto l = rebuild(x);
          return expr::add<decltype(l), R>{l, e.rhs};
        });
      });
    } else {
      hoist_first(e.rhs, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto r = rebuild(x);
          return expr::add<L, decltype(r)>{e.lhs, r};
        });
      });
    }
  } else if constexpr (requires { []<class P, class B>(const expr::where<P, B>&) {}(e); }) {
    using P = std::remove_cvref_t<decltype(e.pred)>;
    using B = std::remove_cvref_t<decltype(e.body)>;
    if constexpr (has_hoistable_v<P>) {
      hoist_first(e.pred, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto p = rebuild(x);
          return expr::where<decltype(p), B>{p, e.body};
        });
      });
    } else {
      hoist_first(e.body, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto b = rebuild(x);
          return expr::where<P, decltype(b)>{e.pred, b};
        });
      });
    }
  } else if constexpr (requires { []<class I, class B>(const expr::sum<I, B>&) {}(e); }) {
    [&]<class I, class B>(const expr::sum<I, B>& n) {
      hoist_first(n.body, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto b = rebuild(x);
          return expr::sum<I, decltype(b)>{b};
        });
      });
    }(e);
  } else if constexpr (requires { []<class I, class B>(const expr::expand<I, B>&) {}(e); }) {
    [&]<class I, class B>(const expr::expand<I, B>& n) {
      hoist_first(n.body, [&](const auto& s, auto rebuild) {
        k(s, [&, rebuild](const auto& x) {
          auto b = rebuild(x);
          return expr::expand<I, decltype(b)>{b};
        });
      });
    }(e);
  } else {  // map: one or two operands
    [&]<class F, class... Es>(const expr::map<F, Es...>& n) {
      if constexpr (sizeof...(Es) == 1) {
        hoist_first(std::get<0>(n.args), [&](const auto& s, auto rebuild) {
          k(s, [&, rebuild](const auto& x) {
            auto a = rebuild(x);
            return expr::map<F, decltype(a)>{n.f, {a}};
          });
        });
      } else {
        using A = std::tuple_element_t<0, std::tuple<Es...>>;
        using B = std::tuple_element_t<1, std::tuple<Es...>>;
        if constexpr (has_hoistable_v<A>) {
          hoist_first(std::get<0>(n.args), [&](const auto& s, auto rebuild) {
            k(s, [&, rebuild](const auto& x) {
              auto a = rebuild(x);
              return expr::map<F, decltype(a), B>{n.f, {a, std::get<1>(n.args)}};
            });
          });
        } else {
          hoist_first(std::get<1>(n.args), [&](const auto& s, auto rebuild) {
            k(s, [&, rebuild](const auto& x) {
              auto b = rebuild(x);
              return expr::map<F, A, decltype(b)>{n.f, {std::get<0>(n.args), b}};
            });
          });
        }
      }
    }(e);
  }
}

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_HOIST_HPP
