// Defines the static cost (SPORES Figure 12: estimated output size from per-leaf densities and
// per-index extents), the scenarios it is evaluated under, the extracted term, and greedy
// extraction of the cheapest term of a class (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_EXTRACT_HPP
#define LOOM_REWRITE_SATURATION_EXTRACT_HPP

#include <loom/core/config.hpp>
#include <loom/rewrite/saturation/egraph.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace loom::rewrite::saturation {

inline constexpr double infinite_cost = 1e300;

/// What the cost reads: the extent of every original index and the density (nnz / size) of
/// every leaf. At compile time from the formats (static extents, sparsity classes); at run time
/// from the tensors.
struct scenario {
  std::array<double, max_indices> extent{};
  std::array<double, max_leaves> density{};
};

/// The index and leaf facts a term needs on its own (for its cost and for rebuilding).
struct signature {
  std::array<leaf_info, max_leaves> leaves{};
  std::size_t leaf_count = 0;
  std::array<std::uint8_t, max_indices> original{};
  std::array<double, max_indices> static_extent{};
  std::size_t original_count = 0;
  std::array<std::uint8_t, max_indices> base{};
};

/// An extracted expression: a tree of operators in post-order (children before parents).
struct term {
  std::array<enode, limits::saturation_term> nodes{};
  std::size_t size = 0;
  id_t root = no_id;
  bool overflow = false;
  signature sig{};

  constexpr bool same_tree(const term& o, id_t x, id_t y) const {
    const enode& p = nodes[x];
    const enode& q = o.nodes[y];
    if (p.k != q.k || p.index != q.index || p.slot != q.slot || p.value != q.value) return false;
    if (p.a != no_id && !same_tree(o, p.a, q.a)) return false;
    if (p.b != no_id && !same_tree(o, p.b, q.b)) return false;
    return true;
  }
  friend constexpr bool operator==(const term& x, const term& y) {
    return x.root != no_id && y.root != no_id && x.same_tree(y, x.root, y.root);
  }
};

template <std::size_t Max> constexpr signature signature_of(const egraph<Max>& g) {
  return {g.leaves, g.leaf_count, g.original, g.static_extent, g.original_count, g.base};
}

/// The scenario the static choice uses: static extents where the formats give them, otherwise
/// limits::saturation_extent; dense leaves density 1, sparse leaves
/// limits::saturation_density. `sparse_density` and `extent_of` vary it for alternatives.
constexpr scenario default_scenario(const signature& s,
                                    double sparse_density = limits::saturation_density,
                                    double dense_only_extent = 0, double sparse_extent = 0) {
  scenario sc;
  std::uint64_t in_sparse = 0;
  for (std::size_t l = 0; l < s.leaf_count; ++l)
    if (s.leaves[l].sparse)
      for (std::size_t m = 0; m < s.leaves[l].order; ++m)
        in_sparse |= std::uint64_t{1} << s.original[s.leaves[l].ids[m]];
  for (std::size_t k = 0; k < s.original_count; ++k) {
    double e = limits::saturation_extent;
    if (dense_only_extent > 0) e = ((in_sparse >> k) & 1u) ? sparse_extent : dense_only_extent;
    sc.extent[k] = s.static_extent[k] > 0 ? s.static_extent[k] : e;
  }
  for (std::size_t l = 0; l < s.leaf_count; ++l)
    sc.density[l] = s.leaves[l].sparse ? sparse_density : 1.0;
  return sc;
}

namespace detail {
constexpr double min(double x, double y) { return x < y ? x : y; }

// density of one operator from its operands' (Figure 12): * keeps the sparser, + adds, a sum
// multiplies by the extent; opaque functions may map 0 elsewhere: dense
constexpr double density(const enode& n, double da, double db, const scenario& sc,
                         const signature& s) {
  switch (n.k) {
    case kind::leaf:
      return sc.density[n.slot];
    case kind::constant:
      return 1;
    case kind::mul:
      return min(da, db);
    case kind::add:
      return min(1, da + db);
    case kind::sum:
      return min(1, sc.extent[s.original[n.index]] * da);
    default:
      return 1;
  }
}
constexpr double size(std::uint64_t free, double d, const scenario& sc, const signature& s) {
  for (; free != 0; free &= free - 1) d *= sc.extent[s.original[std::countr_zero(free)]];
  return d;
}
// what an operator costs on its own: the entries it produces (a constant costs nothing)
constexpr double own_cost(const enode& n, double size) { return n.k == kind::constant ? 0 : size; }
}  // namespace detail

/// The cost of a term under a scenario: the summed estimated output sizes of its operators.
constexpr double cost(const term& t, const scenario& sc) {
  std::array<double, limits::saturation_term> d{};
  std::array<std::uint64_t, limits::saturation_term> free{};
  double total = 0;
  for (std::size_t k = 0; k < t.size; ++k) {  // post-order: operands first
    const enode& n = t.nodes[k];
    const double da = n.a != no_id ? d[n.a] : 1, db = n.b != no_id ? d[n.b] : 1;
    const std::uint64_t fa = n.a != no_id ? free[n.a] : 0, fb = n.b != no_id ? free[n.b] : 0;
    d[k] = detail::density(n, da, db, sc, t.sig);
    free[k] = n.k == kind::leaf  ? t.sig.leaves[n.slot].mask
              : n.k == kind::sum ? fa & ~(std::uint64_t{1} << n.index)
                                 : fa | fb;
    total += detail::own_cost(n, detail::size(free[k], d[k], sc, t.sig));
  }
  return total;
}

namespace detail {
template <std::size_t Max> struct extractor {
  const egraph<Max>& g;
  const scenario& sc;
  signature sig;
  std::array<double, Max> dens{};
  std::array<double, Max> best{};
  std::array<id_t, Max> choice{};
  std::size_t passes_ = 0;

  std::array<enode, Max> canon{};  // each node with its operands' representatives
  std::array<id_t, Max> rep{};

  constexpr void canonicalise() {
    for (std::size_t c = 0; c < g.size; ++c) {
      canon[c] = g.canonical(g.nodes[c]);
      rep[c] = g.find(static_cast<id_t>(c));
    }
  }

  constexpr void densities() {
    for (auto& x : dens) x = 2;  // above any density: not yet known
    for (bool changed = true; changed && passes_++ < Max;) {
      changed = false;
      for (std::size_t c = 0; c < g.size; ++c) {
        const enode& n = canon[c];
        const double da = n.a != no_id ? dens[n.a] : 1, db = n.b != no_id ? dens[n.b] : 1;
        if (da > 1 || db > 1) continue;
        const double x = density(n, da, db, sc, sig);
        if (x < dens[rep[c]]) {  // the tighter estimate wins (SPORES)
          dens[rep[c]] = x;
          changed = true;
        }
      }
    }
  }

  constexpr void costs() {
    for (auto& x : best) x = infinite_cost;
    for (auto& x : choice) x = no_id;
    std::array<double, Max> own{};
    for (std::size_t c = 0; c < g.size; ++c)
      if (c == rep[c]) own[c] = size(g.free[c], dens[c], sc, sig);
    passes_ = 0;
    for (bool changed = true; changed && passes_++ < Max;) {
      changed = false;
      for (std::size_t c = 0; c < g.size; ++c) {
        if (g.dead[c]) continue;
        const enode& n = canon[c];
        const double ca = n.a != no_id ? best[n.a] : 0, cb = n.b != no_id ? best[n.b] : 0;
        if (ca >= infinite_cost || cb >= infinite_cost) continue;
        const id_t r = rep[c];
        const double x = own_cost(n, own[r]) + ca + cb;
        if (x < best[r]) {
          best[r] = x;
          choice[r] = static_cast<id_t>(c);
          changed = true;
        }
      }
    }
  }

  constexpr id_t emit(term& t, id_t c) const {
    enode n = g.canonical(g.nodes[choice[g.find(c)]]);
    if (n.a != no_id) n.a = emit(t, n.a);
    if (n.b != no_id) n.b = emit(t, n.b);
    if (t.overflow || t.size == t.nodes.size()) {
      t.overflow = true;
      return 0;
    }
    t.nodes[t.size] = n;
    return static_cast<id_t>(t.size++);
  }
};
}  // namespace detail

/// The cheapest term of the root class under `sc` (greedy: the cheapest node of each class).
template <std::size_t Max> constexpr term extract(const egraph<Max>& g, const scenario& sc) {
  term t;
  t.sig = signature_of(g);
  if (!g.supported) return t;
  detail::extractor<Max> x{g, sc, t.sig};
  x.canonicalise();
  x.densities();
  x.costs();
  t.root = x.emit(t, g.root);
  if (t.overflow) t.root = no_id;
  return t;
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_EXTRACT_HPP
