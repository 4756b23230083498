// Defines loom::relational::key_by: a table as a trie-shaped tensor keyed by chosen columns, one
// level per key column, whose value is an aggregate in a semiring (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_RELATION_HPP
#define LOOM_RELATIONAL_RELATION_HPP

#include <loom/core/config.hpp>
#include <loom/core/progress.hpp>
#include <loom/core/unpack.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/relational/aggregate.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/key_levels.hpp>
#include <loom/relational/sorted_keys.hpp>
#include <loom/relational/table.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loom::relational {

/// The extent a key column needs: the dictionary size of a string column, else max + 1 (at
/// least 1). Joined columns must share an extent: pass `extent_of(a, b, ...)` to both.
LOOM_DECL std::int64_t extent_of(const column& c);
namespace detail {
/// Throws `column_error` unless columns `a` and `b` can be joined: the same key type (int64,
/// date or string) and, for strings, the same dictionary (equal codes for equal strings).
LOOM_DECL void check_joinable(const column& a, const column& b);
}  // namespace detail

/// The extent shared by columns to be joined; throws `column_error` when two of them differ in
/// type or (strings) in dictionary.
template <class... Cs>
  requires(sizeof...(Cs) >= 2)
std::int64_t extent_of(const Cs&... cs) {
  const column* first = nullptr;
  for (const column* c : {static_cast<const column*>(&cs)...}) {
    if (first) detail::check_joinable(*first, *c);
    first = c;
  }
  return std::max({extent_of(static_cast<const column&>(cs))...});
}

namespace detail {

/// What `key_by` needs of an aggregate (aggregate.hpp): a value type, a duplicates policy, and
/// `bind(table)` giving the per-row value function.
template <class Agg>
concept row_aggregate = requires(const Agg& agg, const table& t) {
  typename Agg::value_type;
  { Agg::policy } -> std::convertible_to<duplicates>;
  agg.bind(t);
};

/// The key columns of `t` in key order, with `shape[k] = 0` replaced by the column's extent;
/// throws `column_error` for a decimal key.
template <std::size_t N>
std::array<std::span<const std::int64_t>, N> key_columns(const table& t,
                                                         const std::array<std::string, N>& keys,
                                                         std::array<std::int64_t, N>& shape) {
  std::array<std::span<const std::int64_t>, N> key_values;
  for (std::size_t k = 0; k < N; ++k) {
    const column& c = t[keys[k]];
    if (!c.is_key())
      throw column_error("loom::relational::key_by: key column " + keys[k] + " of " + t.name() +
                         " is decimal; key by an integer, date or string column");
    key_values[k] = c.ints();
    if (shape[k] == 0) shape[k] = extent_of(c);
  }
  return key_values;
}

/// Throws `column_error` for the first row (then key) outside its extent.
template <std::size_t N>
void check_key_range(const table& t, const std::array<std::string, N>& keys,
                     const std::array<std::span<const std::int64_t>, N>& key_values,
                     const std::array<std::int64_t, N>& shape) {
  bool in_range = true;
  for (std::size_t k = 0; k < N; ++k) {  // one branch-free pass per column
    std::uint64_t worst = 0;
    const auto extent = static_cast<std::uint64_t>(std::max<std::int64_t>(shape[k], 0));
    for (const std::int64_t v : key_values[k])
      worst = std::max(worst, static_cast<std::uint64_t>(v));  // a negative key counts as huge
    in_range = in_range && (key_values[k].empty() || worst < extent);
  }
  if (in_range) return;
  for (std::size_t r = 0; r < t.rows(); ++r)  // the first offending row, as reported before
    for (std::size_t k = 0; k < N; ++k) {
      const std::int64_t v = key_values[k][r];
      if (v < 0 || v >= shape[k])
        throw column_error("loom::relational::key_by: " + t.name() + " row " +
                           std::to_string(r + 1) + ": key " + keys[k] + " = " + std::to_string(v) +
                           " is outside [0, " + std::to_string(shape[k]) +
                           "); keys must be non-negative and below the extent");
    }
}

/// Thrown by run_values for a repeated key under duplicates::error (logical order); key_by_all
/// turns it into a duplicate_error naming the table and the key columns.
template <std::size_t N> struct duplicate_key {
  std::array<std::int64_t, N> key;
};

/// Aggregates whose every row counts one (count, exists): no per-row values to compute.
template <class Agg> inline constexpr bool counts_rows_v = false;
template <class T> inline constexpr bool counts_rows_v<count<T>> = true;
template <class T> inline constexpr bool counts_rows_v<exists<T>> = true;

/// One value per distinct key: each row's value `value_of(row)` (`agg.bind(table)`), the rows of
/// a run combined by `Agg::policy` in row order. `sorted_at[r]` is the sorted place of row r when
/// the rows were shuffled (else empty).
template <class Format, class Agg, class ValueOf, class Sorted, class Index>
std::vector<typename Agg::value_type> run_values(const ValueOf& value_of, const Sorted& rows,
                                                 const key_runs<Index>& runs,
                                                 std::span<const Index> sorted_at) {
  using V = typename Agg::value_type;
  const std::size_t distinct = runs.distinct();
  if constexpr (Agg::policy == duplicates::error) {
    for (std::size_t u = 0; u < distinct; ++u)
      if (runs.runs[u + 1] - runs.runs[u] > 1) {
        std::array<std::int64_t, Format::order> logical{};
        for (std::size_t k = 0; k < Format::order; ++k)
          logical[Format::modes[k]] = rows.key(k, runs.runs[u]);
        throw duplicate_key<Format::order>{logical};
      }
  }
  if constexpr (counts_rows_v<Agg>) {
    std::vector<V> values(distinct);
    const V one = value_of(0);  // every row's value
    for (std::size_t u = 0; u < distinct; ++u) {
      V v = one;
      if constexpr (Agg::policy == duplicates::sum)
        for (std::size_t e = runs.runs[u] + 1; e < runs.runs[u + 1]; ++e)
          v = semiring_traits<V>::add(v, one);
      values[u] = v;
    }
    return values;
  } else {
    // each row's value in sorted order, then each run folded where it lies; rows shuffled
    // across the table are computed in row order (reading the table in order) and stored at
    // their sorted place: scattered stores cost less than gathered loads
    std::vector<V> sorted(rows.size());
    {
      if (sorted_at.empty())
        for (std::size_t e = 0; e < sorted.size(); ++e) sorted[e] = value_of(rows.row(e));
      else
        for (std::size_t r = 0; r < sorted.size(); ++r) sorted[sorted_at[r]] = value_of(r);
    }
    if (distinct < sorted.size()) {
      for (std::size_t u = 0; u < distinct; ++u) {  // u <= begin: writes trail the reads
        const std::size_t begin = runs.runs[u], end = runs.runs[u + 1];
        if constexpr (Agg::policy == duplicates::sum) {
          V v = sorted[begin];
          for (std::size_t e = begin + 1; e < end; ++e) v = semiring_traits<V>::add(v, sorted[e]);
          sorted[u] = v;
        } else {  // last (under duplicates::error every run has one row)
          sorted[u] = sorted[end - 1];
        }
      }
      sorted.resize(distinct);
      if (distinct < sorted.capacity() / 2) sorted.shrink_to_fit();
    }
    return sorted;
  }
}

/// The values at the levels' positions: as they are when the positions are 0, 1, 2, ...; else
/// each at its position and zero elsewhere (as from_coo places them).
template <class V>
std::vector<V> placed_values(std::vector<V>&& values, std::span<const std::int64_t> position,
                             std::int64_t positions) {
  bool identity = values.size() == static_cast<std::size_t>(positions);
  if (identity && position.empty()) return std::move(values);  // key_levels left it empty
  for (std::size_t u = 0; identity && u < values.size(); ++u)
    identity = position[u] == static_cast<std::int64_t>(u);
  if (identity) return std::move(values);
  std::vector<V> placed(static_cast<std::size_t>(positions), semiring_traits<V>::zero());
  for (std::size_t u = 0; u < values.size(); ++u)
    placed[static_cast<std::size_t>(position[u])] = values[u];
  return placed;
}

template <storage_format Format, class Index, class Sorted, class... Aggs, class... ValueOfs,
          std::size_t... Is>
std::tuple<tensor<typename Aggs::value_type, Format>...> key_by_sorted(
    const Sorted& rows, const std::array<std::int64_t, Format::order>& shape,
    const std::tuple<ValueOfs...>& value_of, std::index_sequence<Is...>,
    loom::detail::progress_reporter& progress, const Aggs&...) {
  progress.advance_to(static_cast<std::int64_t>(rows.size()) / 2);  // sorted
  const key_runs<Index> runs(rows, Format::order);
  std::vector<Index> sorted_at;  // the inverse of the sort, for the aggregates with row values
  if (rows.shuffled() && (!counts_rows_v<Aggs> || ...)) {
    sorted_at.resize(rows.size());
    for (std::size_t e = 0; e < rows.size(); ++e) sorted_at[rows.row(e)] = static_cast<Index>(e);
  }
  // duplicates are merged (and rejected under duplicates::error) before the levels are built
  std::tuple<std::vector<typename Aggs::value_type>...> values{run_values<Format, Aggs>(
      std::get<Is>(value_of), rows, runs, std::span<const Index>(sorted_at))...};
  progress.advance_to(static_cast<std::int64_t>(rows.size()) * 3 / 4);  // aggregated
  using level_storages = typename tensor<double, Format>::level_storages;
  std::vector<std::int64_t> position;
  std::int64_t positions = 0;
  level_storages levels =
      key_levels<Format, level_storages>(shape, rows, runs, position, positions);
  constexpr std::size_t last = sizeof...(Aggs) - 1;
  // braced initialisation runs left to right: the last tensor takes the levels, the others copy
  return {tensor<typename Aggs::value_type, Format>(
      shape, Is == last ? level_storages(std::move(levels)) : level_storages(levels),
      placed_values(std::move(std::get<Is>(values)), position, positions))...};
}

/// Sorts the rows by the keys in storage order (level k holds mode Format::modes[k]), holding
/// the keys as compactly as they fit, then keys by the sorted rows.
template <storage_format Format, class Index, class... Aggs, class... ValueOfs>
std::tuple<tensor<typename Aggs::value_type, Format>...> key_by_index(
    const table& t, const std::array<std::span<const std::int64_t>, Format::order>& cols,
    const std::array<std::int64_t, Format::order>& shape, const std::tuple<ValueOfs...>& value_of,
    loom::detail::progress_reporter& progress, const Aggs&... aggs) {
  constexpr std::size_t N = Format::order;
  std::array<std::span<const std::int64_t>, N> by_level;
  std::array<std::int64_t, N> level_extent{};
  for (std::size_t k = 0; k < N; ++k) {
    by_level[k] = cols[Format::modes[k]];
    level_extent[k] = shape[Format::modes[k]];
  }
  const std::size_t n = t.rows();
  using seq = std::index_sequence_for<Aggs...>;
  switch (packing_for(level_extent, n)) {
    case key_packing::with_row:
      return key_by_sorted<Format, Index>(
          sorted_keys<N, Index, key_packing::with_row>(by_level, level_extent, n), shape, value_of,
          seq{}, progress, aggs...);
    case key_packing::apart:
      return key_by_sorted<Format, Index>(
          sorted_keys<N, Index, key_packing::apart>(by_level, level_extent, n), shape, value_of,
          seq{}, progress, aggs...);
    case key_packing::none:
      break;
  }
  return key_by_sorted<Format, Index>(
      sorted_keys<N, Index, key_packing::none>(by_level, level_extent, n), shape, value_of, seq{},
      progress, aggs...);
}

/// key_by with several aggregates over one sort: the tensors share their pattern. Progress is
/// reported in rows, by pass: a quarter of them once the keys are checked, half once sorted,
/// three quarters once aggregated, all once the levels are built.
template <storage_format Format, class... Aggs>
std::tuple<tensor<typename Aggs::value_type, Format>...> key_by_all(
    const table& t, const std::array<std::string, Format::order>& keys,
    std::array<std::int64_t, Format::order> shape, const Aggs&... aggs) {
  const auto rows = static_cast<std::int64_t>(t.rows());
  loom::detail::progress_reporter progress("keying", t.name(), rows, "rows");
  const auto cols = key_columns(t, keys, shape);
  const std::tuple<decltype(aggs.bind(t))...> value_of{aggs.bind(t)...};  // before the key
  check_key_range(t, keys, cols, shape);                                  // range, as ever
  progress.advance_to(rows / 4);
  for (std::size_t k = 0; k < Format::order; ++k)  // reached by a table of no rows
    if (shape[k] < 0)
      throw shape_error("loom::relational::key_by: " + t.name() + ": extent " +
                        std::to_string(shape[k]) + " of key " + keys[k] + " is negative");
  try {
    auto keyed =
        t.rows() <= std::numeric_limits<std::uint32_t>::max()
            ? key_by_index<Format, std::uint32_t>(t, cols, shape, value_of, progress, aggs...)
            : key_by_index<Format, std::uint64_t>(t, cols, shape, value_of, progress, aggs...);
    progress.finish();
    return keyed;
  } catch (const duplicate_key<Format::order>& d) {
    std::string key;
    for (std::size_t k = 0; k < Format::order; ++k)
      key += (k ? ", " : "") + keys[k] + " = " + std::to_string(d.key[k]);
    throw duplicate_error("loom::relational::key_by: " + t.name() + ": the key " + key +
                          " occurs more than once, and the aggregate takes one row per key "
                          "(duplicates::error); use count(), exists() or a summing aggregate");
  }
}

}  // namespace detail

/// A relation: `table` keyed by the columns `keys` (outermost first), stored in `Format`
/// (default: one compressed level per key, `csf<N>`), with one value per distinct key combining
/// the rows' values by `agg` (`count()`, `exists()`, `sum_of<T>(...)`, `min_of`, `max_of`).
/// Key columns must be integer-like (int64, date, string codes) and non-negative. `shape[k] = 0`
/// asks for `extent_of(column)`. The rows are sorted by a radix sort over the extents, in linear
/// time (sorted_keys.hpp); equal keys combine in row order.
/// **Example**: `auto L = key_by<csf<2>>(lineitem, {"l_orderkey", "l_suppkey"}, count());`
template <storage_format Format, class Agg>
  requires detail::row_aggregate<Agg>
tensor<typename Agg::value_type, Format> key_by(
    const table& t, const std::array<std::string, Format::order>& keys, const Agg& agg,
    std::array<std::int64_t, Format::order> shape = {}) {
  return std::get<0>(detail::key_by_all<Format>(t, keys, shape, agg));
}

/// Several relations keyed alike, one per aggregate, from one sort of the table: equal to keying
/// once per aggregate, and they share their pattern.
/// **Example**: `std::tie(Lrev, Lqty) = key_by<3>(lineitem, keys, std::tuple{revenue, qty});`
template <storage_format Format, class... Aggs>
  requires(sizeof...(Aggs) >= 1 && (detail::row_aggregate<Aggs> && ...))
std::tuple<tensor<typename Aggs::value_type, Format>...> key_by(
    const table& t, const std::array<std::string, Format::order>& keys,
    const std::tuple<Aggs...>& aggs, std::array<std::int64_t, Format::order> shape = {}) {
  return loom::detail::unpack(
      [&](const Aggs&... a) { return detail::key_by_all<Format>(t, keys, shape, a...); }, aggs);
}

/// `key_by` with the default format `csf<N>` (one compressed level per key column).
template <std::size_t N, class Agg>
  requires detail::row_aggregate<Agg>
tensor<typename Agg::value_type, csf<N>> key_by(const table& t,
                                                const std::array<std::string, N>& keys,
                                                const Agg& agg,
                                                std::array<std::int64_t, N> shape = {}) {
  return key_by<csf<N>>(t, keys, agg, shape);
}
template <std::size_t N, class... Aggs>
  requires(sizeof...(Aggs) >= 1 && (detail::row_aggregate<Aggs> && ...))
std::tuple<tensor<typename Aggs::value_type, csf<N>>...> key_by(
    const table& t, const std::array<std::string, N>& keys, const std::tuple<Aggs...>& aggs,
    std::array<std::int64_t, N> shape = {}) {
  return key_by<csf<N>>(t, keys, aggs, shape);
}

#if LOOM_HEADER_ONLY
LOOM_DEF std::int64_t extent_of(const column& c) {
  if (c.type() == column_type::string) return std::max<std::int64_t>(1, c.dict()->size());
  std::int64_t m = 0;
  for (std::int64_t v : c.ints()) m = std::max(m, v + 1);
  return std::max<std::int64_t>(1, m);
}

namespace detail {
LOOM_DEF void check_joinable(const column& a, const column& b) {
  const std::string both = a.name() + " (" + std::string(to_string(a.type())) + ") and " +
                           b.name() + " (" + std::string(to_string(b.type())) + ")";
  if (!a.is_key() || !b.is_key())
    throw column_error("loom::relational::extent_of: cannot join " + both +
                       ": a decimal column is not a key");
  if (a.type() != b.type())
    throw column_error("loom::relational::extent_of: cannot join " + both +
                       ": key columns of different types");
  if (a.type() == column_type::string && a.dict() != b.dict() &&
      a.dict()->words() != b.dict()->words())
    throw column_error("loom::relational::extent_of: cannot join " + both +
                       ": their dictionaries differ, so equal codes are different strings; call "
                       "share_dictionary first");
}
}  // namespace detail
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_RELATION_HPP
