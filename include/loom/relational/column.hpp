// Defines loom::relational::column: one typed column of a table, stored as a plain array
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_COLUMN_HPP
#define LOOM_RELATIONAL_COLUMN_HPP

#include <loom/core/config.hpp>
#include <loom/relational/date.hpp>
#include <loom/relational/dictionary.hpp>
#include <loom/relational/error.hpp>

#include <charconv>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::relational {

/// How a CSV field is read and stored. Integers, dates (days since 1970-01-01) and strings
/// (dictionary codes) are integer columns and may key a relation; decimals are doubles.
enum class column_type { int64, decimal, date, string };

constexpr std::string_view to_string(column_type t) {
  switch (t) {
    case column_type::int64:
      return "int64";
    case column_type::decimal:
      return "decimal";
    case column_type::date:
      return "date";
    case column_type::string:
      return "string";
  }
  return "?";
}

/// A named, typed column. Integer-like types (int64, date, string codes) live in `ints()`,
/// decimals in `reals()`; string columns share their dictionary with columns derived from them.
class column {
 public:
  column() = default;
  column(std::string name, column_type type) : name_(std::move(name)), type_(type) {}
  LOOM_DECL column(std::string name, std::vector<std::int64_t> ints,
                   column_type type = column_type::int64,
                   std::shared_ptr<const dictionary> dict = nullptr);
  column(std::string name, std::vector<double> reals)
      : name_(std::move(name)), type_(column_type::decimal), reals_(std::move(reals)) {}

  const std::string& name() const { return name_; }
  column_type type() const { return type_; }
  std::size_t size() const { return is_integer() ? ints_.size() : reals_.size(); }
  /// True for the types that can key a relation (stored as integers).
  bool is_integer() const { return type_ != column_type::decimal; }

  /// The integer values (int64, date as days, string codes); throws for a decimal column.
  std::span<const std::int64_t> ints() const {
    if (!is_integer())
      throw column_error("loom::relational: column " + name_ +
                         " is decimal; it cannot be used as an integer key");
    return ints_;
  }
  /// The decimal values; throws for other types.
  std::span<const double> reals() const {
    if (is_integer())
      throw column_error("loom::relational: column " + name_ + " is " +
                         std::string(to_string(type_)) + ", not decimal");
    return reals_;
  }
  /// The value of any column as a double (codes and days as numbers).
  double number(std::size_t row) const {
    return is_integer() ? static_cast<double>(ints_[row]) : reals_[row];
  }
  /// The dictionary of a string column (null for other types).
  const std::shared_ptr<const dictionary>& dict() const { return dict_; }

  /// The field as CSV text: dates as YYYY-MM-DD, strings decoded, decimals round-trip.
  LOOM_DECL std::string text(std::size_t row) const;

  // Used by the CSV reader.
  std::vector<std::int64_t>& mutable_ints() { return ints_; }
  std::vector<double>& mutable_reals() { return reals_; }
  void set_dictionary(std::shared_ptr<const dictionary> d) { dict_ = std::move(d); }

 private:
  std::string name_;
  column_type type_ = column_type::int64;
  std::vector<std::int64_t> ints_;
  std::vector<double> reals_;
  std::shared_ptr<const dictionary> dict_;
};

namespace detail {
/// The shortest text that reads back as the same double.
LOOM_DECL std::string format_decimal(double v);
}  // namespace detail

#if LOOM_HEADER_ONLY
LOOM_DEF column::column(std::string name, std::vector<std::int64_t> ints, column_type type,
                        std::shared_ptr<const dictionary> dict)
    : name_(std::move(name)), type_(type), ints_(std::move(ints)), dict_(std::move(dict)) {
  if (type_ == column_type::decimal)
    throw column_error("loom::relational::column " + name_ +
                       ": a decimal column holds doubles; pass a std::vector<double>");
  if (type_ == column_type::string && !dict_)
    throw column_error("loom::relational::column " + name_ +
                       ": a string column needs a dictionary");
}

namespace detail {
LOOM_DEF std::string format_decimal(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
}  // namespace detail

LOOM_DEF std::string column::text(std::size_t row) const {
  switch (type_) {
    case column_type::int64:
      return std::to_string(ints_[row]);
    case column_type::decimal:
      return detail::format_decimal(reals_[row]);
    case column_type::date:
      return format_date(ints_[row]);
    case column_type::string:
      return dict_->word(ints_[row]);
  }
  return {};
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_COLUMN_HPP
