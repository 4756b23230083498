// Defines loom::la::to_index_notation: an la expression as an index-notation expression over
// fresh index variables (la/). Every child gets its own range of fresh names, so a duplicated
// subexpression (pow2) binds distinct indices and the rewrites never capture a name.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_TRANSLATE_HPP
#define LOOM_LA_TRANSLATE_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/core/index.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/la/nodes.hpp>

#include <boost/mp11/list.hpp>

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace loom::la {

namespace detail {
template <std::size_t N> constexpr fixed_string<6> fresh_text() {
  static_assert(N < 1000, "loom::la: more than 1000 index variables in one expression");
  const char text[6] = {'l',
                        'a',
                        static_cast<char>('0' + N / 100),
                        static_cast<char>('0' + N / 10 % 10),
                        static_cast<char>('0' + N % 10),
                        '\0'};
  return fixed_string<6>(text);
}
}  // namespace detail

/// The N-th fresh index variable of a translation ("la000", "la001", ...; they sort by N).
template <std::size_t N> using fresh = loom::index<detail::fresh_text<N>()>;
/// The free indices of a translated matrix (row, column) or vector (row).
using row = loom::index<"row">;
using col = loom::index<"col">;

/// x / y element-wise: f(0, 0) is not 0, so the evaluator treats the result as dense.
struct divides_fn {
  static constexpr bool zero_preserving = false;
  static constexpr bool linear = false;
  static constexpr std::string_view symbol = "/";
  template <class T> constexpr T operator()(T x, T y) const { return x / y; }
};

// fresh_count<E>: how many fresh indices translating E uses
template <class E> struct fresh_count : std::integral_constant<std::size_t, 0> {};
template <class A, class B>
struct fresh_count<product<A, B>>
    : std::integral_constant<std::size_t, 1 + fresh_count<A>::value + fresh_count<B>::value> {};
template <class A> struct fresh_count<transposed<A>> : fresh_count<A> {};
template <class Op, class A, class B>
struct fresh_count<elementwise<Op, A, B>>
    : std::integral_constant<std::size_t, fresh_count<A>::value + fresh_count<B>::value> {};
template <class A>
struct fresh_count<total<A>>
    : std::integral_constant<std::size_t, A::rank + fresh_count<A>::value> {};
template <class A>
struct fresh_count<row_sums_of<A>>
    : std::integral_constant<std::size_t, 1 + fresh_count<A>::value> {};
template <class A>
struct fresh_count<col_sums_of<A>>
    : std::integral_constant<std::size_t, 1 + fresh_count<A>::value> {};
template <class A>
struct fresh_count<trace_of<A>> : std::integral_constant<std::size_t, 1 + fresh_count<A>::value> {};
template <class A> struct fresh_count<diag_of<A>> : fresh_count<A> {};
template <class F, class A> struct fresh_count<apply<F, A>> : fresh_count<A> {};
template <class C, class A>
struct fresh_count<selected<C, A>>
    : std::integral_constant<std::size_t, fresh_count<C>::value + fresh_count<A>::value> {};

namespace detail {

using boost::mp11::mp_list;

template <class X> constexpr auto negate(const X& x) {
  return expr::map<fn::negate, X>{fn::negate{}, std::tuple<X>{x}};
}

// translate<N>(mp_list<Is...>{}, e): e with its free dimensions named Is..., fresh names from N on.
// Static members of one struct, so that every overload sees the others.
struct tr {
  template <std::size_t N, class... Is, class T>
  static constexpr auto translate(mp_list<Is...>, const matrix<T>& m) {
    static_assert(sizeof...(Is) == T::order,
                  "loom internal error: la rank mismatch; please report");
    if constexpr (sizeof...(Is) == 2) {
      static_assert(!std::is_same_v<boost::mp11::mp_first<boost::mp11::mp_list<Is...>>,
                                    boost::mp11::mp_second<boost::mp11::mp_list<Is...>>>,
                    "loom::la: trace/diag of a stored matrix reads A(i, i), which loom does not "
                    "support yet; use trace/diag of a product (e.g. trace(transpose(U) * X * V))");
    }
    return expr::access<const T, Is...>{m.tensor};
  }
  template <std::size_t N, class... Is, class V>
  static constexpr auto translate(mp_list<Is...>, const scalar<V>& s) {
    return expr::literal<V>{s.value};
  }
  template <std::size_t N, class I, class J, class A>
  static constexpr auto translate(mp_list<I, J>, const transposed<A>& t) {
    return translate<N>(mp_list<J, I>{}, t.a);
  }
  template <std::size_t N, class I, class J, class A, class B>
  static constexpr auto translate(mp_list<I, J>, const product<A, B>& p) {  // matrix × matrix
    using K = fresh<N>;
    auto a = translate<N + 1>(mp_list<I, K>{}, p.a);
    auto b = translate<N + 1 + fresh_count<A>::value>(mp_list<K, J>{}, p.b);
    return expr::sum<K, expr::mul<decltype(a), decltype(b)>>{{a, b}};
  }
  template <std::size_t N, class I, class A, class B>
  static constexpr auto translate(mp_list<I>, const product<A, B>& p) {  // matrix × vector
    using K = fresh<N>;
    auto a = translate<N + 1>(mp_list<I, K>{}, p.a);
    auto b = translate<N + 1 + fresh_count<A>::value>(mp_list<K>{}, p.b);
    return expr::sum<K, expr::mul<decltype(a), decltype(b)>>{{a, b}};
  }

  // An operand of an element-wise operation under the indices Is... of the result: a scalar
  // takes none, a vector beside a matrix takes the row only.
  template <std::size_t N, class... Is, class X>
  static constexpr auto operand(mp_list<Is...>, const X& x) {
    if constexpr (X::rank == 0) {
      return translate<N>(mp_list<>{}, x);
    } else if constexpr (X::rank == 1 && sizeof...(Is) == 2) {
      return translate<N>(mp_list<boost::mp11::mp_first<mp_list<Is...>>>{}, x);
    } else {
      return translate<N>(mp_list<Is...>{}, x);
    }
  }
  template <std::size_t N, class... Is, class Op, class A, class B>
  static constexpr auto translate(mp_list<Is...>, const elementwise<Op, A, B>& e) {
    auto a = operand<N>(mp_list<Is...>{}, e.a);
    auto b = operand<N + fresh_count<A>::value>(mp_list<Is...>{}, e.b);
    using L = decltype(a);
    using R = decltype(b);
    if constexpr (std::is_same_v<Op, plus>) {
      return expr::add<L, R>{a, b};
    } else if constexpr (std::is_same_v<Op, minus>) {
      auto nb = negate(b);
      return expr::add<L, decltype(nb)>{a, nb};
    } else if constexpr (std::is_same_v<Op, times>) {
      return expr::mul<L, R>{a, b};
    } else if constexpr (std::is_same_v<Op, divides>) {
      return expr::map<divides_fn, L, R>{divides_fn{}, {a, b}};
    } else {  // a binary function object of loom::fn
      return expr::map<Op, L, R>{Op{}, {a, b}};
    }
  }
  template <std::size_t N, class... Is, class F, class A>
  static constexpr auto translate(mp_list<Is...>, const apply<F, A>& e) {
    auto a = translate<N>(mp_list<Is...>{}, e.a);
    return expr::map<F, decltype(a)>{e.f, std::tuple<decltype(a)>{a}};
  }
  template <std::size_t N, class... Is, class C, class A>
  static constexpr auto translate(mp_list<Is...>, const selected<C, A>& e) {
    auto c = operand<N>(mp_list<Is...>{}, e.c);
    auto a = operand<N + fresh_count<C>::value>(mp_list<Is...>{}, e.a);
    return expr::where<decltype(c), decltype(a)>{c, a};
  }
  template <std::size_t N, class A> static constexpr auto translate(mp_list<>, const total<A>& t) {
    if constexpr (A::rank == 2) {
      auto body = translate<N + 2>(mp_list<fresh<N>, fresh<N + 1>>{}, t.a);
      return expr::sum<fresh<N>, expr::sum<fresh<N + 1>, decltype(body)>>{{body}};
    } else if constexpr (A::rank == 1) {
      auto body = translate<N + 1>(mp_list<fresh<N>>{}, t.a);
      return expr::sum<fresh<N>, decltype(body)>{body};
    } else {
      return translate<N>(mp_list<>{}, t.a);
    }
  }
  template <std::size_t N, class I, class A>
  static constexpr auto translate(mp_list<I>, const row_sums_of<A>& r) {
    if constexpr (A::rank == 1) {
      return translate<N + 1>(mp_list<I>{}, r.a);
    } else {
      auto body = translate<N + 1>(mp_list<I, fresh<N>>{}, r.a);
      return expr::sum<fresh<N>, decltype(body)>{body};
    }
  }
  template <std::size_t N, class J, class A>
  static constexpr auto translate(mp_list<J>, const col_sums_of<A>& c) {
    auto body = translate<N + 1>(mp_list<fresh<N>, J>{}, c.a);
    return expr::sum<fresh<N>, decltype(body)>{body};
  }
  template <std::size_t N, class A>
  static constexpr auto translate(mp_list<>, const trace_of<A>& t) {
    auto body = translate<N + 1>(mp_list<fresh<N>, fresh<N>>{}, t.a);
    return expr::sum<fresh<N>, decltype(body)>{body};
  }
  template <std::size_t N, class I, class A>
  static constexpr auto translate(mp_list<I>, const diag_of<A>& d) {
    return translate<N>(mp_list<I, I>{}, d.a);
  }
};  // struct tr

template <std::size_t Rank> struct free_of;
template <> struct free_of<0> {
  template <class E> static constexpr auto run(const E& e) {
    return tr::translate<0>(mp_list<>{}, e);
  }
};
template <> struct free_of<1> {
  template <class E> static constexpr auto run(const E& e) {
    return tr::translate<0>(mp_list<row>{}, e);
  }
};
template <> struct free_of<2> {
  template <class E> static constexpr auto run(const E& e) {
    return tr::translate<0>(mp_list<row, col>{}, e);
  }
};
}  // namespace detail

/// `e` in index notation: free indices `la::row` (and `la::col`), bound ones fresh.
template <expression E> constexpr auto to_index_notation(const E& e) {
  return detail::free_of<E::rank>::run(e);
}

}  // namespace loom::la

#endif  // LOOM_LA_TRANSLATE_HPP
