// Fixed decimals (column_type::fixed, relational/column.hpp): int64 values scaled by 10^scale,
// read from CSV digit by digit, printed back exactly; positioned errors for too many fractional
// digits and for values out of range.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

/// The message of the csv_error that reading `text` throws ("" when none).
std::string csv_failure(const std::string& text, int scale) {
  try {
    (void)rel::read_csv_text(text, "money.csv",
                             {{"id", column_type::int64}, {"amount", column_type::fixed, scale}});
  } catch (const rel::csv_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("fixed decimals: parse_fixed reads digit by digit, format_fixed prints exactly") {
  std::int64_t v = 0;
  CHECK(rel::parse_fixed("-12.30", 2, v) == rel::fixed_status::ok);
  CHECK(v == -1230);
  CHECK(rel::format_fixed(v, 2) == "-12.30");
  CHECK(rel::parse_fixed("12.3", 2, v) == rel::fixed_status::ok);
  CHECK(v == 1230);
  CHECK(rel::parse_fixed("+7", 3, v) == rel::fixed_status::ok);
  CHECK(v == 7000);
  CHECK(rel::parse_fixed(".5", 1, v) == rel::fixed_status::ok);
  CHECK(v == 5);
  CHECK(rel::parse_fixed("0.07", 2, v) == rel::fixed_status::ok);
  CHECK(v == 7);  // not 0.07 through a double (0.07000000000000000666...)
  CHECK(rel::parse_fixed("1.234", 2, v) == rel::fixed_status::too_many_digits);
  CHECK(rel::parse_fixed("1.230", 2, v) == rel::fixed_status::too_many_digits);
  CHECK(rel::parse_fixed("1e5", 2, v) == rel::fixed_status::malformed);
  CHECK(rel::parse_fixed("-", 2, v) == rel::fixed_status::malformed);
  CHECK(rel::parse_fixed("", 2, v) == rel::fixed_status::malformed);
  CHECK(rel::parse_fixed("1.2.3", 2, v) == rel::fixed_status::malformed);
  // int64 at scale 2: up to 92233720368547758.07
  CHECK(rel::parse_fixed("92233720368547758.07", 2, v) == rel::fixed_status::ok);
  CHECK(v == std::numeric_limits<std::int64_t>::max());
  CHECK(rel::parse_fixed("92233720368547758.08", 2, v) == rel::fixed_status::out_of_range);
  CHECK(rel::parse_fixed("-92233720368547758.08", 2, v) == rel::fixed_status::ok);
  CHECK(v == std::numeric_limits<std::int64_t>::min());
  CHECK(rel::format_fixed(v, 2) == "-92233720368547758.08");
  CHECK(rel::parse_fixed("100000000000000000", 2, v) == rel::fixed_status::out_of_range);
  CHECK(rel::format_fixed(5, 3) == "0.005");
  CHECK(rel::format_fixed(-5, 3) == "-0.005");
  CHECK(rel::format_fixed(0, 2) == "0.00");
  CHECK(rel::format_fixed(42, 0) == "42");
  for (const char* text : {"0.00", "-0.01", "123456789012.34", "-99.90", "1.00"}) {
    CAPTURE(text);
    REQUIRE(rel::parse_fixed(text, 2, v) == rel::fixed_status::ok);
    CHECK(rel::format_fixed(v, 2) == text);
  }
}

TEST_CASE("fixed decimals: a column of scaled integers, from arrays and from CSV") {
  const rel::column c = rel::column::fixed("price", {1230, -5, 0}, 2);
  CHECK(c.type() == column_type::fixed);
  CHECK(c.scale() == 2);
  CHECK(c.size() == 3u);
  CHECK(c.ints()[0] == 1230);
  CHECK(c.text(0) == "12.30");
  CHECK(c.text(1) == "-0.05");
  CHECK(c.number(1) == -0.05);  // the double "-0.05" reads as
  CHECK_THROWS_AS(c.reals(), rel::column_error);
  CHECK_THROWS_AS(rel::column::fixed("x", {}, 19), rel::column_error);
  CHECK_THROWS_AS(rel::column("x", column_type::int64, 2), rel::column_error);
  CHECK(std::string(rel::to_string(column_type::fixed)) == "fixed");

  // every field of a file, through the fast reader and the general parser (quoted fields)
  const rel::table t = rel::read_csv_text(
      "id,amount,note\n1,12.30,a\n2,-0.05,b\n3,\"7\",c\n4, 0.1 ,d\n5,99999999999999.99,e\n",
      "money.csv", {{"id", column_type::int64}, {"amount", column_type::fixed, 2}});
  REQUIRE(t.rows() == 5u);
  const auto amount = t.ints("amount");
  CHECK(t["amount"].scale() == 2);
  CHECK(amount[0] == 1230);
  CHECK(amount[1] == -5);
  CHECK(amount[2] == 700);
  CHECK(amount[3] == 10);
  CHECK(amount[4] == 9999999999999999);
  std::ostringstream out;
  t.write_csv(out);
  CHECK(out.str() == "id,amount\n1,12.30\n2,-0.05\n3,7.00\n4,0.10\n5,99999999999999.99\n");
  CHECK_THROWS_AS((void)rel::read_csv_text("a\n1\n", "x.csv", {{"a", column_type::fixed, 20}}),
                  rel::column_error);
}

TEST_CASE(
    "fixed decimals: too many fractional digits or a value out of range is a positioned "
    "csv_error") {
  CHECK(csv_failure("id,amount\n1,1.5\n2,1.234\n", 2) ==
        "money.csv:3: column 2 (amount): cannot parse '1.234' as a decimal of scale 2: more than "
        "2 digits after the point (nothing is rounded)");
  CHECK(csv_failure("id,amount\n1,92233720368547758.08\n", 2) ==
        "money.csv:2: column 2 (amount): cannot parse '92233720368547758.08' as a decimal of "
        "scale 2: out of range (an int64 scaled by 10^2)");
  CHECK(csv_failure("id,amount\n1,1e3\n", 2) ==
        "money.csv:2: column 2 (amount): cannot parse '1e3' as a decimal of scale 2");
  CHECK(csv_failure("id,amount\n1,\n", 0) ==
        "money.csv:2: column 2 (amount): cannot parse '' as a decimal of scale 0");
  CHECK(csv_failure("id,amount\n1,10\n", 18).find("out of range") != std::string::npos);
  CHECK(csv_failure("id,amount\n1,0.000000000000000001\n", 18).empty());
}

TEST_CASE("fixed decimals: read_csv_files joins pieces keeping the scale; sort_rows keeps it") {
  std::string text = "id,amount\n";
  std::int64_t expected_sum = 0;
  for (int r = 0; r < 2000; ++r) {
    text += std::to_string(r) + "," + rel::format_fixed(r * 37 - 5000, 2) + "\n";
    expected_sum += r * 37 - 5000;
  }
  const std::string path = "loom_fixed_decimal_pieces.csv";
  {
    std::ofstream f(path);
    f << text;
  }
  const auto read = rel::read_csv_files(
      {{path, {{"id", column_type::int64}, {"amount", column_type::fixed, 2}}}}, 2, 1000);
  std::remove(path.c_str());
  REQUIRE(read.size() == 1u);
  const rel::column& amount = read[0]["amount"];
  CHECK(amount.type() == column_type::fixed);
  CHECK(amount.scale() == 2);
  std::int64_t sum = 0;
  for (std::int64_t v : amount.ints()) sum += v;
  CHECK(sum == expected_sum);
  const rel::table sorted = rel::sort_rows(read[0], {"amount"}, {true});
  CHECK(sorted["amount"].scale() == 2);
  CHECK(sorted["amount"].text(0) == rel::format_fixed(1999 * 37 - 5000, 2));
}
