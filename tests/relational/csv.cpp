// Tables from CSV: typed columns, dictionaries, dates, derived columns, and malformed input.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

const std::vector<rel::column_spec> people_schema{{"id", column_type::int64},
                                                  {"born", column_type::date},
                                                  {"city", column_type::string},
                                                  {"score", column_type::decimal}};

// Returns the csv_error thrown by reading `text`, or fails.
rel::csv_error error_of(const std::string& text,
                        const std::vector<rel::column_spec>& schema = people_schema) {
  try {
    rel::read_csv_text(text, "people.csv", schema);
  } catch (const rel::csv_error& e) {
    return e;
  }
  FAIL("no csv_error for:\n" << text);
  return rel::csv_error("", 0, 0, "", "");
}
}  // namespace

TEST_CASE("dates are days since 1970-01-01, checked against a day-by-day walk") {
  // walk every day from 1900-01-01 to 2100-12-31 with an independent calendar
  std::int64_t day = rel::days_from_civil(1900, 1, 1);
  CHECK(day == -25567);  // 70 years, 17 of them leap
  for (std::int64_t y = 1900; y <= 2100; ++y)
    for (int m = 1; m <= 12; ++m) {
      const int lengths[] = {31, (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28,
                             31, 30,
                             31, 30,
                             31, 31,
                             30, 31,
                             30, 31};
      for (int d = 1; d <= lengths[m - 1]; ++d, ++day) {
        REQUIRE(rel::days_from_civil(y, m, d) == day);
        const auto c = rel::civil_from_days(day);
        REQUIRE((c.year == y && c.month == m && c.day == d));
        REQUIRE(rel::year_of(day) == y);
      }
    }
  CHECK(rel::date("1970-01-01") == 0);
  CHECK(rel::format_date(rel::date("1994-01-01")) == "1994-01-01");
  CHECK(!rel::parse_date("1994-02-29"));
  CHECK(rel::parse_date("1996-02-29"));
  CHECK(!rel::parse_date("1994-13-01"));
  CHECK(!rel::parse_date("94-01-01"));
  CHECK_THROWS_AS(rel::date("1994-1-1"), loom::parse_error);
}

TEST_CASE("read_csv loads typed columns by header name, skips the others, sorts dictionaries") {
  const std::string text =
      "id,unused,born,city,score\r\n"
      "3,x,1994-03-01,Oslo,1.5\r\n"
      "1,y,1970-01-02,\"Bergen, Norway\",-2\r\n"
      "\n"
      "2,z,1969-12-31,Oslo,1e3\n";
  const rel::table t = rel::read_csv_text(text, "people.csv", people_schema);
  REQUIRE(t.rows() == 3);
  CHECK(std::vector<std::int64_t>(t.ints("id").begin(), t.ints("id").end()) ==
        std::vector<std::int64_t>{3, 1, 2});
  CHECK(t["born"].text(0) == "1994-03-01");
  CHECK(t.ints("born")[1] == 1);
  CHECK(t.ints("born")[2] == -1);
  const auto& city = t["city"];
  REQUIRE(city.dict()->size() == 2);
  CHECK(city.dict()->word(0) == "Bergen, Norway");  // sorted: codes follow string order
  CHECK(city.ints()[0] == 1);
  CHECK(city.ints()[1] == 0);
  CHECK(city.text(2) == "Oslo");
  CHECK(t.reals("score")[2] == 1000.0);
  CHECK(!t.has("unused"));

  // write_csv then read back: same values (quotes around the comma)
  std::ostringstream out;
  t.write_csv(out);
  CHECK(out.str().find("\"Bergen, Norway\"") != std::string::npos);
  const rel::table u = rel::read_csv_text(out.str(), "round-trip", people_schema);
  for (const auto& c : t.columns())
    for (std::size_t r = 0; r < t.rows(); ++r) CHECK(u[c.name()].text(r) == c.text(r));
}

TEST_CASE("derived attributes: the year of a date") {
  rel::table t = rel::read_csv_text("d\n1994-12-31\n1995-01-01\n2000-02-29\n", "d.csv",
                                    {{"d", column_type::date}});
  t.derive("year", "d", rel::year_of);
  CHECK(t["year"].ints()[0] == 1994);
  CHECK(t["year"].ints()[1] == 1995);
  CHECK(t["year"].ints()[2] == 2000);
}

TEST_CASE("bad CSV throws csv_error naming file, line and column") {
  SUBCASE("wrong field count") {
    const auto e = error_of("id,born,city,score\n1,1994-01-01,Oslo,1\n2,1994-01-01,Oslo\n");
    CHECK(e.line() == 3);
    CHECK(std::string(e.what()) == "people.csv:3: expected 4 fields, found 3");
  }
  SUBCASE("unparsable integer") {
    const auto e = error_of("id,born,city,score\n1,1994-01-01,Oslo,1\n\n12x,1994-01-01,Oslo,1\n");
    CHECK(e.line() == 4);
    CHECK(e.column() == 1);
    CHECK(e.column_name() == "id");
    CHECK(std::string(e.what()) == "people.csv:4: column 1 (id): cannot parse '12x' as int64");
  }
  SUBCASE("integer out of range") {
    const auto e = error_of("id,born,city,score\n99999999999999999999,1994-01-01,Oslo,1\n");
    CHECK(std::string(e.what()).find("out of range") != std::string::npos);
  }
  SUBCASE("bad date") {
    const auto e = error_of("id,born,city,score\n1,1994-02-30,Oslo,1\n");
    CHECK(std::string(e.what()) ==
          "people.csv:2: column 2 (born): cannot parse '1994-02-30' as a date (YYYY-MM-DD)");
  }
  SUBCASE("bad decimal") {
    const auto e = error_of("id,born,city,score\n1,1994-02-03,Oslo,\n");
    CHECK(e.column() == 4);
    CHECK(e.column_name() == "score");
  }
  SUBCASE("unknown column") {
    const auto e = error_of("id,born,town,score\n1,1994-02-03,Oslo,1\n");
    CHECK(e.line() == 1);
    CHECK(e.column_name() == "city");
    CHECK(std::string(e.what()).find("unknown column") != std::string::npos);
    CHECK(std::string(e.what()).find("id, born, town, score") != std::string::npos);
  }
  SUBCASE("unterminated quote") {
    const auto e = error_of("id,born,city,score\n1,1994-02-03,\"Oslo,1\n");
    CHECK(e.line() == 2);
    CHECK(e.column() == 3);
  }
  SUBCASE("empty file") { CHECK(error_of("").line() == 1); }
  CHECK_THROWS_AS(rel::read_csv("/nonexistent/people.csv", people_schema), loom::io_error);
}

TEST_CASE("every error is a loom::error; unknown table columns name the table") {
  const rel::table t = rel::read_csv_text("a\n1\n", "t.csv", {{"a", column_type::int64}});
  try {
    (void)t["b"];
    FAIL("no error");
  } catch (const rel::column_error& e) {
    CHECK(std::string(e.what()) == "loom::relational: table t.csv has no column b (columns: a)");
  }
  CHECK_THROWS_AS((void)t.reals("a"), loom::error);
  CHECK_THROWS_AS(rel::read_csv_text("a\nx\n", "t.csv", {{"a", column_type::int64}}),
                  loom::parse_error);
}

TEST_CASE("read_csv reads a file from disk; no header means positional columns") {
  const std::string path = "loom_relational_csv_test.csv";
  {
    std::ofstream f(path);
    f << "7|1999-01-01\n8|2000-01-01\n";
  }
  rel::csv_options opts;
  opts.delimiter = '|';
  opts.header = false;
  const rel::table t =
      rel::read_csv(path, {{"k", column_type::int64}, {"d", column_type::date}}, opts);
  std::remove(path.c_str());
  REQUIRE(t.rows() == 2);
  CHECK(t.ints("k")[1] == 8);
  CHECK(t["d"].text(0) == "1999-01-01");
  CHECK(t.name() == path);
}

TEST_CASE("LIKE matches SQL semantics (checked against a brute-force matcher)") {
  // a brute-force reference: try every split of s for each '%'
  struct ref {
    static bool match(std::string_view s, std::string_view p) {
      if (p.empty()) return s.empty();
      if (p[0] == '%') {
        for (std::size_t k = 0; k <= s.size(); ++k)
          if (match(s.substr(k), p.substr(1))) return true;
        return false;
      }
      return !s.empty() && (p[0] == '_' || p[0] == s[0]) && match(s.substr(1), p.substr(1));
    }
  };
  const std::vector<std::string> words{
      "",          "g", "green", "forest green", "greens", "gren", "ivory green lace",
      "agreeable", "%", "a_b",   "ggreen"};
  const std::vector<std::string> patterns{"%green%", "green%", "%green", "g_een", "%",      "",
                                          "%_%",     "a\\_b",  "%g%n%",  "__",    "%%green"};
  for (const auto& w : words)
    for (const auto& p : patterns)
      CHECK_MESSAGE(rel::like_match(w, p) == ref::match(w, p), w << " LIKE " << p);
}
