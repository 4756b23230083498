// Defines the terms of la's sum-product normal form (la/): the extents of a translated
// expression's index variables, its signed terms (each a sum over a product of factors), and a
// term's signature (the factors' kinds and indices, for reuse and explain).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_TERMS_HPP
#define LOOM_LA_TERMS_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/unpack.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/sum_product.hpp>
#include <loom/expr/traits.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/format/view.hpp>
#include <loom/la/nodes.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstdint>
#include <ios>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace loom::la::detail {

using boost::mp11::mp_list;

// ---------------------------------------------------------------------------------------------
// Part 1: extents of the index variables of a translated expression (from its accesses)
struct extent_table {
  std::vector<std::pair<std::string_view, std::int64_t>> entries;
  LOOM_DECL void note(std::string_view name, std::int64_t e);
  LOOM_DECL std::int64_t of(std::string_view name) const;
};
template <class E> extent_table extents_of(const E& e) {
  extent_table t;
  expr::for_each_access(e, [&]<class T, class... Is>(const expr::access<T, Is...>& a, std::size_t) {
    std::size_t m = 0;
    (t.note(Is::name, a.tensor->extent(m++)), ...);
  });
  return t;
}

// ---------------------------------------------------------------------------------------------
// Part 2: the terms of a normal form: a sum of signed terms, each sums over a product
template <class E> struct signed_term {
  static constexpr bool negative = false;
  using body = E;
  static constexpr const E& get(const E& e) { return e; }
};
template <class E> struct signed_term<expr::map<fn::negate, E>> {
  static constexpr bool negative = !signed_term<E>::negative;
  using body = typename signed_term<E>::body;
  static constexpr const body& get(const expr::map<fn::negate, E>& e) {
    return signed_term<E>::get(std::get<0>(e.args));
  }
};
template <class E, class F> void for_each_term(const E& e, F&& f) {
  if constexpr (requires { []<class L, class R>(const expr::add<L, R>&) {}(e); }) {
    for_each_term(e.lhs, f);
    for_each_term(e.rhs, f);
  } else {
    f(signed_term<E>::get(e), std::bool_constant<signed_term<E>::negative>{});
  }
}

template <class X>
struct factor_kind {  // 0: dense access, 1: literal, 2: anything else (sparse access, map, ...)
  static constexpr int value = 2;
};
template <class T, class... Is> struct factor_kind<expr::access<T, Is...>> {
  static constexpr int value = std::remove_const_t<T>::format_type::all_dense ? 0 : 2;
};
template <class T> struct factor_kind<expr::literal<T>> {
  static constexpr int value = 1;
};
template <class Tuple> struct all_dense_factors;
template <class... Xs> struct all_dense_factors<std::tuple<Xs...>> {
  static constexpr bool value = ((factor_kind<Xs>::value < 2) && ...);
};

// A term's signature at run time: its factors (tensor, index pattern; literal values) with
// bound indices renamed in order of first use, minimised over the orders of the factors that read
// one tensor. Equal signatures mean equal values (commutativity and alpha-renaming); a term with
// another kind of factor gets a unique signature.
struct factor_desc {
  const void* tensor = nullptr;
  std::vector<std::string_view> indices;
  std::string literal;
};
/// The least text of `fs` over the orders that keep its factors sorted by tensor, bound indices
/// renamed in order of first use (at most 8 factors). Not a template: one std::sort and one
/// permutation loop for every term type (54 instantiations of each in a test of 160 kernels).
LOOM_DECL std::string minimal_signature(std::vector<factor_desc>& fs,
                                        const std::vector<std::string_view>& bound);
template <class Term> std::string signature(const Term& term, std::size_t ordinal) {
  using block = expr::sum_product<Term>;
  std::vector<std::string_view> bound;
  boost::mp11::mp_for_each<typename block::summed>(
      [&](auto idx) { bound.push_back(decltype(idx)::name); });
  std::vector<factor_desc> fs;
  bool plain = true;
  loom::detail::unpack(
      [&](const auto&... f) {
        (..., [&](const auto& x) {
          using X = std::remove_cvref_t<decltype(x)>;
          factor_desc d;
          if constexpr (factor_kind<X>::value == 1) {
            std::ostringstream v;
            if constexpr (std::is_floating_point_v<decltype(x.value)>) v << std::hexfloat;  // exact
            v << x.value;
            d.literal = v.str();
          } else if constexpr (requires { x.tensor; }) {
            d.tensor = x.tensor;
            [&]<class T, class... Is>(const expr::access<T, Is...>&) {
              d.indices = {Is::name...};
            }(x);
          } else {
            plain = false;
          }
          fs.push_back(std::move(d));
        }(f));
      },
      expr::factors_of(block::body_of(term)));
  if (!plain || fs.size() > 8) {
    // appended piece by piece: g++ 12 at -O3 draws a false -Wrestrict from "x" + std::string&&
    std::string unique = "#";
    unique += std::to_string(ordinal);
    return unique;
  }
  return minimal_signature(fs, bound);
}

#if LOOM_HEADER_ONLY
LOOM_DEF std::string minimal_signature(std::vector<factor_desc>& fs,
                                       const std::vector<std::string_view>& bound) {
  std::sort(fs.begin(), fs.end(), [](const factor_desc& a, const factor_desc& b) {
    return std::less<const void*>{}(a.tensor, b.tensor) ||
           (a.tensor == b.tensor && a.literal < b.literal);
  });
  auto text = [&](const std::vector<factor_desc>& order) {
    std::vector<std::string_view> seen;
    std::string out;
    for (const auto& f : order) {
      out += f.literal;
      out += '@';
      out += std::to_string(reinterpret_cast<std::uintptr_t>(f.tensor));
      out += '(';
      for (auto n : f.indices) {
        if (std::find(bound.begin(), bound.end(), n) == bound.end()) {
          out += n;
          out += ',';
          continue;
        }
        auto at = std::find(seen.begin(), seen.end(), n);
        if (at == seen.end()) seen.push_back(n), at = seen.end() - 1;
        out += '_';
        out += std::to_string(at - seen.begin());
        out += ',';
      }
      out += ')';
    }
    out += '/';
    out += std::to_string(bound.size() - seen.size());  // sums no factor uses
    return out;
  };
  // try every order that keeps the tensors sorted (permutations among equal tensors)
  std::vector<std::size_t> perm(fs.size());
  for (std::size_t q = 0; q < perm.size(); ++q) perm[q] = q;
  std::string best = text(fs);
  auto same_group = [&](const std::vector<std::size_t>& p) {
    for (std::size_t q = 0; q < p.size(); ++q)
      if (fs[p[q]].tensor != fs[q].tensor || fs[p[q]].literal != fs[q].literal) return false;
    return true;
  };
  while (std::next_permutation(perm.begin(), perm.end())) {
    if (!same_group(perm)) continue;
    std::vector<factor_desc> order;
    for (std::size_t q : perm) order.push_back(fs[q]);
    best = std::min(best, text(order));
  }
  return best;
}

LOOM_DEF void extent_table::note(std::string_view name, std::int64_t e) {
  for (auto& [n, x] : entries)
    if (n == name) {
      if (x != e)
        throw shape_error("loom::la: dimension " + std::string(name) + " is " + std::to_string(x) +
                          " in one operand and " + std::to_string(e) + " in another");
      return;
    }
  entries.emplace_back(name, e);
}

LOOM_DEF std::int64_t extent_table::of(std::string_view name) const {
  for (const auto& [n, x] : entries)
    if (n == name) return x;
  throw shape_error("loom::la: the extent of " + std::string(name) + " is unknown");
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::la::detail

#endif  // LOOM_LA_TERMS_HPP
