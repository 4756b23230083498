// Defines loom::chain_bound_estimator, the degree-constraint bound (optimize/, notes 001 §5.4).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHAIN_BOUND_ESTIMATOR_HPP
#define LOOM_OPTIMIZE_CHAIN_BOUND_ESTIMATOR_HPP

#include <loom/core/error.hpp>
#include <loom/optimize/degree_constraint.hpp>
#include <loom/optimize/index_extent.hpp>
#include <loom/optimize/statistics.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loom {

/// Sparsity as a set of degree constraints, estimated with the chain bound (Galley's default
/// "DCStats"; notes 001 §5.4). Every estimate is an upper bound on the number of structurally
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
  chain_bound_estimator(index_set indices, std::vector<degree_constraint> dcs,
                        index_set extra_extents = {})
      : indices_(std::move(indices)) {
    detail::check_index_set(indices_, "loom::chain_bound_estimator");
    known_ = detail::index_union(indices_, extra_extents, "loom::chain_bound_estimator");
    for (degree_constraint& dc : dcs) {
      for (const std::vector<std::string>* side : {&dc.given, &dc.bound})
        for (const std::string& n : *side)
          if (!detail::has_index(known_, n))
            throw shape_error("loom::chain_bound_estimator: a degree constraint names index '" + n +
                              "', which has no extent; add it to the index set");
      add_min(key_of(dc.given, dc.bound), dc.degree);
    }
  }
  /// The estimate of a stored tensor: `names[m]` names logical mode m, extents come from `s`.
  chain_bound_estimator(const statistics& s, const std::vector<std::string>& names)
      : chain_bound_estimator(named(s, names), constraints_of(s, names)) {}

  /// A tensor with no fill entry over `indices` (used to broadcast).
  static chain_bound_estimator full(index_set indices) {
    std::vector<degree_constraint> dcs;
    std::vector<std::string> all;
    for (const index_extent& x : indices) all.push_back(x.name);
    dcs.push_back({{}, all, detail::dense_size(indices)});
    for (const index_extent& x : indices) {
      dcs.push_back({{}, {x.name}, static_cast<double>(x.extent)});
      index_set rest = detail::index_filter(indices, {x.name}, false);
      if (!rest.empty()) dcs.push_back({{x.name}, names_of(rest), detail::dense_size(rest)});
    }
    return chain_bound_estimator(std::move(indices), std::move(dcs));
  }

  /// Pointwise op whose fill annihilates it: every operand's constraint still holds.
  static chain_bound_estimator conjunction(std::span<const chain_bound_estimator> args) {
    chain_bound_estimator out;
    for (const chain_bound_estimator& a : args) {
      out.indices_ =
          detail::index_union(out.indices_, a.indices_, "loom::chain_bound_estimator::conjunction");
      out.known_ =
          detail::index_union(out.known_, a.known_, "loom::chain_bound_estimator::conjunction");
      for (const auto& [key, d] : a.dcs_) out.add_min(key, d);
    }
    return out;
  }
  /// Pointwise op whose fill does not annihilate it: degrees add up over the operands.
  static chain_bound_estimator disjunction(std::span<const chain_bound_estimator> args) {
    chain_bound_estimator out;
    for (const chain_bound_estimator& a : args) {
      out.indices_ =
          detail::index_union(out.indices_, a.indices_, "loom::chain_bound_estimator::disjunction");
      out.known_ =
          detail::index_union(out.known_, a.known_, "loom::chain_bound_estimator::disjunction");
    }
    std::vector<std::map<dc_key, double>> extended;
    for (const chain_bound_estimator& a : args) {
      const index_set z = detail::index_filter(out.indices_, names_of(a.indices_), false);
      const std::vector<std::string> zn = names_of(z);
      const double zs = detail::dense_size(z);
      std::map<dc_key, double> e;
      auto put = [&](const dc_key& k, double d) {
        auto [it, inserted] = e.try_emplace(k, d);
        if (!inserted) it->second = std::min(it->second, d);
      };
      for (const auto& [key, d] : a.dcs_) {
        put(key, d);
        if (!z.empty()) put(key_of(key.first, set_union(key.second, zn)), d * zs);
      }
      extended.push_back(std::move(e));
    }
    if (!extended.empty()) {
      for (const auto& [key, d0] : extended.front()) {
        double sum = d0;
        bool everywhere = true;
        for (std::size_t k = 1; k < extended.size() && everywhere; ++k) {
          auto it = extended[k].find(key);
          if (it == extended[k].end())
            everywhere = false;
          else
            sum += it->second;
        }
        if (everywhere) out.dcs_[key] = std::min(sum, out.size_of(key.second));
      }
    }
    return out;
  }
  /// Aggregate over the named indices: the index set shrinks and every constraint is kept.
  chain_bound_estimator aggregate(const std::vector<std::string>& names) const {
    chain_bound_estimator out = *this;
    out.indices_ = detail::index_filter(indices_, names, false);
    return out;
  }

  /// Upper bound on the number of non-fill entries.
  double estimate() const { return estimate_given({}); }
  /// Upper bound on the number of non-fill entries per fixed value of the `given` indices.
  double estimate_given(const std::vector<std::string>& given) const {
    const std::vector<std::string> target = sorted(names_of(indices_));
    const std::vector<std::string> w = sorted(given);
    const double cap = detail::dense_size(detail::index_filter(indices_, given, false));
    if (target.empty()) return 1;
    constexpr double inf = std::numeric_limits<double>::infinity();
    std::map<std::vector<std::string>, double> best{{{}, 1.0}, {w, 1.0}};
    std::vector<std::vector<std::string>> frontier{{}, w};
    auto weight = [&](const std::vector<std::string>& s) {
      auto it = best.find(s);
      return it == best.end() ? inf : it->second;
    };
    while (!frontier.empty()) {
      std::vector<std::vector<std::string>> next;
      for (const std::vector<std::string>& x : frontier) {
        const double wx = best[x];
        for (const auto& [key, d] : dcs_) {
          if (!includes(x, key.first) || includes(x, key.second)) continue;  // no progress
          std::vector<std::string> y = set_union(x, key.second);
          const double wy = wx * d;
          if (wy < std::min(weight(y), weight(target))) {
            best[y] = wy;
            next.push_back(std::move(y));
          }
        }
      }
      frontier = std::move(next);
    }
    double result = cap;
    for (const auto& [x, wx] : best)
      if (includes(x, target)) result = std::min(result, wx);
    return result;
  }
  const index_set& indices() const { return indices_; }
  /// Every constraint (sorted names, one per (X, Y), the tightest kept).
  std::vector<degree_constraint> constraints() const {
    std::vector<degree_constraint> out;
    for (const auto& [key, d] : dcs_) out.push_back({key.first, key.second, d});
    return out;
  }

 private:
  using dc_key = std::pair<std::vector<std::string>, std::vector<std::string>>;

  chain_bound_estimator() = default;

  static std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }
  static std::vector<std::string> set_union(const std::vector<std::string>& a,
                                            const std::vector<std::string>& b) {
    std::vector<std::string> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
  }
  static bool includes(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::includes(a.begin(), a.end(), b.begin(), b.end());
  }
  static std::vector<std::string> names_of(const index_set& s) {
    std::vector<std::string> out;
    for (const index_extent& x : s) out.push_back(x.name);
    return out;
  }
  /// (sorted X, sorted Y \ X)
  static dc_key key_of(std::vector<std::string> x, std::vector<std::string> y) {
    x = sorted(std::move(x));
    y = sorted(std::move(y));
    std::vector<std::string> y_minus_x;
    std::set_difference(y.begin(), y.end(), x.begin(), x.end(), std::back_inserter(y_minus_x));
    return {std::move(x), std::move(y_minus_x)};
  }
  double size_of(const std::vector<std::string>& names) const {
    return detail::dense_size(detail::index_filter(known_, names, true));
  }
  void add_min(const dc_key& key, double d) {
    auto [it, inserted] = dcs_.try_emplace(key, d);
    if (!inserted) it->second = std::min(it->second, d);
  }
  static index_set named(const statistics& s, const std::vector<std::string>& names) {
    if (names.size() != s.shape.size())
      throw shape_error("loom::chain_bound_estimator: " + std::to_string(names.size()) +
                        " index names for a tensor of order " + std::to_string(s.shape.size()));
    index_set out;
    for (std::size_t m = 0; m < names.size(); ++m) out.push_back({names[m], s.shape[m]});
    return out;
  }
  static std::vector<degree_constraint> constraints_of(const statistics& s,
                                                       const std::vector<std::string>& names) {
    std::vector<degree_constraint> dcs;
    if (names.size() != s.shape.size()) return dcs;  // `named` throws first
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

  index_set indices_;
  index_set known_;  // indices_ plus aggregated ones still named by constraints
  std::map<dc_key, double> dcs_;
};

}  // namespace loom

#endif  // LOOM_OPTIMIZE_CHAIN_BOUND_ESTIMATOR_HPP
