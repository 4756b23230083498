// Defines ia::to_string<Plan>(): an IA plan type printed in the paper's notation, e.g.
// "Σᴸ<0,2>(add, SHUF<0,2>(⋈ᴸ<1>,<0>(matmul, BCAST(R0), R1{1})))" (tra/ia/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_IA_TO_STRING_HPP
#define LOOM_TRA_IA_TO_STRING_HPP

#include <loom/tra/ia/nodes.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace loom::tra::ia {

namespace detail {
// The pieces appended in order: GCC 12 warns (-Wrestrict, falsely) on "text" + std::string at -O3.
template <class... Pieces> std::string cat(const Pieces&... pieces) {
  std::string out;
  (out += ... += pieces);
  return out;
}
template <class D> std::string dims_text() {
  std::string out = "<";
  for (std::size_t n = 0; n < D::size; ++n) {  // piece by piece: GCC 12 -Wrestrict at -O3
    if (n) out += ',';
    out += std::to_string(D::values[n]);
  }
  return out + ">";
}
template <class F> std::string fn_name() {
  if constexpr (requires { F::name; })
    return std::string(F::name);
  else
    return "f";
}
template <class D> std::string partition_dims_text(partitioned<D>) {
  std::string out;
  for (std::size_t n = 0; n < D::size; ++n) {  // piece by piece: GCC 12 -Wrestrict at -O3
    if (n) out += ',';
    out += std::to_string(D::values[n]);
  }
  return out;
}
template <class P> std::string placement_text() {
  if constexpr (std::is_same_v<P, replicated>)
    return "{*}";
  else if constexpr (std::is_same_v<P, single>)
    return "{site 0}";
  else if constexpr (std::is_same_v<P, arbitrary>)
    return "";
  else
    return cat("{", partition_dims_text(P{}), "}");
}

template <class Plan> struct printer;
template <std::size_t I, std::size_t K, class P> struct printer<leaf<I, K, P>> {
  static std::string text() { return cat("R", std::to_string(I), placement_text<P>()); }
};
template <class C> struct printer<bcast<C>> {
  static std::string text() { return cat("BCAST(", printer<C>::text(), ")"); }
};
template <class D, class C> struct printer<shuf<D, C>> {
  static std::string text() { return cat("SHUF", dims_text<D>(), "(", printer<C>::text(), ")"); }
};
template <class F, class C> struct printer<lfilter<F, C>> {
  static std::string text() { return cat("σᴸ(", fn_name<F>(), ", ", printer<C>::text(), ")"); }
};
template <class KM, class A, class C> struct printer<lmap<KM, A, C>> {
  static std::string text() {
    const std::string k = std::is_same_v<KM, same_key> ? "_" : fn_name<KM>();
    const std::string a = std::is_same_v<A, same_tile> ? "_" : fn_name<A>();
    return cat("λᴸ(", k, ", ", a, ", ", printer<C>::text(), ")");
  }
};
template <class G, class Op, class C> struct printer<lagg<G, Op, C>> {
  static std::string text() {
    return cat("Σᴸ", dims_text<G>(), "(", fn_name<Op>(), ", ", printer<C>::text(), ")");
  }
};
template <class G, class Op, class C> struct printer<lpartial<G, Op, C>> {
  static std::string text() {
    return cat("Σᴸ⁺", dims_text<G>(), "(", fn_name<Op>(), ", ", printer<C>::text(), ")");
  }
};
template <class JL, class JR, class Op, class L, class R> struct printer<ljoin<JL, JR, Op, L, R>> {
  static std::string text() {
    return cat("⋈ᴸ", dims_text<JL>(), ",", dims_text<JR>(), "(", fn_name<Op>(), ", ",
               printer<L>::text(), ", ", printer<R>::text(), ")");
  }
};
template <std::size_t P, std::size_t From, std::size_t Dim, class C>
struct printer<ldup<P, From, Dim, C>> {
  static std::string text() {
    return cat("λᴸ(insertDim(", std::to_string(P), "), duplicate(bound ", std::to_string(Dim),
               " of R", std::to_string(From), "), ", printer<C>::text(), ")");
  }
};
}  // namespace detail

/// The plan in the paper's notation (R<i>{D} is input i placed on positions D; {*} replicated).
template <class Plan> std::string to_string() { return detail::printer<Plan>::text(); }

}  // namespace loom::tra::ia

#endif  // LOOM_TRA_IA_TO_STRING_HPP
