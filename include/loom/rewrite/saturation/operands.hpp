// Defines the operand naming saturation needs beside the expression: slot_tag (an operand named
// by its position, so that a rewritten copy of an expression still names it), tagged_t, and the
// renaming of bound names apart (renamed_apart_t, base_index_t) (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_OPERANDS_HPP
#define LOOM_REWRITE_SATURATION_OPERANDS_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/core/index.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>

#include <cstddef>
#include <string_view>
#include <type_traits>

namespace loom::rewrite::saturation {

/// An operand renamed by its slot, so that a rewritten copy of an expression (whose operands
/// move and repeat) still names them: the type of a tensor or literal, never dereferenced.
template <std::size_t Slot, class T> struct slot_tag {
  using value_type = typename std::remove_const_t<T>::value_type;
  using format_type = typename std::remove_const_t<T>::format_type;
};
template <std::size_t Slot, class T> struct slot_tag<Slot, expr::literal<T>> {
  using value_type = T;
  struct format_type {
    static constexpr bool all_dense = true;
  };
};

namespace detail {
// tagged<E, Next>: E with operand number Next + k renamed slot_tag<Next + k, ...>; `ok` is false
// when E holds an opaque map (a rewritten copy could not name it)
template <class E, std::size_t Next> struct tagged {
  static constexpr bool ok = false;
  static constexpr std::size_t next = Next;
  using type = E;
};
template <class T, class... Is, std::size_t Next> struct tagged<expr::access<T, Is...>, Next> {
  static constexpr bool ok = true;
  static constexpr std::size_t next = Next + 1;
  using type = expr::access<slot_tag<Next, T>, Is...>;
};
template <class T, std::size_t Next> struct tagged<expr::literal<T>, Next> {
  static constexpr bool ok = true;
  static constexpr std::size_t next = Next + 1;
  using type = expr::access<slot_tag<Next, expr::literal<T>>>;
};
template <class L, class R, std::size_t Next> struct tagged<expr::add<L, R>, Next> {
  using l = tagged<L, Next>;
  using r = tagged<R, l::next>;
  static constexpr bool ok = l::ok && r::ok;
  static constexpr std::size_t next = r::next;
  using type = expr::add<typename l::type, typename r::type>;
};
template <class L, class R, std::size_t Next>
struct tagged<expr::mul<L, R>, Next> : tagged<expr::add<L, R>, Next> {
  using base = tagged<expr::add<L, R>, Next>;
  using type = expr::mul<typename base::l::type, typename base::r::type>;
};
template <class I, class B, std::size_t Next>
struct tagged<expr::sum<I, B>, Next> : tagged<B, Next> {
  using type = expr::sum<I, typename tagged<B, Next>::type>;
};
template <class X, std::size_t Next>
struct tagged<expr::map<fn::negate, X>, Next> : tagged<X, Next> {
  using type = expr::map<fn::negate, typename tagged<X, Next>::type>;
};
}  // namespace detail

namespace detail {
// A name made of an index's name, a separator and a number: bound names renamed apart.
template <class Original, std::size_t Id, char Separator> constexpr auto numbered_name() {
  constexpr std::size_t n = Original::name.size();
  char text[n + 4]{};
  for (std::size_t k = 0; k < n; ++k) text[k] = Original::name[k];
  text[n] = Separator;
  text[n + 1] = static_cast<char>('0' + Id / 10 % 10);
  text[n + 2] = static_cast<char>('0' + Id % 10);
  return fixed_string<n + 4>(text);
}

// The name an index was renamed apart from: its name up to '~'.
template <class I>
constexpr std::size_t base_length =
    I::name.find('~') == std::string_view::npos ? I::name.size() : I::name.find('~');
template <class I> constexpr auto base_name() {
  char text[base_length<I> + 1]{};
  for (std::size_t k = 0; k < base_length<I>; ++k) text[k] = I::name[k];
  return fixed_string<base_length<I> + 1>(text);
}
template <class I> using base_index_t = loom::index<base_name<I>()>;

// subst<E, From, To>: index From replaced by To where it is free
template <class E, class From, class To> struct subst {
  using type = E;
};
template <class T, class... Is, class From, class To>
struct subst<expr::access<T, Is...>, From, To> {
  using type = expr::access<T, std::conditional_t<std::is_same_v<Is, From>, To, Is>...>;
};
template <class L, class R, class From, class To> struct subst<expr::add<L, R>, From, To> {
  using type = expr::add<typename subst<L, From, To>::type, typename subst<R, From, To>::type>;
};
template <class L, class R, class From, class To> struct subst<expr::mul<L, R>, From, To> {
  using type = expr::mul<typename subst<L, From, To>::type, typename subst<R, From, To>::type>;
};
template <class X, class From, class To> struct subst<expr::map<fn::negate, X>, From, To> {
  using type = expr::map<fn::negate, typename subst<X, From, To>::type>;
};
template <class I, class B, class From, class To> struct subst<expr::sum<I, B>, From, To> {
  using type = std::conditional_t<std::is_same_v<I, From>, expr::sum<I, B>,
                                  expr::sum<I, typename subst<B, From, To>::type>>;
};

// apart<E, N>: every sum of E binds a name of its own (numbered from N), so the normal form's
// lift_sum can pull every sum out (it will not capture a name)
template <class E, std::size_t N> struct apart {
  using type = E;
  static constexpr std::size_t next = N;
};
template <class L, class R, std::size_t N> struct apart<expr::add<L, R>, N> {
  using l = apart<L, N>;
  using r = apart<R, l::next>;
  using type = expr::add<typename l::type, typename r::type>;
  static constexpr std::size_t next = r::next;
};
template <class L, class R, std::size_t N>
struct apart<expr::mul<L, R>, N> : apart<expr::add<L, R>, N> {
  using base = apart<expr::add<L, R>, N>;
  using type = expr::mul<typename base::l::type, typename base::r::type>;
};
template <class X, std::size_t N> struct apart<expr::map<fn::negate, X>, N> : apart<X, N> {
  using type = expr::map<fn::negate, typename apart<X, N>::type>;
};
template <class I, class B, std::size_t N> struct apart<expr::sum<I, B>, N> {
  using b = apart<B, N>;
  using renamed = loom::index<numbered_name<I, b::next, '~'>()>;
  using type = expr::sum<renamed, typename subst<typename b::type, I, renamed>::type>;
  static constexpr std::size_t next = b::next + 1;
};
}  // namespace detail

/// E with every bound name renamed apart (an alpha-equivalent expression).
template <class E> using renamed_apart_t = typename detail::apart<E, 0>::type;

/// E with its operands named by slot (see slot_tag); `void` when E holds an opaque map.
template <class E>
using tagged_t =
    std::conditional_t<detail::tagged<E, 0>::ok, typename detail::tagged<E, 0>::type, void>;

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_OPERANDS_HPP
