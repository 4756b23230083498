// Defines the index arithmetic of storage mappings: index values, loop positions, constants,
// array reads, + - * / min max interleave, and guards (format/mapping/). Nodes are empty types;
// `eval` computes them inside one generated level, `show` prints them for explain.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_INDEX_EXPR_HPP
#define LOOM_FORMAT_MAPPING_INDEX_EXPR_HPP

#include <loom/core/config.hpp>
#include <loom/core/fixed_string.hpp>
#include <loom/core/index.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace loom::mapping {

using boost::mp11::mp_list;

/// Base of every index-arithmetic node (operators below apply to its descendants only).
struct node_base {};
template <class T>
concept node = std::derived_from<std::remove_cvref_t<T>, node_base>;

/// The value of index variable I (a `loom::index`).
template <class I> struct var_node : node_base {};
/// The position bound by I's loop: the stored position of a segment, the index of a range.
template <class I> struct pos_node : node_base {};
/// An integer constant.
template <std::int64_t N> struct lit : node_base {};
/// The extent of the mode the enclosing loop stores.
struct extent_node : node_base {};
/// Element E of physical array Arr.
template <class Arr, class E> struct load : node_base {};
/// a Op b, Op one of + - * / m (min) M (max) z (interleave bits: a even, b odd).
template <char Op, class A, class B> struct bin : node_base {};

/// A guard `a Op b` (Op one of < l(<=) > g(>=)); a loop folds it into its bounds.
template <char Op, class A, class B> struct guard {};

/// A physical array of `T` named `Name`: `arr(e)` reads one element, `arr.slice(lo, hi)` is the
/// segment [lo, hi) of a loop over stored coordinates.
template <fixed_string Name, class T = std::int64_t> struct array {
  using value_type = T;
  static constexpr std::string_view name = Name.view();
  template <node E> constexpr load<array, std::remove_cvref_t<E>> operator()(E) const { return {}; }
  template <node Lo, node Hi> constexpr auto slice(Lo, Hi) const;
};

/// The segment [Lo, Hi) of array Arr: a loop over it binds each stored coordinate.
template <class Arr, class Lo, class Hi> struct slice_of {
  using array_type = Arr;
  using lo = Lo;
  using hi = Hi;
};

/// `var(i)`: index i inside a mapping; `pos(i)`: its loop's position; `extent`: the mode's extent.
template <index_variable I> constexpr var_node<std::remove_cvref_t<I>> var(I) { return {}; }
template <index_variable I> constexpr pos_node<std::remove_cvref_t<I>> pos(I) { return {}; }
inline constexpr extent_node extent{};
template <std::int64_t N> inline constexpr lit<N> c{};

template <node A, node B>
constexpr bin<'+', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator+(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'-', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator-(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'*', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator*(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'/', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator/(A, B) {
  return {};
}

template <node A, node B>
constexpr guard<'<', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator<(A, B) {
  return {};
}
template <node A, node B>
constexpr guard<'l', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator<=(A, B) {
  return {};
}
template <node A, node B>
constexpr guard<'>', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator>(A, B) {
  return {};
}
template <node A, node B>
constexpr guard<'g', std::remove_cvref_t<A>, std::remove_cvref_t<B>> operator>=(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'m', std::remove_cvref_t<A>, std::remove_cvref_t<B>> min(A, B) {
  return {};
}
template <node A, node B>
constexpr bin<'M', std::remove_cvref_t<A>, std::remove_cvref_t<B>> max(A, B) {
  return {};
}
/// Z-order (Morton) code: a's bits at the even positions, b's at the odd ones.
template <node A, node B>
constexpr bin<'z', std::remove_cvref_t<A>, std::remove_cvref_t<B>> interleave(A, B) {
  return {};
}

namespace literals {
namespace parse_detail {
template <char... Cs> constexpr std::int64_t parse() {
  std::int64_t v = 0;
  ((v = v * 10 + (Cs - '0')), ...);
  return v;
}
}  // namespace parse_detail
/// `2_c`: the constant 2 in index arithmetic.
template <char... Cs> constexpr lit<parse_detail::parse<Cs...>()> operator""_c() { return {}; }
}  // namespace literals

namespace detail {

/// Spreads the low 32 bits of x over the even bit positions.
constexpr std::uint64_t spread_bits(std::uint64_t x) {
  x &= 0xFFFFFFFFull;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

/// The runtime values a level's expressions read: the parent's position, the loop's index, its
/// stored position (segments) and its mode's extent.
struct eval_env {
  std::int64_t up = 0, i = 0, q = 0, n = 0;
};

/// Where names resolve inside loop K: its own index `Self`; `Up`, the index of the loop above
/// (void at the root), whose value is the parent position when `UpIsIndex`.
template <class Self, class Up, bool SelfIsRange, bool UpIsIndex> struct scope {
  using self = Self;
  using up = Up;
  static constexpr bool self_is_range = SelfIsRange, up_is_index = UpIsIndex;
};

template <class E> struct arrays_of {
  using type = mp_list<>;
};
template <class Arr, class E> struct arrays_of<load<Arr, E>> {
  using type = boost::mp11::mp_push_front<typename arrays_of<E>::type, Arr>;
};
template <char Op, class A, class B> struct arrays_of<bin<Op, A, B>> {
  using type = boost::mp11::mp_append<typename arrays_of<A>::type, typename arrays_of<B>::type>;
};
template <char Op, class A, class B>
struct arrays_of<guard<Op, A, B>> : arrays_of<bin<Op, A, B>> {};

template <class Scope, class I>
inline constexpr bool known_index_v = std::is_same_v<I, typename Scope::self> ||
                                      (std::is_same_v<I, typename Scope::up> && Scope::up_is_index);

template <class Scope, class E> struct resolvable : std::true_type {};
template <class Scope, class I>
struct resolvable<Scope, var_node<I>> : std::bool_constant<known_index_v<Scope, I>> {};
template <class Scope, class I>
struct resolvable<Scope, pos_node<I>>
    : std::bool_constant<std::is_same_v<I, typename Scope::self> ||
                         std::is_same_v<I, typename Scope::up>> {};
template <class Scope, class Arr, class E>
struct resolvable<Scope, load<Arr, E>> : resolvable<Scope, E> {};
template <class Scope, char Op, class A, class B>
struct resolvable<Scope, bin<Op, A, B>>
    : std::bool_constant<resolvable<Scope, A>::value && resolvable<Scope, B>::value> {};

/// Computes E inside the loop described by Scope; arrays come from `st.arrays` (listed in
/// `Arrays`).
template <class Scope, class Arrays, class E> struct eval;
template <class Scope, class Arrays, class I> struct eval<Scope, Arrays, var_node<I>> {
  template <class St> static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env& env) {
    if constexpr (std::is_same_v<I, typename Scope::self>)
      return env.i;
    else
      return env.up;  // the loop above is a range at the root: its position is its index
  }
};
template <class Scope, class Arrays, class I> struct eval<Scope, Arrays, pos_node<I>> {
  template <class St> static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env& env) {
    if constexpr (std::is_same_v<I, typename Scope::self>)
      return Scope::self_is_range ? env.i : env.q;
    else
      return env.up;
  }
};
template <class Scope, class Arrays, std::int64_t N> struct eval<Scope, Arrays, lit<N>> {
  template <class St> static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env&) {
    return N;
  }
};
template <class Scope, class Arrays> struct eval<Scope, Arrays, extent_node> {
  template <class St> static LOOM_FORCE_INLINE std::int64_t run(const St&, const eval_env& env) {
    return env.n;
  }
};
template <class Scope, class Arrays, class Arr, class E> struct eval<Scope, Arrays, load<Arr, E>> {
  template <class St> static LOOM_FORCE_INLINE std::int64_t run(const St& st, const eval_env& env) {
    const auto& a = std::get<boost::mp11::mp_find<Arrays, Arr>::value>(st.arrays);
    return static_cast<std::int64_t>(
        a[static_cast<std::size_t>(eval<Scope, Arrays, E>::run(st, env))]);
  }
};
template <class Scope, class Arrays, char Op, class A, class B>
struct eval<Scope, Arrays, bin<Op, A, B>> {
  template <class St> static LOOM_FORCE_INLINE std::int64_t run(const St& st, const eval_env& env) {
    const std::int64_t a = eval<Scope, Arrays, A>::run(st, env);
    const std::int64_t b = eval<Scope, Arrays, B>::run(st, env);
    if constexpr (Op == '+')
      return a + b;
    else if constexpr (Op == '-')
      return a - b;
    else if constexpr (Op == '*')
      return a * b;
    else if constexpr (Op == '/')
      return a / b;
    else if constexpr (Op == 'm')
      return std::min(a, b);
    else if constexpr (Op == 'M')
      return std::max(a, b);
    else
      return static_cast<std::int64_t>(spread_bits(static_cast<std::uint64_t>(a)) |
                                       (spread_bits(static_cast<std::uint64_t>(b)) << 1));
  }
};

/// Index notation of an expression, for explain (`i*(i+1)/2 + j`, `crd(pos(i_pos))`).
template <class E> struct show;
template <class I> struct show<var_node<I>> {
  static std::string text() { return std::string(I::name); }
};
template <class I> struct show<pos_node<I>> {
  static std::string text() { return std::string(I::name) + "_pos"; }
};
template <std::int64_t N> struct show<lit<N>> {
  static std::string text() { return std::to_string(N); }
};
template <> struct show<extent_node> {
  static std::string text() { return "N"; }
};
template <class Arr, class E> struct show<load<Arr, E>> {
  static std::string text() { return std::string(Arr::name) + "(" + show<E>::text() + ")"; }
};
template <char Op, class A, class B> struct show<bin<Op, A, B>> {
  template <class X> static std::string operand() {
    if constexpr (requires { []<char O, class P, class Q>(bin<O, P, Q>) {}(X{}); })
      return "(" + show<X>::text() + ")";
    else
      return show<X>::text();
  }
  static std::string text() {
    if constexpr (Op == 'm')
      return "min(" + show<A>::text() + ", " + show<B>::text() + ")";
    else if constexpr (Op == 'M')
      return "max(" + show<A>::text() + ", " + show<B>::text() + ")";
    else if constexpr (Op == 'z')
      return "interleave(" + show<A>::text() + ", " + show<B>::text() + ")";
    else if constexpr (Op == '+' || Op == '-')
      return show<A>::text() + " " + Op + " " + show<B>::text();
    else
      return operand<A>() + Op + operand<B>();
  }
};
template <char Op, class A, class B> struct show<guard<Op, A, B>> {
  static std::string text() {
    const char* op = Op == '<' ? " < " : Op == 'l' ? " <= " : Op == '>' ? " > " : " >= ";
    return show<A>::text() + op + show<B>::text();
  }
};

}  // namespace detail

template <fixed_string Name, class T>
template <node Lo, node Hi>
constexpr auto array<Name, T>::slice(Lo, Hi) const {
  return slice_of<array, std::remove_cvref_t<Lo>, std::remove_cvref_t<Hi>>{};
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_INDEX_EXPR_HPP
