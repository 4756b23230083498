// Defines the choice of a sparse output's workspace kind (dense, hashed, sorted) from the
// estimated writes, entries and rows of a plan, cached per plan by a coarse statistics
// signature (optimize/choice/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_OPTIMIZE_CHOICE_WORKSPACE_CHOICE_HPP
#define LOOM_OPTIMIZE_CHOICE_WORKSPACE_CHOICE_HPP

#include <loom/core/config.hpp>
#include <loom/core/debug.hpp>
#include <loom/expr/visit.hpp>
#include <loom/format/assembly/workspace_storage.hpp>
#include <loom/optimize/choice/plan_choice.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace loom::optimize {

/// What a workspace will hold, estimated from statistics for one loop order.
struct workspace_estimate {
  double rows = 1;     // workspace rows: distinct values of the output levels the outer loops fix
  double writes = 0;   // values written into the workspace (before duplicates are added)
  double entries = 0;  // distinct output entries
  double cells = 0;    // cells of one row's space (product of the other levels' extents)
  double value_bytes = 8;
};

/// Per-operation costs of the three workspaces, in nanoseconds beyond the loop that produces
/// the writes, fitted on the 2-core machine of BENCHMARKS.md (benchmarks/runtime/workspace.cpp):
/// zeroing a byte of a row space (fresh pages past `fresh_bytes`, which the allocator maps anew
/// on every call), a write that hits the cache, the extra per array of one that misses the
/// second-level or the last-level cache, hashing a key, appending a pair, a comparison of a sort
/// of keys and of a (stable) sort of pairs, a key and a pair moved by one radix-sort pass, and
/// appending an output entry.
struct workspace_constants {
  double zero_byte = 0.1;
  double zero_fresh_byte = 0.4;
  double fresh_bytes = 32.0 * (1 << 20);
  double write_hit = 1.0;
  double l2_miss = 15.0;
  double l3_miss = 45.0;
  double l2_bytes = 2.0 * (1 << 20);
  double l3_bytes = 16.0 * (1 << 20);
  double line_bytes = 64;
  double hash = 5.0;
  double append = 1.5;
  double compare_keys = 1.5;
  double compare_pairs = 3.0;
  double radix_key = 5.0;  // per key and pass of a radix sort
  double radix_pair = 8.0;
  double emit = 3.0;
};

/// The three costs, in the order of loom::workspace_kinds, and the cheapest.
struct workspace_choice {
  workspace_kind kind = workspace_kind::dense;
  std::array<double, 3> cost{};
  workspace_estimate estimate{};
  /// the estimated entries of one row: the hash table starts at twice this
  std::int64_t row_entries() const {
    const double per_row = estimate.entries / std::max(1.0, estimate.rows);
    return static_cast<std::int64_t>(std::min(per_row, double(std::int64_t{1} << 24)));
  }
};

namespace detail {
// the extra cost of a random access into `bytes` of one array
LOOM_DECL double miss_cost(double bytes, const workspace_constants& c);
// sorting n keys (or pairs) spread over `rows` rows, keys below `bound`: an LSD radix sort per
// row of stream::detail::radix_sort_min or more, a comparison sort below (workspace_storage.hpp)
LOOM_DECL double sort_cost(double n, double rows, double bound, bool pairs,
                           const workspace_constants& c);
}  // namespace detail

/// Costs each workspace kind for `e` and picks the cheapest.
/// - dense: the row space (values and a flag byte per cell) is zeroed once; an entry's first
///   write per row touches the whole space at random, its repeats only the row's entries; the
///   touched keys are sorted per row.
/// - hashed: every write hashes and probes a table of twice the row's entries (keys and values);
///   the row's entries are sorted as pairs.
/// - sorted: every write is appended; the row's writes are sorted (stable) and merged.
/// A row of 512 sorted items or more is radix sorted (linear), a shorter one compared.
LOOM_DECL workspace_choice choose_workspace(const workspace_estimate& e,
                                            const workspace_constants& c = {});

/// The workspace estimate of plan P (its loop order and output prefix) for `lhs = rhs`.
template <class P, class Lhs, class Rhs>
workspace_estimate estimate_workspace(const Lhs& lhs, const Rhs& rhs, statistics_cache& stats) {
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  const loop_order_query q = describe(lhs, rhs, stats);
  std::vector<std::string> order;
  boost::mp11::mp_for_each<typename P::order>(
      [&](auto idx) { order.emplace_back(decltype(idx)::name); });
  std::size_t last_free = 0;  // the writes happen below the deepest output index
  for (std::size_t d = 0; d < order.size(); ++d)
    if (std::find(q.output.begin(), q.output.end(), order[d]) != q.output.end()) last_free = d;
  workspace_estimate e;
  e.value_bytes = sizeof(typename out_t::value_type);
  e.writes =
      q.iterations({order.begin(), order.begin() + static_cast<std::ptrdiff_t>(last_free + 1)});
  e.entries = q.iterations(q.output);
  const std::vector<std::string> fixed(
      q.output.begin(), q.output.begin() + static_cast<std::ptrdiff_t>(P::output_prefix));
  e.rows = fixed.empty() ? 1.0 : q.iterations(fixed);
  e.cells = 1;
  for (std::size_t level = P::output_prefix; level < out_t::order; ++level)
    e.cells *= static_cast<double>(lhs.tensor->extent(out_t::format_type::modes[level]));
  return e;
}

/// One line for `explain` and the plan log: the chosen kind, the estimate and every cost.
LOOM_DECL std::string describe_workspace_choice(const workspace_choice& w);

namespace detail {
template <class P> struct workspace_purpose {};
}  // namespace detail

/// The workspace of plan P for `lhs = rhs`: remembered per version of the operands (the
/// signature `statistics_cache` checks: every array's address and size) and output extents,
/// else estimated from their statistics. Not the plans' coarse signature: two inputs of the same
/// magnitudes can want different kinds (few or many distinct keys among the same writes: a hash
/// table or a sort, each much faster than the other; docs/optimizer.md), and telling them apart
/// needs their statistics. `loom::scoped_workspace` overrides it.
template <class P, class Lhs, class Rhs>
workspace_choice cached_workspace_choice(const Lhs& lhs, const Rhs& rhs) {
  if (loom::detail::forced_workspace) {
    workspace_choice forced;
    forced.kind = *loom::detail::forced_workspace;
    return forced;
  }
  struct cache {
    std::map<std::vector<std::uintptr_t>, workspace_choice> chosen;
    statistics_cache stats;
  };
  thread_local cache c;
  thread_local std::vector<std::uintptr_t> key;  // reused: a cache hit allocates nothing
  key.clear();
  expr::for_each_access(
      rhs, [&](const auto& a, std::size_t) { statistics_cache::append_signature(key, *a.tensor); });
  using out_t = std::remove_const_t<std::remove_pointer_t<decltype(lhs.tensor)>>;
  for (std::size_t m = 0; m < out_t::order; ++m)
    key.push_back(static_cast<std::uintptr_t>(lhs.tensor->extent(m)));
  if (const auto it = c.chosen.find(key); it != c.chosen.end()) return it->second;
  if (c.chosen.size() >= 256) {  // bounded: a choice is cheap to make again
    c.chosen.clear();
    c.stats.clear();
  }
  const workspace_choice w = choose_workspace(estimate_workspace<P>(lhs, rhs, c.stats));
  if (loom::debug_plan())
    loom::detail::debug_line({"loom: output written through a ", describe_workspace_choice(w)});
  c.chosen.emplace(key, w);
  return w;
}

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF double miss_cost(double bytes, const workspace_constants& c) {
  auto beyond = [&](double cache) { return bytes <= cache ? 0.0 : 1.0 - cache / bytes; };
  return beyond(c.l2_bytes) * c.l2_miss + beyond(c.l3_bytes) * c.l3_miss;
}

LOOM_DEF double sort_cost(double n, double rows, double bound, bool pairs,
                          const workspace_constants& c) {
  const double per_row = std::max(2.0, n / std::max(1.0, rows));
  const int passes = stream::detail::radix_passes(static_cast<std::int64_t>(
      std::min(bound, double(std::numeric_limits<std::int64_t>::max() / 2))));
  if (per_row >= double(stream::detail::radix_sort_min) && passes <= 4)
    return n * passes * (pairs ? c.radix_pair : c.radix_key);
  return n * std::log2(per_row) * (pairs ? c.compare_pairs : c.compare_keys);
}
}  // namespace detail

LOOM_DEF workspace_choice choose_workspace(const workspace_estimate& e,
                                           const workspace_constants& c) {
  using detail::miss_cost;
  workspace_choice out;
  out.estimate = e;
  const double per_row = e.entries / std::max(1.0, e.rows);
  const double repeats = std::max(0.0, e.writes - e.entries);
  const double dense_bytes = e.cells * (e.value_bytes + 1);
  const double row_bytes = std::min(dense_bytes, per_row * 2 * c.line_bytes);  // a row's lines
  const double table_bytes = 2 * per_row * (e.value_bytes + 8);
  const double emit = e.entries * c.emit;
  out.cost[0] =
      e.cells > static_cast<double>(stream::max_dense_workspace_cells)
          ? std::numeric_limits<double>::infinity()
          : dense_bytes * (dense_bytes > c.fresh_bytes ? c.zero_fresh_byte : c.zero_byte) +
                e.writes * c.write_hit + e.entries * 2 * miss_cost(dense_bytes, c) +
                repeats * 2 * miss_cost(row_bytes, c) +
                detail::sort_cost(e.entries, e.rows, e.cells, false, c) + emit;
  out.cost[1] = e.writes * (c.hash + c.write_hit + 2 * miss_cost(table_bytes, c)) +
                e.entries * c.append + detail::sort_cost(e.entries, e.rows, e.cells, true, c) +
                emit;
  out.cost[2] = e.writes * c.append + detail::sort_cost(e.writes, e.rows, e.cells, true, c) + emit;
  std::size_t best = 0;
  for (std::size_t k = 1; k < 3; ++k)
    if (out.cost[k] < out.cost[best]) best = k;
  out.kind = workspace_kinds[best];
  return out;
}

LOOM_DEF std::string describe_workspace_choice(const workspace_choice& w) {
  std::ostringstream s;
  s.precision(3);
  s << workspace_kind_name(w.kind) << " workspace (estimated " << w.estimate.writes << " writes, "
    << w.estimate.entries << " entries in " << w.estimate.rows << " rows of " << w.estimate.cells
    << " cells; cost";
  for (std::size_t k = 0; k < 3; ++k)
    s << " " << workspace_kind_name(workspace_kinds[k]) << " " << w.cost[k];
  s << ")";
  return s.str();
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::optimize

#endif  // LOOM_OPTIMIZE_CHOICE_WORKSPACE_CHOICE_HPP
