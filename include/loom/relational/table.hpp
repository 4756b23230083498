// Defines loom::relational::table: named typed columns read from CSV, with derived columns and
// CSV output (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_TABLE_HPP
#define LOOM_RELATIONAL_TABLE_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/io/detail/output.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/error.hpp>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::relational {

/// A column-store table: columns of equal length, looked up by name.
/// **Example**: `auto t = read_csv("orders.csv", {{"o_orderkey", column_type::int64}});`
class table {
 public:
  table() = default;
  explicit table(std::string name) : name_(std::move(name)) {}

  /// The table's name (the file it was read from), used in error messages.
  const std::string& name() const { return name_; }
  std::size_t rows() const { return columns_.empty() ? 0 : columns_.front().size(); }
  const std::vector<column>& columns() const { return columns_; }

  /// The column called `name`; throws `column_error` listing the columns when there is none.
  LOOM_DECL const column& operator[](std::string_view name) const;
  LOOM_DECL bool has(std::string_view name) const;
  /// Shorthands: `t.ints("o_custkey")`, `t.reals("l_discount")`.
  std::span<const std::int64_t> ints(std::string_view name) const { return (*this)[name].ints(); }
  std::span<const double> reals(std::string_view name) const { return (*this)[name].reals(); }

  /// Appends a column; its length must match the table's.
  LOOM_DECL table& add(column c);

  /// Replaces the column of the same name (same length).
  LOOM_DECL table& replace(column c);

  /// A derived attribute: `t.derive("o_year", "o_orderdate", year_of)` adds the integer column
  /// `f(source[row])` for every row (f maps an integer value: a key, a day, a code).
  template <class F>
  table& derive(std::string name, std::string_view source, F f,
                column_type type = column_type::int64) {
    const auto in = (*this)[source].ints();
    std::vector<std::int64_t> out(in.size());
    for (std::size_t r = 0; r < in.size(); ++r) out[r] = static_cast<std::int64_t>(f(in[r]));
    return add(column(std::move(name), std::move(out), type));
  }

  /// Writes a header line and one line per row; strings are quoted when needed (and an empty
  /// field of a one-column table, whose line would otherwise be blank and skipped by read_csv).
  /// Throws `loom::io_error` when `out` fails.
  LOOM_DECL void write_csv(std::ostream& out, char delimiter = ',') const;
  /// Writes the CSV file at `path`, all or nothing (as `loom::write_matrix_market`): a failed
  /// write leaves an existing file as it was, and the error names the path and the OS reason.
  LOOM_DECL void write_csv(const std::string& path, char delimiter = ',') const;

 private:
  LOOM_DECL static std::string quote(const std::string& s, char delimiter, bool lone);

  std::string name_;
  std::vector<column> columns_;
};

/// Re-encodes two string columns (of one or two tables) through one merged dictionary, so that
/// equal strings get equal codes and the columns can be joined as keys.
/// **Example**: `share_dictionary(customer, "c_city", supplier, "s_city");`
LOOM_DECL void share_dictionary(table& a, std::string_view col_a, table& b, std::string_view col_b);

#if LOOM_HEADER_ONLY
LOOM_DEF const column& table::operator[](std::string_view name) const {
  for (const column& c : columns_)
    if (c.name() == name) return c;
  std::string known;
  for (const column& c : columns_) known += (known.empty() ? "" : ", ") + c.name();
  throw column_error("loom::relational: table " + (name_.empty() ? "(unnamed)" : name_) +
                     " has no column " + std::string(name) + " (columns: " + known + ")");
}

LOOM_DEF bool table::has(std::string_view name) const {
  for (const column& c : columns_)
    if (c.name() == name) return true;
  return false;
}

LOOM_DEF table& table::add(column c) {
  if (!columns_.empty() && c.size() != rows())
    throw column_error("loom::relational: column " + c.name() + " has " + std::to_string(c.size()) +
                       " rows but table " + name_ + " has " + std::to_string(rows()));
  if (has(c.name()))
    throw column_error("loom::relational: table " + name_ + " already has a column " + c.name());
  columns_.push_back(std::move(c));
  return *this;
}

LOOM_DEF table& table::replace(column c) {
  for (column& old : columns_)
    if (old.name() == c.name()) {
      if (c.size() != old.size())
        throw column_error("loom::relational: column " + c.name() + " has " +
                           std::to_string(c.size()) + " rows, not " + std::to_string(old.size()));
      old = std::move(c);
      return *this;
    }
  (void)(*this)[c.name()];  // throws, listing the columns
  return *this;
}

LOOM_DEF void table::write_csv(std::ostream& out, char delimiter) const {
  const bool lone = columns_.size() == 1;
  loom::detail::output_buffer buf(out, "loom::relational::table::write_csv");
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (c) buf.text += delimiter;
    buf.text += quote(columns_[c].name(), delimiter, lone);
  }
  buf.text += '\n';
  for (std::size_t r = 0; r < rows(); ++r) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c) buf.text += delimiter;
      buf.text += quote(columns_[c].text(r), delimiter, lone);
    }
    buf.text += '\n';
    buf.flush_if_full();
  }
  buf.finish();
}

LOOM_DEF void table::write_csv(const std::string& path, char delimiter) const {
  loom::detail::write_file(path, "loom::relational::table::write_csv",
                           [&](std::ostream& out) { write_csv(out, delimiter); });
}

LOOM_DEF std::string table::quote(const std::string& s, char delimiter, bool lone) {
  if (s.empty() && lone) return "\"\"";
  if (s.find_first_of(std::string{delimiter, '"', '\n', '\r'}) == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

LOOM_DEF void share_dictionary(table& a, std::string_view col_a, table& b, std::string_view col_b) {
  const column& ca = a[col_a];
  const column& cb = b[col_b];
  if (ca.type() != column_type::string || cb.type() != column_type::string)
    throw column_error("loom::relational::share_dictionary: " + std::string(col_a) + " and " +
                       std::string(col_b) + " must both be string columns");
  std::vector<std::string> words = ca.dict()->words();
  loom::detail::append_range(words, cb.dict()->words());
  const auto merged = std::make_shared<const dictionary>(std::move(words));
  auto recode = [&](const column& c) {
    std::vector<std::int64_t> remap(static_cast<std::size_t>(c.dict()->size()));
    for (std::int64_t k = 0; k < c.dict()->size(); ++k)
      remap[static_cast<std::size_t>(k)] = *merged->code(c.dict()->word(k));
    std::vector<std::int64_t> codes(c.size());
    for (std::size_t r = 0; r < c.size(); ++r)
      codes[r] = remap[static_cast<std::size_t>(c.ints()[r])];
    return column(c.name(), std::move(codes), column_type::string, merged);
  };
  column na = recode(ca), nb = recode(cb);
  a.replace(std::move(na));
  b.replace(std::move(nb));
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_TABLE_HPP
