// The CSV reader's fast path (relational/csv.hpp): fields parsed where they lie, records it
// cannot take handed to the quoting parser; numbers read exactly as std::from_chars reads them,
// dictionaries sorted as std::sort sorts strings, files read through a mapping.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/csv.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

double from_chars_double(const std::string& s) {
  double x = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
  REQUIRE(r.ptr == s.data() + s.size());
  return x;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string what_of(const std::string& text, const std::vector<rel::column_spec>& schema) {
  try {
    (void)rel::read_csv_text(text, "t.csv", schema);
  } catch (const rel::csv_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("numbers read as std::from_chars reads the trimmed field, bit for bit") {
  const std::vector<std::string> decimals{"0.07",
                                          "19104.28",
                                          ".5",
                                          "1.",
                                          "-0",
                                          "-0.0",
                                          "1e5",
                                          "1.5e-3",
                                          "2.50",
                                          "123456789012345.6",
                                          "1234567890123456",
                                          "0.1234567890123456789",
                                          "999999999999999",
                                          "0.000000000000001",
                                          "-.25",
                                          "7",
                                          "1e-320",
                                          "0.30000000000000004",
                                          "4503599627370497.5"};
  std::string text = "x,i\n";
  for (const auto& d : decimals) text += d + ",1\n";
  text += " 3.25\t, -9223372036854775808 \n";
  text += "1.0,0000000000000000000042\n";
  text += "2.0,9223372036854775807\r\n";
  const rel::table t =
      rel::read_csv_text(text, "n.csv", {{"x", column_type::decimal}, {"i", column_type::int64}});
  REQUIRE(t.rows() == decimals.size() + 3);
  for (std::size_t r = 0; r < decimals.size(); ++r) {
    CAPTURE(decimals[r]);
    CHECK(same_bits(t.reals("x")[r], from_chars_double(decimals[r])));
  }
  CHECK(t.reals("x")[decimals.size()] == 3.25);
  CHECK(t.ints("i")[decimals.size()] == INT64_MIN);
  CHECK(t.ints("i")[decimals.size() + 1] == 42);
  CHECK(t.ints("i")[decimals.size() + 2] == INT64_MAX);
}

TEST_CASE("random plain decimals of up to 17 digits match std::from_chars") {
  std::mt19937_64 gen(7);
  std::string text = "x\n";
  std::vector<std::string> fields;
  for (int k = 0; k < 20000; ++k) {
    const int digits = 1 + static_cast<int>(gen() % 17);
    std::string s = gen() % 4 == 0 ? "-" : "";
    const int point = static_cast<int>(gen() % static_cast<std::uint64_t>(digits + 1));
    for (int d = 0; d < digits; ++d) {
      if (d == point) s += '.';
      s += static_cast<char>('0' + gen() % 10);
    }
    fields.push_back(s);
    text += s + "\n";
  }
  const rel::table t = rel::read_csv_text(text, "r.csv", {{"x", column_type::decimal}});
  REQUIRE(t.rows() == fields.size());
  for (std::size_t r = 0; r < fields.size(); ++r) {
    CAPTURE(fields[r]);
    REQUIRE(same_bits(t.reals("x")[r], from_chars_double(fields[r])));
  }
}

TEST_CASE("records with quotes go to the parser; the records around them stay exact") {
  const std::string text =
      "id,name,day,x\r\n"
      "1,plain,1994-01-01,1.5\r\n"
      "\r\n"
      "2,\"quoted, with comma\",1994-01-02,2.5\r\n"
      "3,\"two\nlines\",1994-01-03,3.5\n"
      "4,\"say \"\"hi\"\"\",1994-01-04,4.5\n"
      "5, spaced ,1994-01-05 , 5.5 \n"
      "6,mid\"quote,1994-01-06,6.5";
  const rel::table t = rel::read_csv_text(text, "q.csv",
                                          {{"id", column_type::int64},
                                           {"name", column_type::string},
                                           {"day", column_type::date},
                                           {"x", column_type::decimal}});
  REQUIRE(t.rows() == 6);
  CHECK(t.ints("id")[5] == 6);
  CHECK(t.reals("x")[4] == 5.5);
  CHECK(t.ints("day")[4] == rel::date("1994-01-05"));
  std::vector<std::string> names;
  for (std::size_t r = 0; r < t.rows(); ++r) names.push_back(t["name"].text(r));
  CHECK(names == std::vector<std::string>{"plain", "quoted, with comma", "two\nlines", "say \"hi\"",
                                          " spaced ", "mid\"quote"});
}

TEST_CASE("errors name the same line and column whichever path met the record") {
  const std::vector<rel::column_spec> schema{
      {"a", column_type::int64}, {"s", column_type::string}, {"x", column_type::decimal}};
  // line numbers count the newline inside a quoted field and blank lines
  CHECK(what_of("a,s,x\n1,\"x\ny\",2\n\n3,z,bad\n", schema) ==
        "t.csv:5: column 3 (x): cannot parse 'bad' as decimal");
  // a wrong field count is reported before a bad value in the same record
  CHECK(what_of("a,s,x\n1,b,2\nq,b\n", schema) == "t.csv:3: expected 3 fields, found 2");
  CHECK(what_of("a,s,x\n1,b,2,3\n", schema) == "t.csv:2: expected 3 fields, found 4");
  CHECK(what_of("a,s,x\r\n1,b,2\r\n12345678901234567890,b,2\r\n", schema) ==
        "t.csv:3: column 1 (a): cannot parse '12345678901234567890' as int64 (out of range)");
  CHECK(what_of("a,s,x\n1,\"b\"c,2\n", schema) ==
        "t.csv:2: column 2: unexpected character after a closing quote");
  CHECK(what_of("a,s,x\n1,b,\"2\n", schema) == "t.csv:2: column 3: unterminated quoted field");
  // a record the fast path began (a, s parsed) and handed over: no value is taken twice
  const rel::table t = rel::read_csv_text("a,s,x\n1,p,1\n2,q,\"2\"\n3,r,3\n", "t.csv", schema);
  CHECK(t.rows() == 3);
  CHECK(t.ints("a")[1] == 2);
  CHECK(t.reals("x")[1] == 2.0);
  CHECK(t["s"].text(2) == "r");
}

TEST_CASE("dictionaries sort as std::sort sorts the strings (shared prefixes, high bytes)") {
  std::mt19937_64 gen(5);
  const std::vector<std::string> pieces{"same prefix of sixteen",
                                        "same prefix of sixteen!",
                                        "a",
                                        "ab",
                                        "\xC3\xA9t\xC3\xA9",
                                        "Z",
                                        "same prefix",
                                        "\x7F",
                                        "\xFF"};
  std::vector<std::string> rows;
  std::string text = "s\n";
  for (int k = 0; k < 30000; ++k) {
    std::string s = pieces[gen() % pieces.size()];
    if (gen() % 2) s += std::to_string(gen() % 5000);
    rows.push_back(s);
    text += s + "\n";
  }
  const rel::table t = rel::read_csv_text(text, "d.csv", {{"s", column_type::string}});
  std::vector<std::string> want = rows;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  CHECK(t["s"].dict()->words() == want);
  for (std::size_t r = 0; r < rows.size(); ++r) REQUIRE(t["s"].text(r) == rows[r]);
}

TEST_CASE("read_csv maps the file and reads what read_csv_text reads") {
  const std::string path = "loom_relational_csv_fast_path.csv";
  const std::string text = "k,v\r\n3,0.25\r\n1,7\r\n\r\n2,-1.5";
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  const std::vector<rel::column_spec> schema{{"k", column_type::int64},
                                             {"v", column_type::decimal}};
  const rel::table a = rel::read_csv(path, schema);
  const rel::table b = rel::read_csv_text(text, path, schema);
  CHECK(a.rows() == 3);
  CHECK(std::vector<std::int64_t>(a.ints("k").begin(), a.ints("k").end()) ==
        std::vector<std::int64_t>(b.ints("k").begin(), b.ints("k").end()));
  CHECK(std::vector<double>(a.reals("v").begin(), a.reals("v").end()) ==
        std::vector<double>(b.reals("v").begin(), b.reals("v").end()));
  { std::ofstream f(path, std::ios::binary | std::ios::trunc); }
  try {
    (void)rel::read_csv(path, schema);
    FAIL("no error for an empty file");
  } catch (const rel::csv_error& e) {
    CHECK(std::string(e.what()) == path + ":1: the file is empty; expected a header line");
  }
  std::remove(path.c_str());
  CHECK_THROWS_AS(rel::read_csv(path, schema), loom::io_error);
}
