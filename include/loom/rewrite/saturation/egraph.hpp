// Defines loom::rewrite::saturation::egraph: an e-graph in fixed-capacity arrays, usable in
// constant evaluation: hash-consed nodes, e-classes as a union-find, the class analyses the
// SPORES rules read (free indices, bound indices, constant value) (rewrite/saturation/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_EGRAPH_HPP
#define LOOM_REWRITE_SATURATION_EGRAPH_HPP

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace loom::rewrite::saturation {

/// Node kinds of the sum-product form: a leaf (tensor access or literal, by slot), a constant
/// the rules made (-1, 2, folded products), +, *, a sum over one index, and an opaque pointwise
/// function of one or two operands (a map other than negation: saturation works below it).
enum class kind : std::uint8_t { leaf, constant, add, mul, sum, opaque1, opaque2 };

using id_t = std::uint16_t;
inline constexpr id_t no_id = 0xffff;
inline constexpr std::size_t max_leaves = 48;   // leaf occurrences: operand and index ids
inline constexpr std::size_t max_indices = 64;  // original indices plus one per sum (a bit mask)

/// One operator: its kind, its sum index, its operand classes, its leaf slot, its constant.
struct enode {
  kind k = kind::leaf;
  std::uint8_t index = 0;
  id_t a = no_id;
  id_t b = no_id;
  std::uint16_t slot = 0;
  double value = 0;
  friend constexpr bool operator==(const enode&, const enode&) = default;
};

/// A leaf occurrence: which operand of the expression (`source`, its slot in leaves_t), its
/// index ids (in the access's order), its free indices, and its sparsity class (a format with a
/// compressed level, or a scalar).
struct leaf_info {
  std::uint16_t source = 0;
  std::array<std::uint8_t, 8> ids{};
  std::uint8_t order = 0;
  std::uint64_t mask = 0;
  bool sparse = false;
  bool scalar = false;
};

/// An e-graph of at most Max nodes. Class ids are node ids (a class is named by its first node);
/// `find` gives the representative.
template <std::size_t Max> struct egraph {
  static constexpr std::size_t capacity = Max;
  static constexpr std::size_t table_size = 2 * Max + 1;

  std::array<enode, Max> nodes{};
  std::array<bool, Max> dead{};  // a duplicate found by congruence: skipped by matching
  std::array<id_t, Max> parent{};
  std::array<std::uint64_t, Max> free{};   // class analysis: free indices (a class invariant)
  std::array<std::uint64_t, Max> bound{};  // union of the indices summed inside the class
  std::array<bool, Max> is_constant{};
  std::array<double, Max> constant{};
  std::array<id_t, table_size> table{};  // hash-consing: open addressing over node ids
  std::size_t size = 0;

  std::array<leaf_info, max_leaves> leaves{};
  std::size_t leaf_count = 0;                        // occurrences
  std::size_t source_count = 0;                      // operands
  std::array<std::uint8_t, max_indices> original{};  // index id -> original index id
  std::array<double, max_indices> static_extent{};   // 0: known only at run time
  std::array<std::uint8_t, max_indices> base{};      // original id -> first original of its name
  std::size_t original_count = 0;
  std::size_t index_count = 0;

  id_t root = no_id;
  id_t other = no_id;          // a second root, when two expressions are compared
  bool other_pending = false;  // encoding a pair: sums keep their names
  std::size_t iterations = 0;
  std::size_t cursor = 0;  // where the next iteration starts matching (see rules.hpp)
  std::size_t ac_cursor = 0;
  std::size_t max_work = 0;  // the most matching work one iteration did
  bool matched = false;      // between the two halves of an iteration (see rules.hpp)
  bool changed = false;
  bool node_limit_hit = false;
  bool saturated = false;
  bool supported = true;  // false: the expression holds a node the encoder does not model

  constexpr egraph() {
    for (auto& t : table) t = no_id;
  }

  constexpr id_t find(id_t c) const {
    while (parent[c] != c) c = parent[c];
    return c;
  }

  constexpr enode canonical(enode n) const {
    if (n.a != no_id) n.a = find(n.a);
    if (n.b != no_id) n.b = find(n.b);
    return n;
  }

  static constexpr std::size_t hash(const enode& n) {
    std::uint64_t h = static_cast<std::uint64_t>(n.k) * 0x9e3779b97f4a7c15ull;
    h ^= n.index + 0x7f4a7c15ull + (h << 6) + (h >> 2);
    h ^= n.a + 0x51ed27ull + (h << 6) + (h >> 2);
    h ^= n.b + 0x2545f491ull + (h << 6) + (h >> 2);
    h ^= n.slot + (h << 6) + (h >> 2);
    h ^= std::bit_cast<std::uint64_t>(n.value) + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h % table_size);
  }

  /// The slot of `n` (canonical) in the table: its node, or an empty slot.
  constexpr std::size_t probe(const enode& n) const {
    std::size_t s = hash(n);
    while (table[s] != no_id && canonical(nodes[table[s]]) != n) s = (s + 1) % table_size;
    return s;
  }

  constexpr std::uint64_t free_of(const enode& n) const {
    switch (n.k) {
      case kind::leaf:
        return leaves[n.slot].mask;
      case kind::constant:
        return 0;
      case kind::sum:
        return free[n.a] & ~(std::uint64_t{1} << n.index);
      case kind::opaque1:
        return free[n.a];
      default:
        return free[n.a] | free[n.b];
    }
  }
  constexpr std::uint64_t bound_of(const enode& n) const {
    switch (n.k) {
      case kind::leaf:
      case kind::constant:
        return 0;
      case kind::sum:
        return bound[n.a] | (std::uint64_t{1} << n.index);
      case kind::opaque1:
        return bound[n.a];
      default:
        return bound[n.a] | bound[n.b];
    }
  }

  /// The class of `n`, added if no equal node exists; `no_id` once the node limit is reached.
  constexpr id_t add(enode n) {
    n = canonical(n);
    const std::size_t s = probe(n);
    if (table[s] != no_id) return find(table[s]);
    if (size == Max) {
      node_limit_hit = true;
      return no_id;
    }
    const id_t c = static_cast<id_t>(size++);
    nodes[c] = n;
    parent[c] = c;
    free[c] = free_of(n);
    bound[c] = bound_of(n);
    is_constant[c] = n.k == kind::constant;
    constant[c] = n.value;
    if (n.k == kind::mul && is_constant[n.a] && is_constant[n.b]) {
      is_constant[c] = true;
      constant[c] = constant[n.a] * constant[n.b];
    }
    table[s] = c;
    return c;
  }

  constexpr id_t add_constant(double v) { return add({kind::constant, 0, no_id, no_id, 0, v}); }

  /// Merges two classes; false when they already were one.
  constexpr bool merge(id_t x, id_t y) {
    x = find(x);
    y = find(y);
    if (x == y) return false;
    if (y < x) {
      const id_t t = x;
      x = y;
      y = t;
    }
    parent[y] = x;
    bound[x] |= bound[y];
    if (!is_constant[x] && is_constant[y]) {
      is_constant[x] = true;
      constant[x] = constant[y];
    }
    return true;
  }

  /// Restores the congruence invariant after merges: nodes whose canonical forms coincide are
  /// one node, so their classes merge (repeated until nothing changes).
  constexpr void rebuild() {
    bool merged = true;
    while (merged) {
      merged = false;
      for (auto& t : table) t = no_id;
      for (std::size_t c = 0; c < size; ++c) {
        if (dead[c]) continue;
        const enode n = canonical(nodes[c]);
        const std::size_t s = probe(n);
        if (table[s] == no_id) {
          table[s] = static_cast<id_t>(c);
        } else {
          dead[c] = true;
          merged = merge(table[s], static_cast<id_t>(c)) || merged;
        }
      }
    }
    for (std::size_t c = 0; c < size; ++c) parent[c] = find(parent[c]);  // flat: find is one step
  }

  /// Number of e-classes (live representatives).
  constexpr std::size_t class_count() const {
    std::size_t k = 0;
    for (std::size_t c = 0; c < size; ++c) k += parent[c] == c ? 1 : 0;
    return k;
  }
};

}  // namespace loom::rewrite::saturation

#endif  // LOOM_REWRITE_SATURATION_EGRAPH_HPP
