// Defines loom::alternatives: one tensor held in several formats (a matrix as csr and as csc),
// which each kernel reads in the format the cost model prefers (STOREL's choice among storage
// layouts; the choice itself is exec/alternatives.hpp) (format/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_ALTERNATIVES_HPP
#define LOOM_FORMAT_ALTERNATIVES_HPP

#include <loom/core/error.hpp>
#include <loom/core/index.hpp>
#include <loom/expr/access.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/format/format_name.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace loom {

/// The same tensor held in the formats of `Ts...`, e.g.
/// `loom::alternatives A2(A_csr, A_csc); C(i, j) = sum(k, A2(i, k) * B(k, j));`: the kernel is
/// compiled once per alternative, and each assignment runs the one whose plan the cost model
/// estimates cheapest (a transposed copy, a dense walk and the loop order all count), remembered
/// per kernel while the operands' sizes stay within a factor of two. `loom::explain` shows the
/// costs. Holds references: the tensors must outlive it and hold the same entries (loom cannot
/// check that cheaply; the shapes are checked).
template <class... Ts> class alternatives {
  using first = std::tuple_element_t<0, std::tuple<Ts...>>;

 public:
  static_assert(sizeof...(Ts) >= 2, "loom::alternatives: hold the tensor in two formats or more");
  static_assert((std::is_same_v<typename Ts::value_type, typename first::value_type> && ...),
                "loom::alternatives: every format must hold the same value type");
  static_assert(((Ts::order == first::order) && ...),
                "loom::alternatives: every alternative must have the same order");
  using value_type = typename first::value_type;
  /// The first alternative's format, for the expression's static traits before the choice; the
  /// kernels read each alternative in its own format.
  using format_type = typename first::format_type;
  static constexpr std::size_t order = first::order;
  static constexpr std::size_t count = sizeof...(Ts);
  using held_types = std::tuple<Ts...>;

  /// Holds `ts...` (lvalues that outlive this object); throws shape_error when shapes differ.
  template <class... Us>
    requires(sizeof...(Us) == sizeof...(Ts))
  alternatives(Us&&... ts) : held_{&ts...} {  // NOLINT: implicit, as CTAD builds it
    static_assert((std::is_lvalue_reference_v<Us> && ...),
                  "loom::alternatives holds references: pass tensors that outlive it, not "
                  "temporaries");
    check_shapes(std::make_index_sequence<sizeof...(Ts)>{});
  }

  /// Alternative K.
  template <std::size_t K> const auto& get() const { return *std::get<K>(held_); }
  /// The first alternative's name (what `explain` prints).
  const std::string& name() const { return get<0>().name(); }
  /// Every alternative is there to read.
  static constexpr bool available(std::size_t) { return true; }
  /// The format of alternative k ("csr").
  static std::string format_name(std::size_t k) {
    static const std::string names[] = {loom::format_name<typename Ts::format_type>()...};
    return names[k];
  }
  std::int64_t extent(std::size_t mode) const { return get<0>().extent(mode); }

  /// `A2(i, j)`: an access to use in index notation; the kernel reads one alternative.
  template <index_variable... Is> auto operator()(Is...) const {
    return expr::make_access<order, const alternatives, std::remove_cvref_t<Is>...>(this);
  }

 private:
  template <std::size_t... Ks> void check_shapes(std::index_sequence<Ks...>) const {
    (..., [&] {
      for (std::size_t m = 0; m < order; ++m)
        if (get<Ks>().extent(m) != get<0>().extent(m))
          throw shape_error(
              "loom::alternatives: alternative " + std::to_string(Ks) +
              (get<Ks>().name().empty() ? "" : " (" + get<Ks>().name() + ")") + " has extent " +
              std::to_string(get<Ks>().extent(m)) + " in mode " + std::to_string(m) +
              ", alternative 0" + (name().empty() ? "" : " (" + name() + ")") + " has " +
              std::to_string(get<0>().extent(m)) + "; every alternative holds the same tensor");
    }());
  }
  std::tuple<const Ts*...> held_;
};

template <class... Us> alternatives(Us&&...) -> alternatives<std::remove_cvref_t<Us>...>;

/// Whether T is a loom::alternatives.
template <class T> inline constexpr bool is_alternatives_v = false;
template <class... Ts> inline constexpr bool is_alternatives_v<alternatives<Ts...>> = true;
template <class... Ts> inline constexpr bool is_alternatives_v<const alternatives<Ts...>> = true;

}  // namespace loom

#endif  // LOOM_FORMAT_ALTERNATIVES_HPP
