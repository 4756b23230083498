// Defines dates as day numbers: parsing `YYYY-MM-DD`, formatting, and the year of a day (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_DATE_HPP
#define LOOM_RELATIONAL_DATE_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace loom::relational {

/// A civil date (proleptic Gregorian).
struct civil_date {
  std::int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// H. Hinnant's days_from_civil / civil_from_days: exact for every proleptic Gregorian date.

/// Days since 1970-01-01 of a civil date.
constexpr std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The civil date of a day number (days since 1970-01-01).
constexpr civil_date civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

/// The year of a day number: the derived attribute `extract(year from date)`.
constexpr std::int64_t year_of(std::int64_t days) { return civil_from_days(days).year; }

constexpr bool is_leap_year(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/// Parses `YYYY-MM-DD` (four-digit year) into a day number; nullopt when malformed or invalid.
constexpr std::optional<std::int64_t> parse_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  auto digits = [&](std::size_t from, std::size_t n) -> int {
    int v = 0;
    for (std::size_t k = from; k < from + n; ++k) {
      if (s[k] < '0' || s[k] > '9') return -1;
      v = v * 10 + (s[k] - '0');
    }
    return v;
  };
  const int y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1) return std::nullopt;
  constexpr int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int last = month_days[m - 1] + (m == 2 && is_leap_year(y) ? 1 : 0);
  if (d > last) return std::nullopt;
  return days_from_civil(y, m, d);
}

/// A day number as `YYYY-MM-DD`. **Example**: `format_date(8766) == "1994-01-01"`.
LOOM_DECL std::string format_date(std::int64_t days);

/// The day number of a date literal, `date("1994-01-01") == 8766`; a malformed literal is a
/// compile error in a constant expression and a `loom::parse_error` at run time.
constexpr std::int64_t date(std::string_view s) {
  const auto d = parse_date(s);
  if (!d)
    throw parse_error("loom::relational::date: '" + std::string(s) +
                      "' is not a valid YYYY-MM-DD date");
  return *d;
}

#if LOOM_HEADER_ONLY
LOOM_DEF std::string format_date(std::int64_t days) {
  const civil_date c = civil_from_days(days);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02d", static_cast<long long>(c.year), c.month,
                c.day);
  return buf;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_DATE_HPP
