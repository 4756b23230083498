// Generated inputs of the peer comparison: uniform, power-law and banded matrices and graphs with
// fixed seeds (splitmix64 from runtime/support.hpp, so every run and every system sees the same
// entries), on top of the generators of the runtime suite.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_PEERS_INPUTS_HPP
#define LOOM_BENCHMARKS_PEERS_INPUTS_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../runtime/support.hpp"

namespace loom_peers {

namespace lb = loom_bench;

/// Sorts row-major, merges duplicates (keeping the first value).
inline void sort_unique(lb::entries<2>& e) {
  std::vector<std::size_t> order(e.crd.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return e.crd[a] < e.crd[b]; });
  lb::entries<2> s;
  s.shape = e.shape;
  s.crd.reserve(order.size());
  s.val.reserve(order.size());
  for (std::size_t k : order)
    if (s.crd.empty() || s.crd.back() != e.crd[k]) {
      s.crd.push_back(e.crd[k]);
      s.val.push_back(e.val[k]);
    }
  e = std::move(s);
}

/// Sampling from Chung-Lu weights w(v) = (v + 1)^(-exponent): a few heavy rows and columns.
class power_law_sampler {
 public:
  power_law_sampler(std::int64_t n, double exponent) : cdf_(static_cast<std::size_t>(n)) {
    double total = 0;
    for (std::int64_t v = 0; v < n; ++v)
      cdf_[static_cast<std::size_t>(v)] = total += std::pow(static_cast<double>(v + 1), -exponent);
    total_ = total;
  }
  std::int64_t operator()(lb::rng& g) const {
    const double x = (g.value() - 0.5) * total_;
    const auto v = std::lower_bound(cdf_.begin(), cdf_.end(), x) - cdf_.begin();
    return std::min<std::int64_t>(v, static_cast<std::int64_t>(cdf_.size()) - 1);
  }

 private:
  std::vector<double> cdf_;
  double total_ = 0;
};

/// An n x n matrix with about `nnz` entries whose row and column degrees follow a power law
/// (both ends drawn from weights (v + 1)^-0.6); vertex ids are scrambled so that the heavy rows
/// are spread over the matrix, as in real graphs.
inline lb::entries<2> power_law_matrix(std::int64_t n, std::int64_t nnz, std::uint64_t seed) {
  lb::rng g(seed);
  power_law_sampler pick(n, 0.6);
  // a fixed permutation of the vertices (multiplicative hash, odd multiplier coprime with n not
  // needed: a Fisher-Yates shuffle with the same generator)
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) perm[static_cast<std::size_t>(v)] = v;
  for (std::int64_t v = n - 1; v > 0; --v)
    std::swap(perm[static_cast<std::size_t>(v)], perm[static_cast<std::size_t>(g.below(v + 1))]);
  // coordinates as one sortable key each; the values are drawn afterwards, in sorted order
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(nnz));
  for (auto& k : keys)
    k = static_cast<std::uint64_t>(perm[static_cast<std::size_t>(pick(g))]) *
            static_cast<std::uint64_t>(n) +
        static_cast<std::uint64_t>(perm[static_cast<std::size_t>(pick(g))]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  lb::entries<2> e;
  e.shape = {n, n};
  e.crd.reserve(keys.size());
  e.val.reserve(keys.size());
  for (std::uint64_t k : keys) {
    e.crd.push_back({static_cast<std::int64_t>(k / static_cast<std::uint64_t>(n)),
                     static_cast<std::int64_t>(k % static_cast<std::uint64_t>(n))});
    e.val.push_back(g.value());
  }
  return e;
}

/// An n x n matrix with `per_row` entries per row (fewer at the borders) placed uniformly within
/// |i - j| <= half_width.
inline lb::entries<2> banded_matrix(std::int64_t n, std::int64_t half_width, std::int64_t per_row,
                                    std::uint64_t seed) {
  lb::rng g(seed);
  lb::entries<2> e;
  e.shape = {n, n};
  e.crd.reserve(static_cast<std::size_t>(n * per_row));
  e.val.reserve(static_cast<std::size_t>(n * per_row));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t lo = std::max<std::int64_t>(0, r - half_width);
    const std::int64_t hi = std::min<std::int64_t>(n, r + half_width + 1);
    for (std::int64_t c : lb::distinct_sorted(g, hi - lo, std::min(per_row, hi - lo))) {
      e.crd.push_back({r, lo + c});
      e.val.push_back(g.value());
    }
  }
  return e;
}

/// The symmetric 0/1 pattern without self loops (the graph of a matrix).
inline lb::entries<2> symmetric_pattern(const lb::entries<2>& e) {
  lb::entries<2> s;
  const std::int64_t n = std::max(e.shape[0], e.shape[1]);
  s.shape = {n, n};
  s.crd.reserve(2 * e.crd.size());
  for (const auto& c : e.crd)
    if (c[0] != c[1]) {
      s.crd.push_back({c[0], c[1]});
      s.crd.push_back({c[1], c[0]});
    }
  std::sort(s.crd.begin(), s.crd.end());
  s.crd.erase(std::unique(s.crd.begin(), s.crd.end()), s.crd.end());
  s.val.assign(s.crd.size(), 1.0);
  return s;
}

/// The transpose's entries, sorted row-major.
inline lb::entries<2> transposed(const lb::entries<2>& e) {
  lb::entries<2> t;
  t.shape = {e.shape[1], e.shape[0]};
  t.crd.reserve(e.crd.size());
  for (const auto& c : e.crd) t.crd.push_back({c[1], c[0]});
  t.val = e.val;
  sort_unique(t);
  return t;
}

}  // namespace loom_peers

#endif  // LOOM_BENCHMARKS_PEERS_INPUTS_HPP
