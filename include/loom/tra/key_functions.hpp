// Defines the introspectable key functions and key predicates of REKEY and filter: project,
// permute, linearize, insert_dim; eq, lt_eq, in_range, and_ (the TRA paper) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_KEY_FUNCTIONS_HPP
#define LOOM_TRA_KEY_FUNCTIONS_HPP

#include <loom/tra/relation.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loom::tra {

// A key function maps key_array<In> to key_array<out_arity>, gives its output bounds, says whether it is
// injective and which input positions it reads (rewrite conditions test these).

/// project<I...>: keeps positions I... in that order (a permutation when it names every position).
template <std::size_t... I> struct project {
  static constexpr std::string_view name = "project";
  static constexpr std::size_t out_arity = sizeof...(I);
  static constexpr std::array<std::size_t, out_arity> positions{I...};
  template <std::size_t K> static constexpr key_array<out_arity> apply(const key_array<K>& k) {
    return {k[I]...};
  }
  template <std::size_t K> key_array<out_arity> operator()(const key_array<K>& k) const {
    return apply(k);
  }
  template <std::size_t K> static constexpr key_array<out_arity> bounds(const key_array<K>& b) {
    return {b[I]...};
  }
  template <std::size_t K> static constexpr bool injective() {
    if (sizeof...(I) != K) return false;
    std::array<bool, K> seen{};
    for (std::size_t p : positions) {
      if (p >= K || seen[p]) return false;
      seen[p] = true;
    }
    return true;
  }
  /// True when position `p` of the output is position `q` of the input.
  static constexpr bool identity = [] {
    std::size_t d = 0;
    for (std::size_t p : positions)
      if (p != d++) return false;
    return true;
  }();
};
template <std::size_t... I> using permute = project<I...>;

/// linearize<C...>: <k0, k1, ...> -> <sum C_d k_d> (the paper's <2k1 + k2>); the caller gives
/// the output bound.
template <std::int64_t... C> struct linearize {
  static constexpr std::string_view name = "linearize";
  static constexpr std::size_t out_arity = 1;
  template <std::size_t K> static constexpr key_array<1> apply(const key_array<K>& k) {
    static_assert(K == sizeof...(C), "loom::tra::linearize: give one coefficient per key position");
    std::int64_t s = 0;
    std::size_t d = 0;
    ((s += C * k[d++]), ...);
    return {s};
  }
  template <std::size_t K> key_array<1> operator()(const key_array<K>& k) const { return apply(k); }
  template <std::size_t K> static constexpr key_array<1> bounds(const key_array<K>& b) {
    std::int64_t top = 0;
    std::size_t d = 0;
    ((top += C * (b[d++] - 1)), ...);
    return {top + 1};
  }
  template <std::size_t K> static constexpr bool injective() {
    return false;
  }  // not in general; rekey checks at run time
};

/// insert_dim<P>: a one-to-many key map used with `duplicate(n)`: <k...> -> <k..., c, ...> with
/// the new position P taking every c in [0, n) (notes §4.3, corrected in UT-6).
template <std::size_t P> struct insert_dim {
  template <std::size_t K>
  static constexpr key_array<K + 1> apply(const key_array<K>& k, std::int64_t c) {
    key_array<K + 1> out{};
    for (std::size_t d = 0, s = 0; d < K + 1; ++d) out[d] = d == P ? c : k[s++];
    return out;
  }
  template <std::size_t K>
  static constexpr key_array<K + 1> bounds(const key_array<K>& b, std::int64_t n) {
    return apply(b, n);
  }
};

// Predicates over keys: `test(key)` and the positions they read (R1-5, R1-6 conditions).

/// Key positions I and J are equal (the paper's checkEq on two positions).
template <std::size_t I, std::size_t J> struct eq {
  static constexpr std::string_view name = "checkEq";
  static constexpr std::array<std::size_t, 2> reads{I, J};
  template <std::size_t K> bool operator()(const key_array<K>& k) const { return k[I] == k[J]; }
};
/// key[I] <= key[J] (UT-12's upper triangle).
template <std::size_t I, std::size_t J> struct lt_eq {
  static constexpr std::string_view name = "lt_eq";
  static constexpr std::array<std::size_t, 2> reads{I, J};
  template <std::size_t K> bool operator()(const key_array<K>& k) const { return k[I] <= k[J]; }
};
/// lo <= key[I] < hi.
template <std::size_t I, std::int64_t Lo, std::int64_t Hi> struct in_range {
  static constexpr std::array<std::size_t, 1> reads{I};
  template <std::size_t K> bool operator()(const key_array<K>& k) const {
    return Lo <= k[I] && k[I] < Hi;
  }
};
/// f and g (R1-1 merges two filters into one).
template <class F, class G> struct and_ {
  F f{};
  G g{};
  template <std::size_t K> bool operator()(const key_array<K>& k) const { return f(k) && g(k); }
};

/// Does predicate P read only positions listed in `allowed`? (false for opaque callables)
template <class P, std::size_t N>
constexpr bool reads_only(const std::array<std::size_t, N>& allowed) {
  if constexpr (requires { P::reads; }) {
    for (std::size_t r : P::reads) {
      bool found = false;
      for (std::size_t a : allowed) found = found || a == r;
      if (!found) return false;
    }
    return true;
  } else {
    return false;
  }
}

}  // namespace loom::tra

#endif  // LOOM_TRA_KEY_FUNCTIONS_HPP
