// WHERE terms that bound a column by literals (x < 24, d BETWEEN a AND b, on integers, dates and
// fixed decimals) select each block's rows before the rest of the condition runs
// (sql/execute.hpp, for_each_row_within): every comparison, over several blocks and a partial
// last one, with bounds that pass few rows, most rows, or first all and then none (a sorted
// column, so blocks switch between selecting and going row by row), in one table and in the
// scanned table of a join; each against a plain loop.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

constexpr std::size_t n_rows = 5000;  // four full blocks of 1024 and a partial one

/// id (0, 1, 2, ...: sorted), k (1..9), x (int64 0..99), d (a date in 1994..1996), cents (a
/// DECIMAL(15,2) from 0.00 to 9.99).
rel::table make_rows() {
  std::mt19937_64 rng(11);
  std::ostringstream csv;
  csv << "id,k,x,d,cents\n";
  for (std::size_t r = 0; r < n_rows; ++r)
    csv << r << ',' << 1 + rng() % 9 << ',' << rng() % 100 << ','
        << rel::format_date(rel::date("1994-01-01") + static_cast<std::int64_t>(rng() % 1000))
        << ',' << rel::format_fixed(static_cast<std::int64_t>(rng() % 1000), 2) << '\n';
  return rel::read_csv_text(csv.str(), "t",
                            {{"id", column_type::int64},
                             {"k", column_type::int64},
                             {"x", column_type::int64},
                             {"d", column_type::date},
                             {"cents", column_type::fixed, 2}});
}
const rel::table t = make_rows();

/// COUNT(*) and SUM(x) of the rows `keep` accepts.
template <class Keep> std::pair<std::int64_t, std::int64_t> expected(Keep keep) {
  const auto id = t.ints("id"), k = t.ints("k"), x = t.ints("x"), d = t.ints("d"),
             cents = t.ints("cents");
  std::int64_t n = 0, sum = 0;
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (keep(id[r], k[r], x[r], d[r], cents[r])) {
      ++n;
      sum += x[r];
    }
  return {n, sum};
}

template <class Result>
void check_result(const Result& r, std::pair<std::int64_t, std::int64_t> e) {
  CHECK(r.ints("n")[0] == e.first);
  CHECK(r["s"].number(0) == static_cast<double>(e.second));
}
}  // namespace

TEST_CASE("sql: every comparison of a column with literals, alone and together") {
  using i64 = std::int64_t;
  const i64 d95 = rel::date("1995-01-01"), d96 = rel::date("1996-01-01");
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x = 42">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x == 42; }));
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x <> 42">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x != 42; }));
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x < 10">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x < 10; }));
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x <= 10">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x <= 10; }));
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x > 90">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x > 90; }));
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x >= 90">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x >= 90; }));
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x BETWEEN 20 AND 30">(t),
               expected([](i64, i64, i64 x, i64, i64) { return x >= 20 && x <= 30; }));
  // TPC-H Q6's shape: a date range, a decimal range, an integer bound, and a term that is not
  // a bound (tested on the selected rows only)
  check_result(loom::sql<R"(SELECT COUNT(*) AS n, SUM(x) AS s FROM t
                            WHERE d >= DATE '1995-01-01' AND d < DATE '1996-01-01'
                              AND cents BETWEEN 2.50 AND 7.25 AND x < 60 AND (k = 3 OR k > 7))">(t),
               expected([&](i64, i64 k, i64 x, i64 d, i64 cents) {
                 return d >= d95 && d < d96 && cents >= 250 && cents <= 725 && x < 60 &&
                        (k == 3 || k > 7);
               }));
  // nothing passes
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x > 99 AND k = 1">(t),
               expected([](i64, i64, i64, i64, i64) { return false; }));
}

TEST_CASE("sql: bounds that pass all of some blocks and none of others (a sorted column)") {
  using i64 = std::int64_t;
  // the first blocks pass whole (row by row, then measured again), the last ones not at all
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE id < 3500 AND x >= 1">(t),
               expected([](i64 id, i64, i64 x, i64, i64) { return id < 3500 && x >= 1; }));
  // the reverse, and a bound most rows pass next to one few pass
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE id >= 1200 AND x <> 5">(t),
               expected([](i64 id, i64, i64 x, i64, i64) { return id >= 1200 && x != 5; }));
  check_result(
      loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x >= 0 AND id BETWEEN 10 AND 4990 "
                "AND x = 7">(t),
      expected([](i64 id, i64, i64 x, i64, i64) { return id >= 10 && id <= 4990 && x == 7; }));
  // a bound needing a lift (an integer against 7.5) is tested row by row, next to one selected
  check_result(loom::sql<"SELECT COUNT(*) AS n, SUM(x) AS s FROM t WHERE x < 7.5 AND id > 100">(t),
               expected([](i64 id, i64, i64 x, i64, i64) { return x < 8 && id > 100; }));
}

TEST_CASE("sql: the scanned table of a join selects its rows by its bounds first") {
  using i64 = std::int64_t;
  // keys: k 1..9 with a weight; t is scanned (the larger), its bounds select, keys' own bound is
  // the hashed side's filter
  std::ostringstream csv;
  csv << "k,w\n";
  for (int k = 1; k <= 9; ++k) csv << k << ',' << k * 10 << '\n';
  const rel::table keys =
      rel::read_csv_text(csv.str(), "keys", {{"k", column_type::int64}, {"w", column_type::int64}});
  loom::sql_database db;
  db.add("t", t).add("keys", keys);
  const rel::table r = loom::sql<R"(
      SELECT COUNT(*) AS n, SUM(x * w) AS s FROM t, keys
      WHERE t.k = keys.k AND t.d BETWEEN DATE '1994-06-01' AND DATE '1995-06-30'
        AND t.x > 30 AND keys.w < 70)">(db);
  const auto k = t.ints("k"), x = t.ints("x"), d = t.ints("d");
  const i64 lo = rel::date("1994-06-01"), hi = rel::date("1995-06-30");
  i64 n = 0, s = 0;
  for (std::size_t row = 0; row < t.rows(); ++row)
    if (d[row] >= lo && d[row] <= hi && x[row] > 30 && k[row] * 10 < 70) {
      ++n;
      s += x[row] * k[row] * 10;
    }
  REQUIRE(n > 0);
  CHECK(r.ints("n")[0] == n);
  CHECK(r["s"].number(0) == static_cast<double>(s));
}

TEST_CASE("sql: explain lists the column bounds that select the scanned table's rows") {
  const std::string one = loom::sql_explain<R"(SELECT COUNT(*) AS n FROM t
      WHERE d >= DATE '1995-01-01' AND x < 7.5 AND cents BETWEEN 2.50 AND 7.25 AND k = 3)">(t);
  // x < 7.5 needs a lift (tested row by row); the others compare as integers
  CHECK(one.find("  rows selected a block at a time by: d >= DATE '1995-01-01' AND cents BETWEEN "
                 "2.5 AND 7.25 AND k = 3\n") != std::string::npos);
  CHECK(loom::sql_explain<"SELECT COUNT(*) AS n FROM t WHERE x < 7.5">(t).find("rows selected") ==
        std::string::npos);
}
