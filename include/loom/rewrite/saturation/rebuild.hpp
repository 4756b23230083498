// Defines the way back from an extracted term to an expression: the term's operators become
// expr nodes over the original leaves (tensor pointers, literal values, map functions), bound
// indices keep their names unless two binders would share one (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_REBUILD_HPP
#define LOOM_REWRITE_SATURATION_REBUILD_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/core/index.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/rewrite/saturation/encode.hpp>
#include <loom/rewrite/saturation/extract.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

namespace loom::rewrite::saturation {

namespace detail {

constexpr bool encloses(const term& t, id_t k, id_t target) {
  if (k == target) return true;
  const enode& n = t.nodes[k];
  return (n.a != no_id && encloses(t, n.a, target)) || (n.b != no_id && encloses(t, n.b, target));
}

// Whether binder `id` of term t can take back the name it was renamed from: no sum of the same
// name encloses or is enclosed by one of its sums, and no free index of that name is in scope.
constexpr bool conflicts_below(const term& t, id_t k, std::uint8_t id, std::uint8_t base) {
  const enode& n = t.nodes[k];
  if (n.k == kind::sum && n.index != id && t.sig.base[t.sig.original[n.index]] == base) return true;
  if (n.k == kind::leaf) {
    const leaf_info& l = t.sig.leaves[n.slot];
    for (std::size_t m = 0; m < l.order; ++m)
      if (l.ids[m] < t.sig.original_count && t.sig.base[l.ids[m]] == base) return true;
  }
  return (n.a != no_id && conflicts_below(t, n.a, id, base)) ||
         (n.b != no_id && conflicts_below(t, n.b, id, base));
}
constexpr bool keeps_name(const term& t, std::uint8_t id) {
  const std::uint8_t base = t.sig.base[t.sig.original[id]];
  for (std::size_t k = 0; k < t.size; ++k) {
    const enode& n = t.nodes[k];
    if (n.k != kind::sum) continue;
    const bool same = t.sig.base[t.sig.original[n.index]] == base;
    if (n.index == id && conflicts_below(t, n.a, id, base)) return false;
    if (n.index != id && same) {  // a same-named sum enclosing a sum of id
      for (std::size_t m = 0; m < t.size; ++m)
        if (t.nodes[m].k == kind::sum && t.nodes[m].index == id &&
            encloses(t, n.a, static_cast<id_t>(m)))
          return false;
    }
  }
  return true;
}

// Source: a type with `static constexpr term value`, `using expression = E` and
// `using indices` (original index id -> type).
template <class Source, std::size_t Id> constexpr auto index_type() {
  using orig = typename Source::indices;
  constexpr const term& t = Source::value;
  using O = boost::mp11::mp_at_c<orig, t.sig.original[Id]>;
  if constexpr (Id < t.sig.original_count)
    return O{};
  else if constexpr (keeps_name(t, Id))
    return base_index_t<O>{};
  else
    return loom::index<numbered_name<base_index_t<O>, Id, '_'>()>{};
}
template <class Source, std::size_t Id> using index_t = decltype(index_type<Source, Id>());

template <class Source, class Leaf, class Seq> struct renamed_access;
template <class Source, class T, class... Is, std::size_t... Ms>
struct renamed_access<Source, expr::access<T, Is...>, std::index_sequence<Ms...>> {
  using type = expr::access<T, index_t<Source, Source::value.sig.leaves[Source::slot_].ids[Ms]>...>;
};

template <class Source, std::size_t Slot> struct at_slot : Source {
  static constexpr std::size_t slot_ = Slot;
};

template <class Source, std::size_t Node, class Leaves> constexpr auto build(const Leaves& leaves) {
  constexpr const term& t = Source::value;
  constexpr enode n = t.nodes[Node];
  using V = expr::value_type_t<typename Source::expression>;
  if constexpr (n.k == kind::leaf) {
    const auto& leaf = std::get<t.sig.leaves[n.slot].source>(leaves);
    using L = std::remove_cvref_t<decltype(leaf)>;
    if constexpr (requires { leaf.tensor; }) {
      using A = typename renamed_access<at_slot<Source, n.slot>, L,
                                        std::make_index_sequence<t.sig.leaves[n.slot].order>>::type;
      return A{leaf.tensor};
    } else {
      return leaf;
    }
  } else if constexpr (n.k == kind::constant) {
    return expr::literal<V>{static_cast<V>(n.value)};
  } else if constexpr (n.k == kind::add) {
    auto a = build<Source, n.a>(leaves);
    auto b = build<Source, n.b>(leaves);
    return expr::add<decltype(a), decltype(b)>{a, b};
  } else if constexpr (n.k == kind::mul) {
    auto a = build<Source, n.a>(leaves);
    auto b = build<Source, n.b>(leaves);
    if constexpr (t.nodes[n.a].k == kind::constant && t.nodes[n.a].value == -1.0) {
      return expr::map<fn::negate, decltype(b)>{fn::negate{}, std::tuple{b}};  // -x, not (-1) * x
    } else {
      return expr::mul<decltype(a), decltype(b)>{a, b};
    }
  } else if constexpr (n.k == kind::sum) {
    auto a = build<Source, n.a>(leaves);
    return expr::sum<index_t<Source, n.index>, decltype(a)>{a};
  } else if constexpr (n.k == kind::opaque1) {
    const auto& m = std::get<n.slot>(leaves);
    auto a = build<Source, n.a>(leaves);
    using F = std::remove_cvref_t<decltype(m.f)>;
    return expr::map<F, decltype(a)>{m.f, std::tuple{a}};
  } else {
    const auto& m = std::get<n.slot>(leaves);
    auto a = build<Source, n.a>(leaves);
    auto b = build<Source, n.b>(leaves);
    using F = std::remove_cvref_t<decltype(m.f)>;
    return expr::map<F, decltype(a), decltype(b)>{m.f, std::tuple{a, b}};
  }
}

}  // namespace detail

/// The expression of the term `Source::value` (Source: `static constexpr term value`,
/// `using expression = E`) over the leaves of `e` (an E).
template <class Source, class E> constexpr auto rebuild(const E& e) {
  return detail::build<Source, Source::value.root>(collect_leaves(e));
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_REBUILD_HPP
