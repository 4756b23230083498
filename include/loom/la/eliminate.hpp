// Defines la's variable elimination over dense factors (la/): a product of dense factors summed
// over some indices, contracted one index at a time in the order the run-time extents make
// cheapest.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_ELIMINATE_HPP
#define LOOM_LA_ELIMINATE_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/elimination.hpp>
#include <loom/core/semiring.hpp>
#include <loom/expr/nodes.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace loom::la::detail {

// ---------------------------------------------------------------------------------------------
// Part 3: variable elimination over dense factors, in the order the run-time extents make cheapest
template <class V> struct dense_factor {
  std::vector<std::size_t> ids;  // index ids, row-major
  std::vector<V> data;
};

template <class V> struct eliminator {
  std::vector<std::int64_t> extent;  // by index id

  // Σ over `drop` of the product of `in`, as a factor over `keep` (in that order).
  dense_factor<V> contract(const std::vector<const dense_factor<V>*>& in,
                           const std::vector<std::size_t>& keep,
                           const std::vector<std::size_t>& drop) const {
    std::vector<std::size_t> loop = keep;
    loom::detail::append_range(loop, drop);
    const std::size_t n = loop.size();
    dense_factor<V> out;
    out.ids = keep;
    std::int64_t out_size = 1;
    for (std::size_t id : keep) out_size *= extent[id];
    out.data.assign(static_cast<std::size_t>(out_size), semiring_traits<V>::zero());
    // strides of every operand and of the output along each loop position
    std::vector<std::vector<std::int64_t>> stride(in.size(), std::vector<std::int64_t>(n, 0));
    for (std::size_t f = 0; f < in.size(); ++f) {
      std::int64_t s = 1;
      for (std::size_t k = in[f]->ids.size(); k-- > 0;) {
        for (std::size_t d = 0; d < n; ++d)
          if (loop[d] == in[f]->ids[k]) stride[f][d] = s;
        s *= extent[in[f]->ids[k]];
      }
    }
    std::vector<std::int64_t> ostride(n, 0);
    {
      std::int64_t s = 1;
      for (std::size_t k = keep.size(); k-- > 0;) {
        ostride[k] = s;
        s *= extent[keep[k]];
      }
    }
    std::int64_t points = 1;
    for (std::size_t id : loop) points *= extent[id];
    if (points == 0) return out;
    std::vector<std::int64_t> count(n, 0), off(in.size(), 0);
    std::int64_t ooff = 0;
    for (std::int64_t p = 0; p < points; ++p) {
      V prod = semiring_traits<V>::one();
      for (std::size_t f = 0; f < in.size(); ++f)
        prod = prod * in[f]->data[static_cast<std::size_t>(off[f])];
      out.data[static_cast<std::size_t>(ooff)] = out.data[static_cast<std::size_t>(ooff)] + prod;
      for (std::size_t d = n; d-- > 0;) {
        ++count[d];
        for (std::size_t f = 0; f < in.size(); ++f) off[f] += stride[f][d];
        ooff += ostride[d];
        if (count[d] < extent[loop[d]]) break;
        for (std::size_t f = 0; f < in.size(); ++f) off[f] -= stride[f][d] * extent[loop[d]];
        ooff -= ostride[d] * extent[loop[d]];
        count[d] = 0;
      }
    }
    return out;
  }

  // Eliminates `summed` greedily: each step the index whose factors span the fewest points
  // (core/elimination.hpp, the rule decompose orders its candidates by).
  dense_factor<V> run(std::vector<dense_factor<V>> factors, const std::vector<std::size_t>& summed,
                      const std::vector<std::size_t>& free, V& coefficient,
                      std::vector<std::string>* steps = nullptr) const {
    if (extent.size() > 64)
      throw error("loom::la: variable elimination takes at most 64 index variables, given " +
                  std::to_string(extent.size()));
    std::vector<loom::detail::id_set> sets;
    for (const auto& f : factors) {
      loom::detail::id_set set = 0;
      for (std::size_t id : f.ids) set |= loom::detail::id_set{1} << id;
      sets.push_back(set);
    }
    std::vector<std::size_t> order(summed.size());
    loom::detail::greedy_elimination(sets.data(), sets.size(), summed.data(), summed.size(),
                                     order.data(), [&](loom::detail::id_set span, std::size_t) {
                                       double points =
                                           span == 0 ? 0.0 : 1.0;  // used by no factor: a count
                                       for (std::size_t id = 0; id < 64; ++id)
                                         if (span >> id & 1u)
                                           points *= static_cast<double>(extent[id]);
                                       return points;
                                     });
    for (const std::size_t s : order) {
      std::vector<const dense_factor<V>*> in;
      std::vector<dense_factor<V>> rest;
      std::vector<std::size_t> keep;
      for (const auto& f : factors) {
        if (std::find(f.ids.begin(), f.ids.end(), s) == f.ids.end()) continue;
        in.push_back(&f);
        for (std::size_t id : f.ids)
          if (id != s && std::find(keep.begin(), keep.end(), id) == keep.end()) keep.push_back(id);
      }
      if (in.empty()) {  // Σ_s x = extent(s) · x
        coefficient = coefficient * static_cast<V>(extent[s]);
        continue;
      }
      dense_factor<V> made = contract(in, keep, {s});
      if (steps)
        steps->push_back("sum over " + std::to_string(s) + " of " + std::to_string(in.size()) +
                         " factors -> " + std::to_string(made.data.size()) + " entries");
      for (auto& f : factors)
        if (std::find(f.ids.begin(), f.ids.end(), s) == f.ids.end()) rest.push_back(std::move(f));
      rest.push_back(std::move(made));
      factors = std::move(rest);
    }
    std::vector<const dense_factor<V>*> in;
    for (const auto& f : factors) in.push_back(&f);
    return contract(in, free, {});
  }
};

template <class V, class Universe, class T, class... Is>
dense_factor<V> load(const expr::access<T, Is...>& a, const std::vector<std::int64_t>& extent) {
  dense_factor<V> f;
  f.ids = {boost::mp11::mp_find<Universe, Is>::value...};
  std::int64_t size = 1;
  for (std::size_t id : f.ids) size *= extent[id];
  f.data.assign(static_cast<std::size_t>(size), semiring_traits<V>::zero());
  a.tensor->for_each_stored([&](const auto& c, const auto& v) {
    std::int64_t off = 0;
    for (std::size_t m = 0; m < f.ids.size(); ++m) off = off * extent[f.ids[m]] + c[m];
    f.data[static_cast<std::size_t>(off)] = static_cast<V>(v);
  });
  return f;
}

}  // namespace loom::la::detail

#endif  // LOOM_LA_ELIMINATE_HPP
