// Defines the encoding of an expression type into an egraph (sum-product form), the list of its
// leaves (the operands the e-graph refers to by slot) and their collection from a value
// (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_ENCODE_HPP
#define LOOM_REWRITE_SATURATION_ENCODE_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/core/index.hpp>
#include <loom/core/unpack.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>
#include <loom/format/levels/level.hpp>
#include <loom/rewrite/constants.hpp>
#include <loom/rewrite/saturation/egraph.hpp>
#include <loom/rewrite/saturation/operands.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace loom::rewrite::saturation {

using boost::mp11::mp_list;

namespace detail {

// leaves<E>: the operands the e-graph names by slot, depth first: accesses, literals, and the
// maps it treats as opaque (their operands follow them).
template <class E> struct leaves {
  using type = mp_list<E>;
};
template <> struct leaves<zero> {
  using type = mp_list<>;
};
template <> struct leaves<one> {
  using type = mp_list<>;
};
template <class L, class R> struct leaves<expr::add<L, R>> {
  using type = boost::mp11::mp_append<typename leaves<L>::type, typename leaves<R>::type>;
};
template <class L, class R> struct leaves<expr::mul<L, R>> : leaves<expr::add<L, R>> {};
template <class I, class B> struct leaves<expr::sum<I, B>> : leaves<B> {};
template <class X> struct leaves<expr::map<fn::negate, X>> : leaves<X> {};
template <class F, class... Xs> struct leaves<expr::map<F, Xs...>> {
  using type = boost::mp11::mp_append<mp_list<expr::map<F, Xs...>>, typename leaves<Xs>::type...>;
};

// modelled<E>: whether every node of E is one the e-graph models (where and expand are not)
template <class E> struct modelled : std::false_type {};
template <class T, class... Is>
struct modelled<expr::access<T, Is...>> : std::bool_constant<(sizeof...(Is) <= 8)> {};
template <class T> struct modelled<expr::literal<T>> : std::true_type {};
template <> struct modelled<zero> : std::true_type {};
template <> struct modelled<one> : std::true_type {};
template <class L, class R>
struct modelled<expr::add<L, R>> : std::bool_constant<modelled<L>::value && modelled<R>::value> {};
template <class L, class R> struct modelled<expr::mul<L, R>> : modelled<expr::add<L, R>> {};
template <class I, class B> struct modelled<expr::sum<I, B>> : modelled<B> {};
template <class F, class X> struct modelled<expr::map<F, X>> : modelled<X> {};
template <class F, class X, class Y>
struct modelled<expr::map<F, X, Y>> : modelled<expr::add<X, Y>> {};

template <class Orig, class I>
inline constexpr std::uint8_t id_of =
    static_cast<std::uint8_t>(boost::mp11::mp_find<Orig, I>::value);

using environment = std::array<std::uint8_t, max_indices>;  // original index id -> current id

template <class Orig, class E> struct encoder;

// The occurrence of operand `source` read at index ids `ids`: found, or added.
template <std::size_t Max, std::size_t N>
constexpr id_t occurrence(egraph<Max>& g, std::size_t source,
                          const std::array<std::uint8_t, N>& ids, bool sparse, bool scalar) {
  leaf_info l;
  l.source = static_cast<std::uint16_t>(source);
  l.order = static_cast<std::uint8_t>(N);
  l.sparse = sparse;
  l.scalar = scalar;
  for (std::size_t m = 0; m < N; ++m) {
    l.ids[m] = ids[m];
    l.mask |= std::uint64_t{1} << ids[m];
  }
  std::size_t k = 0;
  while (k < g.leaf_count && !(g.leaves[k].source == l.source && g.leaves[k].ids == l.ids &&
                               g.leaves[k].order == l.order))
    ++k;
  if (k == max_leaves) {
    g.supported = false;
    return no_id;
  }
  if (k == g.leaf_count) g.leaves[g.leaf_count++] = l;
  return g.add({kind::leaf, 0, no_id, no_id, static_cast<std::uint16_t>(k), 0});
}

template <class Orig, class Tensor, class... Is> struct access_encoder {
  template <std::size_t Max>
  static constexpr id_t run(egraph<Max>& g, const environment& env, std::size_t source) {
    using format = typename std::remove_const_t<Tensor>::format_type;
    const std::array<std::uint8_t, sizeof...(Is)> ids{env[id_of<Orig, Is>]...};
    // a dense level with a static extent fixes the extent of the index on its mode
    std::size_t k = 0;
    boost::mp11::mp_for_each<
        boost::mp11::mp_transform<std::type_identity, typename format::levels>>([&](auto level) {
      constexpr std::size_t e = decltype(level)::type::static_extent;
      if constexpr (e != dynamic_extent)
        g.static_extent[g.original[ids[format::modes[k]]]] = static_cast<double>(e);
      ++k;
    });
    return occurrence(g, source, ids, !format::all_dense, false);
  }
};

template <class Orig, class T, class... Is> struct encoder<Orig, expr::access<T, Is...>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    return access_encoder<Orig, T, Is...>::run(g, env, g.source_count++);
  }
};

template <class Orig, class T> struct encoder<Orig, expr::literal<T>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment&) {
    return occurrence(g, g.source_count++, std::array<std::uint8_t, 0>{}, false, true);
  }
};

// The seed (the sum-product normal form, see saturate.hpp) names its operands by slot.
template <class Orig, std::size_t Slot, class T, class... Is>
struct encoder<Orig, expr::access<slot_tag<Slot, T>, Is...>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    return access_encoder<Orig, T, Is...>::run(g, env, Slot);
  }
};
template <class Orig, std::size_t Slot, class T>
struct encoder<Orig, expr::access<slot_tag<Slot, expr::literal<T>>>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment&) {
    return occurrence(g, Slot, std::array<std::uint8_t, 0>{}, false, true);
  }
};

template <class Orig> struct encoder<Orig, zero> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment&) {
    return g.add_constant(0);
  }
};
template <class Orig> struct encoder<Orig, one> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment&) {
    return g.add_constant(1);
  }
};

template <class Orig, class L, class R> struct encoder<Orig, expr::add<L, R>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const id_t a = encoder<Orig, L>::run(g, env);
    const id_t b = encoder<Orig, R>::run(g, env);
    return g.add({kind::add, 0, a, b, 0, 0});
  }
};

template <class Orig, class L, class R> struct encoder<Orig, expr::mul<L, R>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const id_t a = encoder<Orig, L>::run(g, env);
    const id_t b = encoder<Orig, R>::run(g, env);
    return g.add({kind::mul, 0, a, b, 0, 0});
  }
};

// Every sum binds a fresh index id (the bound name is renamed apart), so moving sums never
// captures a name, even in e * e with the same bound names on both sides.
template <class Orig, class I, class B> struct encoder<Orig, expr::sum<I, B>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    if (!g.other_pending && g.index_count == max_indices) {  // no id left: not modelled
      g.supported = false;
      return no_id;
    }
    // comparing two expressions: bound names are kept, so that alike names meet
    const auto fresh =
        g.other_pending ? id_of<Orig, I> : static_cast<std::uint8_t>(g.index_count++);
    g.original[fresh] = id_of<Orig, I>;
    environment inner = env;
    inner[id_of<Orig, I>] = fresh;
    const id_t a = encoder<Orig, B>::run(g, inner);
    return g.add({kind::sum, fresh, a, no_id, 0, 0});
  }
};

template <class Orig, class X> struct encoder<Orig, expr::map<fn::negate, X>> {  // -x is (-1) * x
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const id_t a = encoder<Orig, X>::run(g, env);
    return g.add({kind::mul, 0, g.add_constant(-1), a, 0, 0});
  }
};

template <class Orig, class F, class X> struct encoder<Orig, expr::map<F, X>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const auto slot = static_cast<std::uint16_t>(g.source_count++);
    const id_t a = encoder<Orig, X>::run(g, env);
    return g.add({kind::opaque1, 0, a, no_id, slot, 0});
  }
};

template <class Orig, class F, class X, class Y> struct encoder<Orig, expr::map<F, X, Y>> {
  template <std::size_t Max> static constexpr id_t run(egraph<Max>& g, const environment& env) {
    const auto slot = static_cast<std::uint16_t>(g.source_count++);
    const id_t a = encoder<Orig, X>::run(g, env);
    const id_t b = encoder<Orig, Y>::run(g, env);
    return g.add({kind::opaque2, 0, a, b, slot, 0});
  }
};

}  // namespace detail

/// The leaf operands of E (see detail::leaves), an MP11 list.
template <class E> using leaves_t = typename detail::leaves<E>::type;

/// The indices of E, free or bound, each once: original index id -> type.
template <class E> using original_indices_t = expr::all_indices_t<E>;

/// The original indices of the e-graph of E seeded with Seed: E's, then the seed's own.
template <class E, class Seed>
using seeded_indices_t = boost::mp11::mp_unique<boost::mp11::mp_append<
    original_indices_t<E>, original_indices_t<std::conditional_t<std::is_void_v<Seed>, E, Seed>>>>;

/// Whether the e-graph models E: only access, literal, +, *, sum and maps of one or two
/// operands, within the leaf and index capacities.
template <class E>
inline constexpr bool encodable_v =
    detail::modelled<E>::value && boost::mp11::mp_size<leaves_t<E>>::value <= max_leaves &&
    boost::mp11::mp_size<original_indices_t<E>>::value +
            boost::mp11::mp_size<expr::summed_indices_t<E>>::value <=
        max_indices;

/// The e-graph of E before any rule: E inserted post-order (shared subterms hash-consed), and,
/// when given, `Seed` (an equivalent expression over tagged_t<E>'s operands) in E's class.
template <class E, std::size_t Max, class Seed = void> constexpr egraph<Max> encode() {
  egraph<Max> g;
  if constexpr (!encodable_v<E>) {
    g.supported = false;
  } else if constexpr (!std::is_void_v<Seed> &&
                       boost::mp11::mp_size<seeded_indices_t<E, Seed>>::value +
                               boost::mp11::mp_size<expr::summed_indices_t<E>>::value >
                           max_indices) {
    return encode<E, Max, void>();  // the seed's renamed indices would not fit: no seed
  } else {
    using orig = seeded_indices_t<E, Seed>;
    g.original_count = g.index_count = boost::mp11::mp_size<orig>::value;
    // indices renamed apart from one name share a base: the name they may take back
    std::array<std::string_view, max_indices> names{};
    std::size_t n = 0;
    boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, orig>>(
        [&](auto idx) { names[n++] = detail::base_index_t<typename decltype(idx)::type>::name; });
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t j = 0;
      while (names[j] != names[k]) ++j;
      g.base[k] = static_cast<std::uint8_t>(j);
    }
    detail::environment env{};
    for (std::size_t k = 0; k < g.original_count; ++k) {
      env[k] = static_cast<std::uint8_t>(k);
      g.original[k] = static_cast<std::uint8_t>(k);
    }
    g.root = detail::encoder<orig, E>::run(g, env);
    g.supported = g.supported && g.root != no_id;
    if constexpr (!std::is_void_v<Seed>) {
      egraph<Max> seeded = g;
      const id_t s = detail::encoder<orig, Seed>::run(seeded, env);
      if (seeded.supported && s != no_id && !seeded.node_limit_hit) {
        seeded.merge(g.root, s);
        seeded.rebuild();
        seeded.root = seeded.find(g.root);
        return seeded;
      }
    }
  }
  return g;
}

/// The e-graph of two expressions over the same operands (accesses of slot_tag tensors name
/// operands across both): `root` is E's class, `other` F's.
template <class E, class F, std::size_t Max> constexpr egraph<Max> encode_pair() {
  egraph<Max> g;
  if constexpr (!encodable_v<E> || !encodable_v<F>) {
    g.supported = false;
  } else {
    using orig = boost::mp11::mp_unique<
        boost::mp11::mp_append<original_indices_t<E>, original_indices_t<F>>>;
    g.original_count = g.index_count = boost::mp11::mp_size<orig>::value;
    detail::environment env{};
    for (std::size_t k = 0; k < g.original_count; ++k) {
      env[k] = static_cast<std::uint8_t>(k);
      g.original[k] = g.base[k] = static_cast<std::uint8_t>(k);
    }
    g.other_pending = true;
    g.root = detail::encoder<orig, E>::run(g, env);
    g.other = detail::encoder<orig, F>::run(g, env);
    g.supported = g.supported && g.root != no_id && g.other != no_id;
  }
  return g;
}

namespace detail {
// declared first: each overload calls the others (no ADL into this namespace)
template <class E> constexpr auto collect(const E& e);
constexpr auto collect(const zero&);
constexpr auto collect(const one&);
template <class L, class R> constexpr auto collect(const expr::add<L, R>& e);
template <class L, class R> constexpr auto collect(const expr::mul<L, R>& e);
template <class I, class B> constexpr auto collect(const expr::sum<I, B>& e);
template <class X> constexpr auto collect(const expr::map<fn::negate, X>& e);
template <class F, class... Xs>
  requires(!std::is_same_v<F, fn::negate> || sizeof...(Xs) != 1)
constexpr auto collect(const expr::map<F, Xs...>& e);

template <class E> constexpr auto collect(const E& e) { return std::tuple<E>{e}; }
constexpr auto collect(const zero&) { return std::tuple<>{}; }
constexpr auto collect(const one&) { return std::tuple<>{}; }
template <class L, class R> constexpr auto collect(const expr::add<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class L, class R> constexpr auto collect(const expr::mul<L, R>& e) {
  return std::tuple_cat(collect(e.lhs), collect(e.rhs));
}
template <class I, class B> constexpr auto collect(const expr::sum<I, B>& e) {
  return collect(e.body);
}
template <class X> constexpr auto collect(const expr::map<fn::negate, X>& e) {
  return collect(std::get<0>(e.args));
}
template <class F, class... Xs>
  requires(!std::is_same_v<F, fn::negate> || sizeof...(Xs) != 1)
constexpr auto collect(const expr::map<F, Xs...>& e) {
  return loom::detail::unpack(
      [&](const auto&... x) { return std::tuple_cat(std::tuple{e}, collect(x)...); }, e.args);
}
}  // namespace detail

/// The leaves of `e` (values: tensor pointers, literal values, map functions) in slot order.
template <class E> constexpr auto collect_leaves(const E& e) { return detail::collect(e); }

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_ENCODE_HPP
