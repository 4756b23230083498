// Exact decimals in loom::sql (sql/execute.hpp): +, -, * of fixed decimals, integers and number
// literals computed as scaled int64 (checked for overflow), comparisons with literals exact,
// SUM, MIN and MAX exact result columns with their scale, AVG and / in doubles; each against an
// integer loop over the same scaled values.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

/// k (int64 1..5), price (DECIMAL(15,2)), disc (DECIMAL(15,2), 0.00 to 0.10), qty (int64),
/// weight (a double); prices end in every cent, so doubles would round.
rel::table make_items(std::size_t rows) {
  std::mt19937_64 rng(7);
  std::ostringstream csv;
  csv << "k,price,disc,qty,weight\n";
  for (std::size_t r = 0; r < rows; ++r)
    csv << 1 + rng() % 5 << ',' << rel::format_fixed(static_cast<std::int64_t>(rng() % 10000000), 2)
        << ',' << rel::format_fixed(static_cast<std::int64_t>(rng() % 11), 2) << ','
        << 1 + rng() % 50 << ',' << static_cast<double>(rng() % 1000) / 8 << '\n';
  return rel::read_csv_text(csv.str(), "items",
                            {{"k", column_type::int64},
                             {"price", column_type::fixed, 2},
                             {"disc", column_type::fixed, 2},
                             {"qty", column_type::int64},
                             {"weight", column_type::decimal}});
}
const rel::table& items() {
  static const rel::table t = make_items(20000);
  return t;
}
}  // namespace

TEST_CASE("sql: SUM of fixed decimal arithmetic is exact, with the scale the operands give") {
  const rel::table& t = items();
  const auto price = t.ints("price"), disc = t.ints("disc"), qty = t.ints("qty"), k = t.ints("k");
  std::map<std::int64_t, std::int64_t> net, gross, top, low;  // scale 4, 2, 2, 2
  std::map<std::int64_t, std::int64_t> n;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    net[k[i]] += price[i] * (100 - disc[i]) + qty[i] * 1000;  // price * (1 - disc) + qty * 0.1
    gross[k[i]] += price[i];
    top[k[i]] = n[k[i]] ? std::max(top[k[i]], price[i]) : price[i];
    low[k[i]] = n[k[i]] ? std::min(low[k[i]], disc[i]) : disc[i];
    ++n[k[i]];
  }
  const rel::table r = loom::sql<R"(
      SELECT k, SUM(price * (1 - disc) + qty * 0.1) AS net, SUM(price) AS gross,
             MAX(price) AS top, MIN(disc) AS low, AVG(price) AS mean, COUNT(*) AS n,
             SUM(price) / COUNT(*) AS ratio, SUM(price) - SUM(disc) AS spread
      FROM items GROUP BY k ORDER BY k)">(t);
  REQUIRE(r.rows() == 5u);
  CHECK(r["net"].type() == column_type::fixed);
  CHECK(r["net"].scale() == 4);
  CHECK(r["gross"].scale() == 2);
  CHECK(r["top"].type() == column_type::fixed);
  CHECK(r["top"].scale() == 2);
  CHECK(r["low"].scale() == 2);
  CHECK(r["spread"].type() == column_type::fixed);
  CHECK(r["mean"].type() == column_type::decimal);   // AVG: a double, as DuckDB gives
  CHECK(r["ratio"].type() == column_type::decimal);  // a quotient: a double
  CHECK(r["n"].type() == column_type::int64);
  std::size_t row = 0;
  for (const auto& [key, value] : net) {
    CAPTURE(row);
    CHECK(r.ints("k")[row] == key);
    CHECK(r.ints("net")[row] == value);
    CHECK(r.ints("gross")[row] == gross[key]);
    CHECK(r.ints("top")[row] == top[key]);
    CHECK(r.ints("low")[row] == low[key]);
    CHECK(r["net"].text(row) == rel::format_fixed(value, 4));
    CHECK(r.ints("n")[row] == n[key]);
    CHECK(r.reals("mean")[row] ==
          doctest::Approx(static_cast<double>(gross[key]) / 100 / static_cast<double>(n[key])));
    ++row;
  }
}

TEST_CASE("sql: comparisons of a fixed decimal with literals are exact") {
  const rel::table& t = items();
  const auto price = t.ints("price"), disc = t.ints("disc");
  std::int64_t kept = 0, revenue = 0, above = 0, equal = 0;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    if (disc[i] >= 5 && disc[i] <= 7) {
      ++kept;
      revenue += price[i] * disc[i];
    }
    above += price[i] * 10 > 50000050 ? 1 : 0;  // price > 50000.005
    equal += disc[i] == 7 ? 1 : 0;
  }
  REQUIRE(kept > 0);
  REQUIRE(equal > 0);
  // 0.06 + 0.01 folds to the literal 0.07; in doubles it would be 0.06999999999999999
  const rel::table r = loom::sql<R"(
      SELECT SUM(price * disc) AS revenue, COUNT(*) AS n FROM items
      WHERE disc BETWEEN 0.06 - 0.01 AND 0.06 + 0.01)">(t);
  CHECK(r.ints("n")[0] == kept);
  CHECK(r.ints("revenue")[0] == revenue);
  CHECK(r["revenue"].scale() == 4);
  CHECK((loom::sql<"SELECT COUNT(*) AS n FROM items WHERE price > 50000.005">(t)).ints("n")[0] ==
        above);
  CHECK((loom::sql<"SELECT COUNT(*) AS n FROM items WHERE disc = 0.07">(t)).ints("n")[0] == equal);
  CHECK((loom::sql<"SELECT COUNT(*) AS n FROM items WHERE 0.070 = disc">(t)).ints("n")[0] == equal);
  CHECK((loom::sql<"SELECT COUNT(*) AS n FROM items WHERE disc * 100 = 7">(t)).ints("n")[0] ==
        equal);
}

TEST_CASE("sql: integer columns compare with integer literals exactly, past 2^53") {
  // 2^53 + 1 is not a double: compared in doubles, it would equal 2^53
  const rel::table t =
      rel::read_csv_text("id,x\n1,9007199254740992\n2,9007199254740993\n3,7\n", "big",
                         {{"id", column_type::int64}, {"x", column_type::int64}});
  CHECK((loom::sql<"SELECT SUM(id) AS s FROM big WHERE x > 9007199254740992">(t))["s"].number(0) ==
        2);
  CHECK((loom::sql<"SELECT SUM(id) AS s FROM big WHERE x = 9007199254740993">(t))["s"].number(0) ==
        2);
  CHECK((loom::sql<R"(SELECT SUM(id) AS s FROM big
                      WHERE x BETWEEN 9007199254740993 AND 9007199254740999)">(t))["s"]
            .number(0) == 2);
  // a literal with a fraction still compares by value
  CHECK((loom::sql<"SELECT SUM(id) AS s FROM big WHERE x < 7.5">(t))["s"].number(0) == 3);
  CHECK((loom::sql<"SELECT SUM(id) AS s FROM big WHERE x >= 6.5 AND x <= 7">(t))["s"].number(0) ==
        3);
}

TEST_CASE("sql: a projection of fixed decimals is exact; with a double column or / it is double") {
  const rel::table& t = items();
  const rel::table r = loom::sql<R"(
      SELECT price, -price AS neg, price * qty AS total, price * weight AS w, price / 2 AS half
      FROM items WHERE k = 3 ORDER BY total DESC, price LIMIT 50)">(t);
  REQUIRE(r.rows() == 50u);
  CHECK(r["price"].type() == column_type::fixed);
  CHECK(r["neg"].scale() == 2);
  CHECK(r["total"].scale() == 2);
  CHECK(r["w"].type() == column_type::decimal);
  CHECK(r["half"].type() == column_type::decimal);
  for (std::size_t i = 0; i < r.rows(); ++i) {
    CHECK(r.ints("neg")[i] == -r.ints("price")[i]);
    CHECK(r.reals("half")[i] == static_cast<double>(r.ints("price")[i]) / 100 / 2);
    if (i > 0) CHECK(r.ints("total")[i] <= r.ints("total")[i - 1]);
  }
  // grouping by a fixed decimal: its key is exact and the result column keeps its scale
  const rel::table g =
      loom::sql<"SELECT disc, COUNT(*) AS n FROM items GROUP BY disc ORDER BY disc">(t);
  REQUIRE(g.rows() == 11u);
  CHECK(g["disc"].type() == column_type::fixed);
  for (std::size_t i = 0; i < g.rows(); ++i) CHECK(g.ints("disc")[i] == static_cast<int>(i));
  CHECK(g["disc"].text(7) == "0.07");
}

TEST_CASE("sql: exact arithmetic that leaves int64 throws, never wraps") {
  rel::table t("big");
  t.add(rel::column::fixed("a", {900000000000000000, 1}, 2))
      .add(rel::column::fixed("b", {5000000000000000000, 5000000000000000000}, 0))
      .add(rel::column::fixed("c", {3, 4}, 10));
  CHECK_THROWS_AS((void)loom::sql<"SELECT SUM(a * a) AS s FROM big">(t), loom::overflow_error);
  CHECK_THROWS_AS((void)loom::sql<"SELECT SUM(a * 100) AS s FROM big">(t), loom::overflow_error);
  CHECK_THROWS_AS((void)loom::sql<"SELECT b + b AS s FROM big">(t), loom::overflow_error);
  // a SUM adds in 128 bits; a total that does not fit int64 gives a double column instead
  const rel::table total = loom::sql<"SELECT SUM(b) AS s, COUNT(*) AS n FROM big">(t);
  CHECK(total["s"].type() == column_type::decimal);
  CHECK(total.reals("s")[0] == 1e19);
  CHECK(total.ints("n")[0] == 2);
  const rel::table fits = loom::sql<"SELECT SUM(b) AS s FROM big WHERE a = 0.01">(t);
  CHECK(fits["s"].type() == column_type::fixed);
  CHECK(fits.ints("s")[0] == 5000000000000000000);
  // read in doubles (a quotient), the 128-bit total is not narrowed
  CHECK((loom::sql<"SELECT SUM(b) / 2 AS s FROM big">(t)).reals("s")[0] == 5e18);
  // a scale past 18 (10 + 10) is computed in doubles
  const rel::table c = loom::sql<"SELECT SUM(c * c) AS s FROM big">(t);
  CHECK(c["s"].type() == column_type::decimal);
  CHECK(c.reals("s")[0] == doctest::Approx(25e-20));
  // an empty MIN has no value: NaN, in a decimal column, as for doubles
  const rel::table e = loom::sql<"SELECT MIN(a) AS m, SUM(a) AS s FROM big WHERE a < 0">(t);
  CHECK(e["m"].type() == column_type::decimal);
  CHECK(std::isnan(e.reals("m")[0]));
  CHECK(e.ints("s")[0] == 0);
}

TEST_CASE("sql: a schema's DECIMAL(15,2) column is a fixed decimal of scale 2") {
  loom::sql_database db;
  db.add("items", items());
  constexpr loom::fixed_string schema =
      "items(k INT, price DECIMAL(15,2), disc NUMERIC(15, 2), qty INT, weight DOUBLE)";
  const rel::table r =
      loom::sql<"SELECT SUM(price * (1 - disc)) AS net FROM items WHERE k = 1", schema>(db);
  const rel::table unchecked =
      loom::sql<"SELECT SUM(price * (1 - disc)) AS net FROM items WHERE k = 1">(db);
  CHECK(r.ints("net")[0] == unchecked.ints("net")[0]);
  CHECK_THROWS_AS(
      ((void)loom::sql<"SELECT COUNT(*) FROM items", "items(k INT, price DECIMAL(15,3))">(db)),
      rel::column_error);
  // a fixed decimal joins only a fixed decimal of the same scale
  rel::table keys("keys");
  keys.add(rel::column("price", std::vector<std::int64_t>{1, 2}));
  loom::sql_database joined;
  joined.add("items", items()).add("keys", keys);
  CHECK_THROWS_AS(
      (void)loom::sql<"SELECT COUNT(*) FROM items i, keys p WHERE i.price = p.price">(joined),
      rel::column_error);
}
