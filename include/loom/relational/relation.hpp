// Defines loom::relational::key_by: a table as a trie-shaped tensor keyed by chosen columns, one
// level per key column, whose value is an aggregate in a semiring (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_RELATION_HPP
#define LOOM_RELATIONAL_RELATION_HPP

#include <loom/format/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/relational/aggregate.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/table.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace loom::relational {

/// The extent a key column needs: the dictionary size of a string column, else max + 1 (at
/// least 1). Joined columns must share an extent: pass `extent_of(a, b, ...)` to both.
inline std::int64_t extent_of(const column& c) {
  if (c.type() == column_type::string) return std::max<std::int64_t>(1, c.dict()->size());
  std::int64_t m = 0;
  for (std::int64_t v : c.ints()) m = std::max(m, v + 1);
  return std::max<std::int64_t>(1, m);
}
template <class... Cs>
  requires(sizeof...(Cs) >= 2)
std::int64_t extent_of(const Cs&... cs) {
  return std::max({extent_of(static_cast<const column&>(cs))...});
}

/// A relation: `table` keyed by the columns `keys` (outermost first), stored in `Format`
/// (default: one compressed level per key, `csf<N>`), with one value per distinct key combining
/// the rows' values by `agg` (`count()`, `exists()`, `sum_of<T>(...)`, `min_of`, `max_of`).
/// Key columns must be integer-like (int64, date, string codes) and non-negative. `shape[k] = 0`
/// asks for `extent_of(column)`.
/// **Example**: `auto L = key_by<csf<2>>(lineitem, {"l_orderkey", "l_suppkey"}, count());`
template <storage_format Format, class Agg>
tensor<typename Agg::value_type, Format> key_by(
    const table& t, const std::array<std::string, Format::order>& keys, const Agg& agg,
    std::array<std::int64_t, Format::order> shape = {}) {
  constexpr std::size_t N = Format::order;
  using V = typename Agg::value_type;
  std::array<std::span<const std::int64_t>, N> key_values;
  for (std::size_t k = 0; k < N; ++k) {
    const column& c = t[keys[k]];
    if (!c.is_integer())
      throw column_error("loom::relational::key_by: key column " + keys[k] + " of " + t.name() +
                         " is decimal; key by an integer, date or string column");
    key_values[k] = c.ints();
    if (shape[k] == 0) shape[k] = extent_of(c);
  }
  const std::size_t n = t.rows();
  std::vector<std::array<std::int64_t, N>> coords(n);
  std::vector<V> values(n);
  const auto value_of = agg.bind(t);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < N; ++k) {
      const std::int64_t v = key_values[k][r];
      if (v < 0 || v >= shape[k])
        throw column_error("loom::relational::key_by: " + t.name() + " row " +
                           std::to_string(r + 1) + ": key " + keys[k] + " = " +
                           std::to_string(v) + " is outside [0, " + std::to_string(shape[k]) +
                           "); keys must be non-negative and below the extent");
      coords[r][k] = v;
    }
    values[r] = value_of(r);
  }
  return from_coo<Format>(shape, coords, values, Agg::policy);
}

/// `key_by` with the default format `csf<N>` (one compressed level per key column).
template <std::size_t N, class Agg>
tensor<typename Agg::value_type, csf<N>> key_by(const table& t,
                                                const std::array<std::string, N>& keys,
                                                const Agg& agg,
                                                std::array<std::int64_t, N> shape = {}) {
  return key_by<csf<N>>(t, keys, agg, shape);
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_RELATION_HPP
