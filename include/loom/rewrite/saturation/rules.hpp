// Defines one saturation iteration over an egraph: every SPORES rule (SPORES)
// matched against the nodes present at the start of the iteration, then the congruence rebuild
// (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_RULES_HPP
#define LOOM_REWRITE_SATURATION_RULES_HPP

#include <loom/core/config.hpp>
#include <loom/rewrite/saturation/egraph.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace loom::rewrite::saturation {

// The rules, as equations between classes (a, b, c classes; i an index):
//   commute       a * b = b * a                 a + b = b + a
//   associate     (a * b) * c = a * (b * c)     (a + b) + c = a + (b + c)       (both ways)
//   distribute    a * (b + c) = a * b + a * c   factor: a * b + a * c = a * (b + c)
//   push / pull   sum(i, a * b) = a * sum(i, b)                        if i not in a
//   split / join  sum(i, a + b) = sum(i, a) + sum(i, b)                if i in a and in b
//   swap          sum(i, sum(j, a)) = sum(j, sum(i, a))
//   constants     a + a = 2 * a;  c1 * c2 = c;  1 * a = a;  c1 * a + c2 * a = (c1 + c2) * a
// Rule 5 (a sum over an absent index is a product by the extent) is left out: the evaluator
// would need the extent of an index no operand carries.

namespace detail {

template <std::size_t Max> struct matcher {
  egraph<Max>& g;
  std::array<id_t, Max> head{};  // first node of each class (by representative)
  std::array<id_t, Max> next{};
  std::size_t limit = 0;  // nodes present when the iteration started
  std::size_t ac_budget = Max / 8;
  std::size_t work_budget = limits::saturation_work;
  std::size_t work = 0;  // member visits and rule applications: bounds one constant evaluation
  bool changed = false;
  bool partial = false;  // the work bound stopped the iteration before every node was matched

  constexpr void index_classes() {
    for (auto& h : head) h = no_id;
    limit = g.size;
    for (std::size_t n = limit; n-- > 0;) {
      if (g.dead[n]) continue;
      const id_t c = g.find(static_cast<id_t>(n));
      next[n] = head[c];
      head[c] = static_cast<id_t>(n);
    }
  }

  constexpr id_t node(kind k, id_t a, id_t b, std::uint8_t index = 0) {
    if (a == no_id || b == no_id) return no_id;
    return g.add({k, index, a, (k == kind::sum ? no_id : b), 0, 0});
  }
  constexpr id_t mul(id_t a, id_t b) { return node(kind::mul, a, b); }
  constexpr id_t plus(id_t a, id_t b) { return node(kind::add, a, b); }
  constexpr id_t sum(std::uint8_t i, id_t a) { return node(kind::sum, a, a, i); }

  constexpr void equate(id_t c, id_t d) {
    ++work;
    if (d != no_id) changed = g.merge(c, d) || changed;
  }
  constexpr bool uses(id_t c, std::uint8_t i) const {
    return ((g.free[g.find(c)] | g.bound[g.find(c)]) >> i) & 1u;
  }
  constexpr bool has_free(id_t c, std::uint8_t i) const { return (g.free[g.find(c)] >> i) & 1u; }

  // the members of class c (as it was indexed) of kind k
  template <class F> constexpr void each(id_t c, kind k, F&& f) {
    c = g.find(c);
    if (c >= limit) return;
    for (id_t m = head[c]; m != no_id; m = next[m]) {
      ++work;
      if (g.nodes[m].k == k) f(g.nodes[m]);
    }
  }

  // commutativity and associativity: what enables the other rules, and what grows the graph
  // fastest; run after them, each iteration at most `ac_budget` new nodes (SPORES)
  constexpr void ac_mul(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    each(a, kind::mul, [&](const enode& s) {  // (x * y) * b = x * (y * b)
      equate(self, mul(s.a, mul(s.b, b)));
    });
    each(b, kind::mul, [&](const enode& s) {  // a * (x * y) = (a * x) * y
      equate(self, mul(mul(a, s.a), s.b));
    });
    equate(self, mul(b, a));
  }
  constexpr void ac_add(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    each(a, kind::add, [&](const enode& s) { equate(self, plus(s.a, plus(s.b, b))); });
    each(b, kind::add, [&](const enode& s) { equate(self, plus(plus(a, s.a), s.b)); });
    equate(self, plus(b, a));
  }

  constexpr void at_mul(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    // constants: folded, and the unit dropped
    if (g.is_constant[g.find(a)] && g.is_constant[g.find(b)])
      equate(self, g.add_constant(g.constant[g.find(a)] * g.constant[g.find(b)]));
    if (g.is_constant[g.find(a)] && g.constant[g.find(a)] == 1.0) equate(self, b);
    each(b, kind::sum, [&](const enode& s) {  // pull: a * sum(i, x) = sum(i, a * x)
      if (!uses(a, s.index)) equate(self, sum(s.index, mul(a, s.a)));
    });
    each(b, kind::add, [&](const enode& s) {  // distribute
      equate(self, plus(mul(a, s.a), mul(a, s.b)));
    });
  }

  constexpr void at_add(id_t self, const enode& n) {
    const id_t a = n.a, b = n.b;
    if (g.find(a) == g.find(b)) equate(self, mul(g.add_constant(2), a));
    if (g.is_constant[g.find(a)] && g.is_constant[g.find(b)])
      equate(self, g.add_constant(g.constant[g.find(a)] + g.constant[g.find(b)]));
    each(a, kind::mul, [&](const enode& x) {  // factor: p * q + p * r = p * (q + r)
      each(b, kind::mul, [&](const enode& y) {
        if (g.find(x.a) == g.find(y.a)) equate(self, mul(x.a, plus(x.b, y.b)));
      });
    });
    each(a, kind::sum, [&](const enode& x) {  // join: sum(i, p) + sum(i, q) = sum(i, p + q)
      each(b, kind::sum, [&](const enode& y) {
        if (x.index == y.index) equate(self, sum(x.index, plus(x.a, y.a)));
      });
    });
  }

  constexpr void at_sum(id_t self, const enode& n) {
    const std::uint8_t i = n.index;
    each(n.a, kind::mul, [&](const enode& s) {  // push: sum(i, p * q) = p * sum(i, q)
      if (!has_free(s.a, i)) equate(self, mul(s.a, sum(i, s.b)));
    });
    each(n.a, kind::add, [&](const enode& s) {  // split
      if (has_free(s.a, i) && has_free(s.b, i)) equate(self, plus(sum(i, s.a), sum(i, s.b)));
    });
    each(n.a, kind::sum, [&](const enode& s) {  // swap
      equate(self, sum(s.index, sum(i, s.a)));
    });
  }

  // Matching starts where the previous iteration's work bound stopped it (round robin), so
  // that no node starves when an iteration cannot visit them all.
  constexpr void run() {
    index_classes();
    const std::size_t start = g.cursor < limit ? g.cursor : 0;
    std::size_t t = 0;
    for (; t < limit && !g.node_limit_hit && work < work_budget; ++t) {
      const std::size_t c = (start + t) % limit;
      if (g.dead[c]) continue;
      const enode n = g.nodes[c];
      const id_t self = static_cast<id_t>(c);
      if (n.k == kind::mul)
        at_mul(self, n);
      else if (n.k == kind::add)
        at_add(self, n);
      else if (n.k == kind::sum)
        at_sum(self, n);
    }
    partial = t < limit;
    g.cursor = (start + t) % limit;
    const std::size_t budget = g.size + ac_budget;
    const std::size_t ac_work = work + work_budget / 2;
    const std::size_t ac_start = g.ac_cursor < limit ? g.ac_cursor : 0;
    std::size_t u = 0;
    for (; u < limit && !g.node_limit_hit && g.size < budget && work < ac_work; ++u) {
      const std::size_t c = (ac_start + u) % limit;
      if (g.dead[c]) continue;
      const enode n = g.nodes[c];
      if (n.k == kind::mul)
        ac_mul(static_cast<id_t>(c), n);
      else if (n.k == kind::add)
        ac_add(static_cast<id_t>(c), n);
    }
    partial = partial || u < limit;
    g.ac_cursor = (ac_start + u) % limit;
    if (work > g.max_work) g.max_work = work;
    changed = changed || g.size != limit;
  }
};

}  // namespace detail

/// Half an iteration, alternately: every rule at the nodes present (`matched`), then the
/// congruence rebuild, which marks `saturated` when the matching changed nothing. Two constants
/// per iteration, so each has the compiler's whole evaluation budget.
template <std::size_t Max> constexpr egraph<Max> step(egraph<Max> g) {
  if (g.saturated || !g.supported) return g;
  if (!g.matched) {
    if (g.node_limit_hit) return g;
    detail::matcher<Max> m{g};
    m.run();
    g.matched = true;
    g.changed = m.changed || m.partial;
  } else {
    g.rebuild();
    g.matched = false;
    if (g.changed)
      ++g.iterations;
    else
      g.saturated = true;
  }
  return g;
}

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_RULES_HPP
