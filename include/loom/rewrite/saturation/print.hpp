// Defines the constexpr text of an extracted term, for static_asserts and explain:
// leaves as `#slot(i,j)`, renamed binders as `k_07`, constants as integers when they are
// (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_PRINT_HPP
#define LOOM_REWRITE_SATURATION_PRINT_HPP

#include <loom/rewrite/saturation/extract.hpp>
#include <loom/rewrite/saturation/rebuild.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <string_view>

namespace loom::rewrite::saturation {

/// A fixed-capacity constexpr string.
struct text {
  std::array<char, 2048> chars{};
  std::size_t size = 0;
  constexpr void put(std::string_view s) {
    for (char c : s)
      if (size < chars.size()) chars[size++] = c;
  }
  constexpr void put(long long v) {
    if (v < 0) {
      put("-");
      v = -v;
    }
    char digits[24]{};
    std::size_t n = 0;
    do digits[n++] = static_cast<char>('0' + v % 10);
    while ((v /= 10) > 0);
    while (n > 0) put(std::string_view(&digits[--n], 1));
  }
  constexpr std::string_view view() const { return {chars.data(), size}; }
};

namespace detail {
struct printer {
  const term& t;
  std::array<std::string_view, max_indices> names{};

  constexpr void index(text& out, std::uint8_t id) const {
    out.put(names[t.sig.base[t.sig.original[id]]]);
    if (id >= t.sig.original_count && !keeps_name(t, id)) {
      out.put("_");
      out.put(static_cast<long long>(id));
    }
  }
  constexpr void node(text& out, id_t k) const {
    const enode& n = t.nodes[k];
    switch (n.k) {
      case kind::leaf: {
        const leaf_info& l = t.sig.leaves[n.slot];
        out.put("#");
        out.put(static_cast<long long>(l.source));
        if (l.scalar) return;
        out.put("(");
        for (std::size_t m = 0; m < l.order; ++m) {
          if (m > 0) out.put(",");
          index(out, l.ids[m]);
        }
        out.put(")");
        return;
      }
      case kind::constant:
        if (n.value == static_cast<double>(static_cast<long long>(n.value)))
          out.put(static_cast<long long>(n.value));
        else
          out.put("c");
        return;
      case kind::add:
      case kind::mul:
        out.put("(");
        node(out, n.a);
        out.put(n.k == kind::add ? " + " : " * ");
        node(out, n.b);
        out.put(")");
        return;
      case kind::sum:
        out.put("sum(");
        index(out, n.index);
        out.put(", ");
        node(out, n.a);
        out.put(")");
        return;
      default:
        out.put("f#");
        out.put(static_cast<long long>(n.slot));
        out.put("(");
        node(out, n.a);
        if (n.k == kind::opaque2) {
          out.put(", ");
          node(out, n.b);
        }
        out.put(")");
        return;
    }
  }
};
}  // namespace detail

/// The text of `t`, index names taken from Indices (original index id -> type).
template <class Indices> constexpr text print(const term& t) {
  detail::printer p{t};
  std::size_t k = 0;
  boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, Indices>>(
      [&](auto idx) { p.names[k++] = detail::base_index_t<typename decltype(idx)::type>::name; });
  text out;
  if (t.root != no_id) p.node(out, t.root);
  return out;
}

/// The text of alternative K of a saturation_result R.
template <class R, std::size_t K = 0> constexpr text print_alternative() {
  return print<typename R::indices>(R::template candidate<R::pick.first[K]>);
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_PRINT_HPP
