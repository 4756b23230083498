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
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loom::relational {

/// How a CSV field is read and stored. Integers, dates (days since 1970-01-01) and strings
/// (dictionary codes) are integer columns and may key a relation; decimals are doubles; fixed
/// decimals (SQL's DECIMAL(p,s)) are exact: int64 values scaled by 10^scale (`-12.30` at scale 2
/// is stored as -1230).
enum class column_type { int64, decimal, date, string, fixed };

/// The largest scale of a fixed decimal: 10^18 is the largest power of ten an int64 holds.
inline constexpr int max_fixed_scale = 18;

/// 10^k for 0 <= k <= 18.
constexpr std::int64_t power_of_ten(int k) {
  std::int64_t p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

/// Why `parse_fixed` rejected a text.
enum class fixed_status { ok, malformed, too_many_digits, out_of_range };

/// Reads `[+-]?digits[.digits]` (at least one digit) as a value scaled by 10^scale, digit by
/// digit, never through a double: `"-12.3"` at scale 2 is -1230. More fractional digits than
/// `scale` is `too_many_digits` (nothing is rounded); a value whose scaled integer does not fit
/// in an int64 is `out_of_range`.
constexpr fixed_status parse_fixed(std::string_view text, int scale, std::int64_t& out) {
  std::size_t k = 0;
  const bool negative = k < text.size() && text[k] == '-';
  if (k < text.size() && (text[k] == '-' || text[k] == '+')) ++k;
  // accumulated as a negative number, so that the int64 minimum is reachable
  std::int64_t x = 0;
  int digits = 0, fraction = 0;
  bool point = false, overflow = false;
  for (; k < text.size(); ++k) {
    const char c = text[k];
    if (c >= '0' && c <= '9') {
      ++digits;
      if (point && ++fraction > scale) return fixed_status::too_many_digits;
      overflow = overflow || __builtin_mul_overflow(x, std::int64_t{10}, &x) ||
                 __builtin_sub_overflow(x, std::int64_t{c - '0'}, &x);
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return fixed_status::malformed;
    }
  }
  if (digits == 0) return fixed_status::malformed;
  for (int f = fraction; f < scale; ++f)
    overflow = overflow || __builtin_mul_overflow(x, std::int64_t{10}, &x);
  if (overflow || (!negative && x == std::numeric_limits<std::int64_t>::min()))
    return fixed_status::out_of_range;
  out = negative ? x : -x;
  return fixed_status::ok;
}

/// The text of a value scaled by 10^scale, with exactly `scale` fractional digits: -1230 at
/// scale 2 is `"-12.30"`; `parse_fixed` reads it back to the same value.
inline std::string format_fixed(std::int64_t scaled, int scale) {
  // the magnitude as unsigned, so that the int64 minimum prints too
  std::uint64_t m = scaled < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(scaled)
                               : static_cast<std::uint64_t>(scaled);
  char buf[48];
  char* p = buf + sizeof buf;
  int written = 0;
  do {
    *--p = static_cast<char>('0' + m % 10);
    m /= 10;
    if (++written == scale) *--p = '.';
  } while (m != 0 || written < scale);
  if (scale > 0 && *p == '.') *--p = '0';
  if (scaled < 0) *--p = '-';
  return std::string(p, static_cast<std::size_t>(buf + sizeof buf - p));
}

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
    case column_type::fixed:
      return "fixed";
  }
  return "?";
}

/// A named, typed column. Integer-like types (int64, date, string codes) and fixed decimals
/// (scaled by 10^scale()) live in `ints()`, decimals in `reals()`; string columns share their
/// dictionary with columns derived from them.
class column {
 public:
  column() = default;
  /// An empty column; `scale` is a fixed column's (0 to 18), and must be 0 for other types.
  LOOM_DECL column(std::string name, column_type type, int scale = 0);
  LOOM_DECL column(std::string name, std::vector<std::int64_t> ints,
                   column_type type = column_type::int64,
                   std::shared_ptr<const dictionary> dict = nullptr);
  column(std::string name, std::vector<double> reals)
      : name_(std::move(name)), type_(column_type::decimal), reals_(std::move(reals)) {}
  /// An exact decimal column: `scaled[r]` is the value times 10^scale (0 <= scale <= 18), as
  /// SQL's DECIMAL(p, scale) holds it: `column::fixed("price", {1230, -5}, 2)` is 12.30, -0.05.
  static column fixed(std::string name, std::vector<std::int64_t> scaled, int scale) {
    column c(std::move(name), column_type::fixed, scale);
    c.ints_ = std::move(scaled);
    return c;
  }

  const std::string& name() const { return name_; }
  column_type type() const { return type_; }
  /// The number of fractional digits of a fixed column (its values are `ints()` / 10^scale());
  /// 0 for other types.
  int scale() const { return scale_; }
  std::size_t size() const { return is_integer() ? ints_.size() : reals_.size(); }
  /// True for the types stored as integers: int64, date, string codes and fixed decimals.
  bool is_integer() const { return type_ != column_type::decimal; }
  /// True for the types that can key a relation: int64, date and string codes.
  bool is_key() const { return type_ != column_type::decimal && type_ != column_type::fixed; }

  /// The integer values (int64, date as days, string codes, a fixed decimal's scaled values);
  /// throws for a decimal column.
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
  /// The value of any column as a double (codes and days as numbers; a fixed decimal's value
  /// correctly rounded, the double its text would be read as).
  double number(std::size_t row) const {
    if (!is_integer()) return reals_[row];
    if (scale_ == 0) return static_cast<double>(ints_[row]);
    return static_cast<double>(ints_[row]) / static_cast<double>(power_of_ten(scale_));
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
  int scale_ = 0;
  std::vector<std::int64_t> ints_;
  std::vector<double> reals_;
  std::shared_ptr<const dictionary> dict_;
};

namespace detail {
/// The shortest text that reads back as the same double.
LOOM_DECL std::string format_decimal(double v);
}  // namespace detail

#if LOOM_HEADER_ONLY
LOOM_DEF column::column(std::string name, column_type type, int scale)
    : name_(std::move(name)), type_(type), scale_(scale) {
  if (type_ == column_type::fixed ? scale < 0 || scale > max_fixed_scale : scale != 0)
    throw column_error("loom::relational::column " + name_ + ": scale " + std::to_string(scale) +
                       (type_ == column_type::fixed
                            ? " is out of range; a fixed decimal's scale is 0 to 18"
                            : " given for a column that is not fixed; only fixed decimals "
                              "have a scale"));
}

LOOM_DEF column::column(std::string name, std::vector<std::int64_t> ints, column_type type,
                        std::shared_ptr<const dictionary> dict)
    : name_(std::move(name)), type_(type), ints_(std::move(ints)), dict_(std::move(dict)) {
  if (type_ == column_type::decimal)
    throw column_error("loom::relational::column " + name_ +
                       ": a decimal column holds doubles; pass a std::vector<double>");
  if (type_ == column_type::fixed && dict_)  // scale 0 here; column::fixed gives another
    throw column_error("loom::relational::column " + name_ +
                       ": a fixed decimal column has no dictionary");
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
    case column_type::fixed:
      return format_fixed(ints_[row], scale_);
  }
  return {};
}
#endif  // LOOM_HEADER_ONLY

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_COLUMN_HPP
