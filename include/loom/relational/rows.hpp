// Defines the way back from tensors to rows: entries as (keys, value) rows and as a table with
// typed, decoded key columns (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_ROWS_HPP
#define LOOM_RELATIONAL_ROWS_HPP

#include <loom/core/config.hpp>
#include <loom/core/semiring.hpp>
#include <loom/format/tensor.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/table.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::relational {

/// One result row: the key of each mode (logical order) and the value.
template <class T, std::size_t N> struct row {
  std::array<std::int64_t, N> keys;
  T value;
  friend bool operator==(const row&, const row&) = default;
};

/// The stored entries of `a` whose value is not the semiring's zero (a dense output's padding is
/// not a row), in storage order.
template <class T, storage_format Format, bool Owning>
std::vector<row<T, Format::order>> to_rows(const basic_tensor<T, Format, Owning>& a) {
  std::vector<row<T, Format::order>> rows;
  a.for_each_stored([&](const auto& c, const T& v) {
    if (!(v == semiring_traits<T>::zero())) rows.push_back({c, v});
  });
  return rows;
}

/// How a result key is shown: a name and the column it came from (for its type and dictionary).
struct key_column {
  std::string name;
  column_type type = column_type::int64;
  std::shared_ptr<const dictionary> dict = nullptr;

  key_column(std::string n, column_type t = column_type::int64,
             std::shared_ptr<const dictionary> d = nullptr)
      : name(std::move(n)), type(t), dict(std::move(d)) {}
  /// Named and typed like `c` (a string key decodes through c's dictionary).
  key_column(const column& c) : key_column(c.name(), c.type(), c.dict()) {}  // NOLINT: implicit
  key_column(const char* n) : key_column(std::string(n)) {}                  // NOLINT: implicit
};

namespace detail {
template <class T> auto plain_value(const T& v) {
  if constexpr (requires { v.value; })
    return v.value;  // min_plus, max_plus, boolean, ...
  else
    return v;
}
}  // namespace detail

/// The result as a table: one column per key (typed and decoded as `keys[k]` says), then the
/// value column `value_name` (int64 for integer values, decimal otherwise).
/// **Example**: `to_table(revenue, {nation["n_name"]}, "revenue").write_csv(std::cout);`
template <class T, storage_format Format, bool Owning>
table to_table(const basic_tensor<T, Format, Owning>& a,
               const std::array<key_column, Format::order>& keys, const std::string& value_name) {
  constexpr std::size_t N = Format::order;
  const auto rows = to_rows(a);
  table t(a.name().empty() ? "result" : a.name());
  for (std::size_t k = 0; k < N; ++k) {
    std::vector<std::int64_t> v;
    v.reserve(rows.size());
    for (const auto& r : rows) v.push_back(r.keys[k]);
    const key_column& kc = keys[k];
    if (kc.type == column_type::decimal || kc.type == column_type::fixed)
      throw column_error("loom::relational::to_table: key " + kc.name + " cannot be decimal");
    if (kc.type == column_type::string && kc.dict)
      for (std::int64_t code : v)
        if (code >= kc.dict->size())
          throw column_error("loom::relational::to_table: key " + kc.name + " = " +
                             std::to_string(code) + " is not a code of its dictionary");
    t.add(column(kc.name, std::move(v),
                 kc.type == column_type::string && !kc.dict ? column_type::int64 : kc.type,
                 kc.dict));
  }
  using plain = decltype(detail::plain_value(std::declval<T>()));
  if constexpr (std::is_integral_v<plain>) {
    std::vector<std::int64_t> v;
    for (const auto& r : rows) v.push_back(static_cast<std::int64_t>(detail::plain_value(r.value)));
    t.add(column(value_name, std::move(v)));
  } else {
    std::vector<double> v;
    for (const auto& r : rows) v.push_back(static_cast<double>(detail::plain_value(r.value)));
    t.add(column(value_name, std::move(v)));
  }
  return t;
}

/// Sorts a table's rows by the given columns (ascending, or descending where `descending[k]`);
/// strings sort by their text, which their codes preserve.
LOOM_DECL table sort_rows(const table& t, const std::vector<std::string>& by,
                          const std::vector<bool>& descending = {});

#if LOOM_HEADER_ONLY
LOOM_DEF table sort_rows(const table& t, const std::vector<std::string>& by,
                         const std::vector<bool>& descending) {
  std::vector<std::size_t> perm(t.rows());
  for (std::size_t r = 0; r < perm.size(); ++r) perm[r] = r;
  std::vector<const column*> cols;
  for (const auto& name : by) cols.push_back(&t[name]);
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const double x = cols[k]->number(a), y = cols[k]->number(b);
      if (x == y) continue;
      const bool desc = k < descending.size() && descending[k];
      return desc ? x > y : x < y;
    }
    return false;
  });
  table out(t.name());
  for (const column& c : t.columns()) {
    if (c.is_integer()) {
      std::vector<std::int64_t> v;
      for (std::size_t r : perm) v.push_back(c.ints()[r]);
      out.add(c.type() == column_type::fixed ? column::fixed(c.name(), std::move(v), c.scale())
                                             : column(c.name(), std::move(v), c.type(), c.dict()));
    } else {
      std::vector<double> v;
      for (std::size_t r : perm) v.push_back(c.reals()[r]);
      out.add(column(c.name(), std::move(v)));
    }
  }
  return out;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_ROWS_HPP
