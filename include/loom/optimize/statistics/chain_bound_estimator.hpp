// Defines loom::chain_bound_estimator, the degree-constraint bound of Galley
// (optimize/statistics/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_STATISTICS_CHAIN_BOUND_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_STATISTICS_CHAIN_BOUND_ESTIMATOR_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/optimize/statistics/degree_constraint.hpp>
#include <loom/optimize/statistics/index_extent.hpp>
#include <loom/optimize/statistics/statistics.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loom {

/// Sparsity as a set of degree constraints, estimated with the chain bound (Galley's default
/// "DCStats"; Galley). Every estimate is an upper bound on the number of structurally
/// possible non-fills (cancellation ignored):
/// - constructor: `(∅,{x}, distinct x)` and `({x}, others, max degree of x)` per mode, plus
///   `(∅, all, nnz)`; a vector keeps `(∅,{i}, distinct i)`;
/// - conjunction: union of the operands' DCs, keeping the minimum per (X, Y);
/// - disjunction: extend each operand's DCs to the output indices Z it lacks,
///   `(X, Y ∪ Z, d * |Z|)`; keep the (X, Y) present in every operand, summed; cap at `|Y|`;
/// - aggregate: keep every DC, shrink the index set (the estimate takes the minimum over
///   supersets of the target, which is sound because projection never adds tuples);
/// - estimate: the cheapest product of degrees along a path of DCs from ∅ to a superset of the
///   index set (breadth-first search), capped at the product of extents.
///
/// Index names must be unique across an expression: an aggregated index keeps its DCs, so
/// reusing its name for a different index afterwards would mix two indices (rename first, as
/// Galley's `unique_indices` pass does). Tensors of order >= 5 get the single-mode DCs only (Galley
/// enumerates every subset there); the bound stays sound, only looser.
class chain_bound_estimator {
 public:
  /// An estimate from explicit constraints over `indices`; the names in `dcs` may also include
  /// indices outside `indices` if their extents appear in `extra_extents`.
  LOOM_DECL chain_bound_estimator(index_set indices, std::vector<degree_constraint> dcs,
                                  index_set extra_extents = {});
  /// The estimate of a stored tensor: `names[m]` names logical mode m, extents come from `s`.
  chain_bound_estimator(const statistics& s, const std::vector<std::string>& names)
      : chain_bound_estimator(detail::named_modes(s.shape, names, "loom::chain_bound_estimator"),
                              constraints_of(s, names)) {}

  /// A tensor with no fill entry over `indices` (used to broadcast).
  LOOM_DECL static chain_bound_estimator full(index_set indices);

  /// Pointwise op whose fill annihilates it: every operand's constraint still holds.
  LOOM_DECL static chain_bound_estimator conjunction(std::span<const chain_bound_estimator> args);
  /// Pointwise op whose fill does not annihilate it: degrees add up over the operands.
  LOOM_DECL static chain_bound_estimator disjunction(std::span<const chain_bound_estimator> args);
  /// Aggregate over the named indices: the index set shrinks and every constraint is kept.
  chain_bound_estimator aggregate(const std::vector<std::string>& names) const {
    chain_bound_estimator out = *this;
    out.indices_ = detail::index_filter(indices_, names, false);
    return out;
  }

  /// Upper bound on the number of non-fill entries.
  double estimate() const { return estimate_given({}); }
  /// Upper bound on the number of non-fill entries per fixed value of the `given` indices: the
  /// cheapest product of degrees along a path of constraints from ∅ (or the given indices) to a
  /// superset of the index set, relaxed breadth first.
  LOOM_DECL double estimate_given(const std::vector<std::string>& given) const;
  const index_set& indices() const { return indices_; }
  /// Every constraint (sorted names, one per (X, Y), the tightest kept), ordered by names.
  LOOM_DECL std::vector<degree_constraint> constraints() const;

 private:
  // Index sets are bit masks over known_ (bit k: known_[k]): sets of strings cost every
  // translation unit that plans a kernel seconds of compile time, masks a few instructions.
  using mask = std::uint64_t;
  struct dc_key {
    mask given = 0, bound = 0;  // bound excludes given
    friend bool operator==(const dc_key&, const dc_key&) = default;
  };
  struct constraint {
    dc_key key;
    double degree = 0;
  };

  chain_bound_estimator() = default;

  LOOM_DECL static void check_known_count(std::size_t n);
  LOOM_DECL static chain_bound_estimator merged_indices(std::span<const chain_bound_estimator> args,
                                                        const char* who);
  int bit_of(const std::string& name) const {
    for (std::size_t k = 0; k < known_.size(); ++k)
      if (known_[k].name == name) return static_cast<int>(k);
    return -1;
  }
  LOOM_DECL mask mask_of(const std::vector<std::string>& names) const;
  mask mask_of_set(const index_set& s) const {
    mask m = 0;
    for (const index_extent& x : s)
      if (const int b = bit_of(x.name); b >= 0) m |= mask{1} << b;
    return m;
  }
  /// this estimator's bit of each of `other`'s known indices
  std::vector<int> bits_of(const index_set& other) const {
    std::vector<int> to;
    to.reserve(other.size());
    for (const index_extent& x : other) to.push_back(bit_of(x.name));
    return to;
  }
  static mask remap(mask m, const std::vector<int>& to) {
    mask out = 0;
    for (std::size_t k = 0; m != 0; ++k, m >>= 1)
      if ((m & 1) != 0) out |= mask{1} << to[k];
    return out;
  }
  LOOM_DECL std::vector<std::string> names_of(mask m) const;
  static dc_key key_of(mask given, mask bound) { return {given, bound & ~given}; }
  double size_of(mask m) const {
    double p = 1;
    for (std::size_t k = 0; k < known_.size(); ++k)
      if ((m >> k & 1) != 0) p *= static_cast<double>(known_[k].extent);
    return p;
  }
  const constraint* find(const dc_key& k) const {
    for (const constraint& c : dcs_)
      if (c.key == k) return &c;
    return nullptr;
  }
  void add_min(const dc_key& k, double d) {
    for (constraint& c : dcs_)
      if (c.key == k) {
        c.degree = std::min(c.degree, d);
        return;
      }
    dcs_.push_back({k, d});
  }
  LOOM_DECL static std::vector<degree_constraint> constraints_of(
      const statistics& s, const std::vector<std::string>& names);

  index_set indices_;
  index_set known_;  // indices_ plus aggregated ones still named by constraints; bit k is known_[k]
  std::vector<constraint> dcs_;  // one per key, the tightest degree
};

#if LOOM_HEADER_ONLY
LOOM_DEF void chain_bound_estimator::check_known_count(std::size_t n) {
  if (n > 64)
    throw shape_error("loom::chain_bound_estimator: " + std::to_string(n) +
                      " indices; an estimate ranges over at most 64");
}

LOOM_DEF chain_bound_estimator::chain_bound_estimator(index_set indices,
                                                      std::vector<degree_constraint> dcs,
                                                      index_set extra_extents)
    : indices_(std::move(indices)) {
  detail::check_index_set(indices_, "loom::chain_bound_estimator");
  known_ = detail::index_union(indices_, extra_extents, "loom::chain_bound_estimator");
  check_known_count(known_.size());
  for (const degree_constraint& dc : dcs)
    add_min(key_of(mask_of(dc.given), mask_of(dc.bound)), dc.degree);
}

LOOM_DEF chain_bound_estimator chain_bound_estimator::full(index_set indices) {
  chain_bound_estimator out(std::move(indices), {});
  const std::size_t n = out.known_.size();
  const mask all = n == 64 ? ~mask{0} : (mask{1} << n) - 1;
  out.add_min({0, all}, out.size_of(all));
  for (std::size_t k = 0; k < n; ++k) {
    out.add_min({0, mask{1} << k}, static_cast<double>(out.known_[k].extent));
    if (const mask rest = all & ~(mask{1} << k); rest != 0)
      out.add_min({mask{1} << k, rest}, out.size_of(rest));
  }
  return out;
}

LOOM_DEF chain_bound_estimator
chain_bound_estimator::conjunction(std::span<const chain_bound_estimator> args) {
  chain_bound_estimator out = merged_indices(args, "loom::chain_bound_estimator::conjunction");
  for (const chain_bound_estimator& a : args) {
    const std::vector<int> to = out.bits_of(a.known_);
    for (const constraint& c : a.dcs_)
      out.add_min({remap(c.key.given, to), remap(c.key.bound, to)}, c.degree);
  }
  return out;
}

LOOM_DEF chain_bound_estimator
chain_bound_estimator::disjunction(std::span<const chain_bound_estimator> args) {
  chain_bound_estimator out = merged_indices(args, "loom::chain_bound_estimator::disjunction");
  const mask all_indices = out.mask_of_set(out.indices_);
  // each operand's constraints over the output's bits, extended to the indices Z it lacks:
  // (X, Y ∪ Z, d·|Z|); the tightest per key
  std::vector<chain_bound_estimator> extended;
  extended.reserve(args.size());
  for (const chain_bound_estimator& a : args) {
    const std::vector<int> to = out.bits_of(a.known_);
    const mask z = all_indices & ~out.mask_of_set(a.indices_);
    const double zs = out.size_of(z);
    chain_bound_estimator e;
    for (const constraint& c : a.dcs_) {
      const dc_key k{remap(c.key.given, to), remap(c.key.bound, to)};
      e.add_min(k, c.degree);
      if (z != 0) e.add_min(key_of(k.given, k.bound | z), c.degree * zs);
    }
    extended.push_back(std::move(e));
  }
  // the keys present in every operand, degrees summed, capped at the bound's size
  if (!extended.empty()) {
    for (const constraint& c : extended.front().dcs_) {
      double sum = c.degree;
      bool everywhere = true;
      for (std::size_t k = 1; k < extended.size() && everywhere; ++k) {
        const constraint* other = extended[k].find(c.key);
        everywhere = other != nullptr;
        if (everywhere) sum += other->degree;
      }
      if (everywhere) out.dcs_.push_back({c.key, std::min(sum, out.size_of(c.key.bound))});
    }
  }
  return out;
}

LOOM_DEF double chain_bound_estimator::estimate_given(const std::vector<std::string>& given) const {
  const mask target = mask_of_set(indices_);
  const double cap = detail::dense_size(detail::index_filter(indices_, given, false));
  if (target == 0) return 1;
  mask w = 0;
  for (const std::string& name : given)
    if (const int b = bit_of(name); b >= 0) w |= mask{1} << b;
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<mask, double>> best{{0, 1.0}};  // reached sets, cheapest weight
  auto slot = [&](mask x) -> double* {
    for (auto& [y, wy] : best)
      if (y == x) return &wy;
    return nullptr;
  };
  auto weight = [&](mask x) {
    const double* p = slot(x);
    return p == nullptr ? inf : *p;
  };
  if (w != 0) best.push_back({w, 1.0});
  std::vector<mask> frontier{0}, next;
  if (w != 0) frontier.push_back(w);
  while (!frontier.empty()) {
    next.clear();
    for (const mask x : frontier) {
      const double wx = weight(x);
      for (const constraint& c : dcs_) {
        if ((c.key.given & ~x) != 0 || (c.key.bound & ~x) == 0) continue;  // no progress
        const mask y = x | c.key.bound;
        const double wy = wx * c.degree;
        if (wy < std::min(weight(y), weight(target))) {
          if (double* p = slot(y))
            *p = wy;
          else
            best.push_back({y, wy});
          next.push_back(y);
        }
      }
    }
    frontier.swap(next);
  }
  double result = cap;
  for (const auto& [x, wx] : best)
    if ((target & ~x) == 0) result = std::min(result, wx);
  return result;
}

LOOM_DEF std::vector<degree_constraint> chain_bound_estimator::constraints() const {
  std::vector<degree_constraint> out;
  for (const constraint& c : dcs_)
    out.push_back({names_of(c.key.given), names_of(c.key.bound), c.degree});
  // a generic comparison: compiled only where constraints() is
  detail::sort_range(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.given, a.bound) < std::tie(b.given, b.bound);
  });
  return out;
}

LOOM_DEF chain_bound_estimator chain_bound_estimator::merged_indices(
    std::span<const chain_bound_estimator> args, const char* who) {
  chain_bound_estimator out;
  for (const chain_bound_estimator& a : args) {
    out.indices_ = detail::index_union(out.indices_, a.indices_, who);
    out.known_ = detail::index_union(out.known_, a.known_, who);
  }
  check_known_count(out.known_.size());
  return out;
}

LOOM_DEF chain_bound_estimator::mask chain_bound_estimator::mask_of(
    const std::vector<std::string>& names) const {
  mask m = 0;
  for (const std::string& name : names) {
    const int b = bit_of(name);
    if (b < 0)
      throw shape_error("loom::chain_bound_estimator: a degree constraint names index '" + name +
                        "', which has no extent; add it to the index set");
    m |= mask{1} << b;
  }
  return m;
}

LOOM_DEF std::vector<std::string> chain_bound_estimator::names_of(mask m) const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < known_.size(); ++k)
    if ((m >> k & 1) != 0) out.push_back(known_[k].name);
  detail::sort_range(out.begin(), out.end());
  return out;
}

LOOM_DEF std::vector<degree_constraint> chain_bound_estimator::constraints_of(
    const statistics& s, const std::vector<std::string>& names) {
  std::vector<degree_constraint> dcs;
  if (names.size() != s.shape.size()) return dcs;  // `named_modes` throws first
  if (names.size() == 1) {
    dcs.push_back({{}, names, static_cast<double>(s.distinct[0])});
    return dcs;
  }
  for (std::size_t m = 0; m < names.size(); ++m) {
    std::vector<std::string> rest;
    for (std::size_t o = 0; o < names.size(); ++o)
      if (o != m) rest.push_back(names[o]);
    dcs.push_back({{}, {names[m]}, static_cast<double>(s.distinct[m])});
    dcs.push_back({{names[m]}, rest, static_cast<double>(s.max_degree[m])});
  }
  if (!names.empty()) dcs.push_back({{}, names, static_cast<double>(s.nnz)});
  return dcs;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom

#endif  // LOOM_OPTIMIZE_STATISTICS_CHAIN_BOUND_ESTIMATOR_HPP
