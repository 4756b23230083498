// Defines loom::mapping::sum_of: a tensor stored as the sum of mapped tensors, each read with
// its modes in place or permuted (S = L + SL^T); exec/distribute.hpp runs a program over it one
// term at a time (format/mapping/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_SUM_HPP
#define LOOM_FORMAT_MAPPING_SUM_HPP

#include <loom/core/error.hpp>
#include <loom/core/index.hpp>
#include <loom/core/unpack.hpp>
#include <loom/expr/operators.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/format_name.hpp>
#include <loom/format/mapping/definition.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom::mapping {

/// One term of a sum of mappings: tensor T read as `S(i_0, ..., i_{d-1}) = T(i_{Perm_0}, ...)`.
template <class T, std::size_t... Perm> struct term {
  static constexpr std::size_t order = sizeof...(Perm);
  const T* tensor = nullptr;

  /// The access of this term for the sum's indices `is...` (an expression).
  template <index_variable... Is>
    requires(sizeof...(Is) == order)
  auto operator()(Is... is) const {
    const auto idx = std::make_tuple(is...);
    return (*tensor)(std::get<Perm>(idx)...);
  }
  /// Appends the term's stored entries in S's coordinates.
  template <class V>
  void append_entries(std::vector<std::array<std::int64_t, order>>& crd,
                      std::vector<V>& val) const {
    constexpr std::array<std::size_t, order> perm{Perm...};
    tensor->for_each_stored([&](const auto& c, const auto& v) {
      std::array<std::int64_t, order> x{};
      for (std::size_t k = 0; k < order; ++k) x[perm[k]] = c[k];
      crd.push_back(x);
      val.push_back(static_cast<V>(v));
    });
  }
  /// The logical shape of the term: T's extents permuted.
  std::array<std::int64_t, order> shape() const {
    std::array<std::int64_t, order> s{};
    std::array<std::int64_t, order> tensor_shape{};
    for (std::size_t m = 0; m < order; ++m) tensor_shape[m] = tensor->extent(m);
    // T(i_{Perm_0}, ...): T's mode k is indexed by S's index Perm_k
    constexpr std::array<std::size_t, order> perm{Perm...};
    for (std::size_t k = 0; k < order; ++k) s[perm[k]] = tensor_shape[k];
    return s;
  }
  /// "SL^T [strict_lower_packed]"
  std::string text() const {
    constexpr std::array<std::size_t, order> perm{Perm...};
    std::string s = tensor->name().empty() ? std::string("term") : tensor->name();
    bool identity = true;
    for (std::size_t m = 0; m < order; ++m) identity = identity && perm[m] == m;
    if (!identity) {
      s += order == 2 ? "^T" : "^(";
      if (order != 2) {
        for (std::size_t m = 0; m < order; ++m) s += (m ? "," : "") + std::to_string(perm[m]);
        s += ")";
      }
    }
    return s + " [" + format_name<typename T::format_type>() + "]";
  }
};

/// The term T as stored: S(i, j, ...) = T(i, j, ...).
template <class T> auto as_is(const T& t) {
  return [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    return term<T, Ks...>{&t};
  }(std::make_index_sequence<T::order>{});
}
/// The term T transposed (a matrix): S(i, j) = T(j, i).
template <class T>
  requires(T::order == 2)
term<T, 1, 0> transposed(const T& t) {
  return {&t};
}

/// A tensor stored as the sum of terms (STOREL: a TSM whose body is `e1 + e2`), e.g. a
/// symmetric matrix as `lower_packed + transposed(strict_lower_packed)` over one packed array.
/// `S(i, j)` is the expression `L(i,j) + SL(j,i)` (one kernel; a term read against its storage
/// order is copied into general levels per call, plan/transposed_format.hpp: prefer the next two);
/// `assign_distributed` runs a program linear in S once per term; `materialize()` builds S.
template <class... Terms> struct sum_of {
  static_assert(sizeof...(Terms) >= 2, "loom::mapping::sum_of: give at least two terms");
  static constexpr std::size_t order = std::tuple_element_t<0, std::tuple<Terms...>>::order;
  static_assert(((Terms::order == order) && ...),
                "loom::mapping::sum_of: every term must have the order of the sum");
  std::tuple<Terms...> terms;
  std::string name;

  /// `S(i, j)`: the sum of the terms' accesses, an ordinary loom expression.
  template <index_variable... Is>
    requires(sizeof...(Is) == order)
  auto operator()(Is... is) const {
    return loom::detail::unpack(
        [&](const auto& first, const auto&... rest) { return (first(is...) + ... + rest(is...)); },
        terms);
  }
  std::array<std::int64_t, order> shape() const { return std::get<0>(terms).shape(); }

  /// The sum as one built-in tensor (every level compressed): the terms' entries, permuted and
  /// added. What a program that is not linear in S reads.
  auto materialize() const {
    using first_tensor = std::remove_const_t<std::remove_pointer_t<
        decltype(std::get<0>(std::declval<const std::tuple<Terms...>&>()).tensor)>>;
    using V = std::remove_const_t<typename first_tensor::value_type>;
    using F = typename decltype([]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return std::type_identity <
             loom::format<std::conditional_t<Ks<order, loom::compressed, void>...>>{};
    }(std::make_index_sequence<order>{}))::type;
    std::vector<std::array<std::int64_t, order>> crd;
    std::vector<V> val;
    loom::detail::unpack([&](const auto&... t) { (t.append_entries(crd, val), ...); }, terms);
    return loom::from_coo<F>(shape(), crd, val, loom::duplicates::sum);
  }
  /// One term alone, materialised in S's coordinates like `materialize`.
  template <class Term> static auto materialize_one(const Term& t) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(t.tensor)>>;
    using V = std::remove_const_t<typename T::value_type>;
    using F = typename decltype([]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      return std::type_identity <
             loom::format<std::conditional_t<Ks<order, loom::compressed, void>...>>{};
    }(std::make_index_sequence<order>{}))::type;
    std::vector<std::array<std::int64_t, order>> crd;
    std::vector<V> val;
    t.append_entries(crd, val);
    return loom::from_coo<F>(t.shape(), crd, val, loom::duplicates::sum);
  }
  /// "S = L [lower_packed] + SL^T [strict_lower_packed]"
  std::string text() const {
    std::string s = (name.empty() ? std::string("S") : name) + " = ";
    std::size_t k = 0;
    loom::detail::unpack([&](const auto&... t) { ((s += (k++ ? " + " : "") + t.text()), ...); },
                         terms);
    return s;
  }
};

/// `make_sum(as_is(L), transposed(SL))`: checks that the terms' logical shapes agree.
template <class... Terms> sum_of<Terms...> make_sum(std::string name, Terms... ts) {
  sum_of<Terms...> s{std::tuple<Terms...>{ts...}, std::move(name)};
  const auto want = std::get<0>(s.terms).shape();
  std::size_t k = 0;
  loom::detail::unpack(
      [&](const auto&... t) {
        (
            [&] {
              const auto got = t.shape();
              for (std::size_t m = 0; m < want.size(); ++m)
                if (got[m] != want[m])
                  throw shape_error("loom::mapping::make_sum " + s.name + ": term " +
                                    std::to_string(k) + " (" + t.text() + ") has extent " +
                                    std::to_string(got[m]) + " in mode " + std::to_string(m) +
                                    " but term 0 has " + std::to_string(want[m]));
              ++k;
            }(),
            ...);
      },
      s.terms);
  return s;
}

}  // namespace loom::mapping

#endif  // LOOM_FORMAT_MAPPING_SUM_HPP
