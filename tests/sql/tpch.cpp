// TPC-H Q1, Q6 and Q12 written as SQL text (examples/tpch/sql_queries.hpp) at scale factor
// 0.01: against plain C++ loops over the same columns, and against SQLite running the same
// queries (examples/tpch/sql/q1.sql, q6.sql, q12.sql) on the same CSV files when the sqlite3
// shell is installed.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../examples/tpch/dbgen.hpp"
#include "../../examples/tpch/sql_queries.hpp"
#include "../../examples/tpch/verify.hpp"

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;
using rel::column_type;

/// SF 0.01 with every column, generated once for the test cases of this file.
struct tpch_data {
  fs::path dir = fs::temp_directory_path() / "loom_tests_sql_tpch";
  rel::table lineitem, orders;
  tpch_data() {
    fs::remove_all(dir);
    tpch::generate(dir, 0.01, true);
    lineitem = tpch::sql::load_lineitem(dir);
    orders = tpch::sql::load_orders(dir);
  }
  ~tpch_data() { fs::remove_all(dir); }
  tpch_data(const tpch_data&) = delete;
  tpch_data& operator=(const tpch_data&) = delete;
};
const tpch_data& data() {
  static const tpch_data d;
  return d;
}

/// Runs examples/tpch/sql/<query>.sql in SQLite over lineitem.csv and orders.csv; returns its
/// CSV output.
std::string sqlite_answer(const std::string& query) {
  const fs::path sql_dir = fs::path(__FILE__).parent_path() / "../../examples/tpch/sql";
  const fs::path script = data().dir / ("run_" + query + ".sqlite"),
                 out = data().dir / (query + ".sqlite.csv");
  {
    std::ofstream s(script);
    // Each file goes into a staging table named by its header, then the columns the queries
    // read are copied into a typed table (decimals as REAL, dates as ISO text).
    s << "create table lineitem(l_orderkey integer, l_quantity real, l_extendedprice real, "
         "l_discount real, l_tax real, l_returnflag text, l_linestatus text, l_shipdate text, "
         "l_commitdate text, l_receiptdate text, l_shipmode text);\n"
      << "create table orders(o_orderkey integer primary key, o_orderpriority text);\n"
      << ".mode csv\n.import '" << (data().dir / "lineitem.csv").string() << "' lineitem_csv\n"
      << "insert into lineitem select l_orderkey, l_quantity, l_extendedprice, l_discount, "
         "l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, "
         "l_shipmode from lineitem_csv;\n"
      << ".import '" << (data().dir / "orders.csv").string() << "' orders_csv\n"
      << "insert into orders select o_orderkey, o_orderpriority from orders_csv;\n"
      << ".headers on\n.once '" << out.string() << "'\n.read '"
      << (sql_dir / (query + ".sql")).string() << "'\n";
  }
  const std::string cmd = "sqlite3 :memory: < '" + script.string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("sql: TPC-H Q1 as SQL text agrees with a hand-written loop (SF 0.01)") {
  const rel::table& l = data().lineitem;
  const rel::table r = tpch::sql::q1(l);

  struct sums {
    double qty = 0, base = 0, disc_price = 0, charge = 0, disc = 0;
    std::int64_t n = 0;
  };
  std::map<std::pair<std::string, std::string>, sums> groups;
  const auto qty = l.reals("l_quantity"), price = l.reals("l_extendedprice"),
             disc = l.reals("l_discount"), tax = l.reals("l_tax");
  const auto ship = l.ints("l_shipdate");
  for (std::size_t i = 0; i < l.rows(); ++i) {
    if (ship[i] > rel::date("1998-09-02")) continue;
    sums& s = groups[{l["l_returnflag"].text(i), l["l_linestatus"].text(i)}];
    s.qty += qty[i];
    s.base += price[i];
    s.disc_price += price[i] * (1 - disc[i]);
    s.charge += price[i] * (1 - disc[i]) * (1 + tax[i]);
    s.disc += disc[i];
    ++s.n;
  }
  REQUIRE(groups.size() == 4);  // (A, F), (N, F), (N, O), (R, F)
  REQUIRE(r.rows() == groups.size());
  std::size_t row = 0;
  for (const auto& [key, s] : groups) {
    CAPTURE(row);
    CHECK(r["l_returnflag"].text(row) == key.first);
    CHECK(r["l_linestatus"].text(row) == key.second);
    CHECK(close(r.reals("sum_qty")[row], s.qty));
    CHECK(close(r.reals("sum_base_price")[row], s.base));
    CHECK(close(r.reals("sum_disc_price")[row], s.disc_price));
    CHECK(close(r.reals("sum_charge")[row], s.charge));
    CHECK(close(r.reals("avg_qty")[row], s.qty / static_cast<double>(s.n)));
    CHECK(close(r.reals("avg_price")[row], s.base / static_cast<double>(s.n)));
    CHECK(close(r.reals("avg_disc")[row], s.disc / static_cast<double>(s.n)));
    CHECK(r.ints("count_order")[row] == s.n);
    ++row;
  }
}

TEST_CASE("sql: TPC-H Q6 as SQL text agrees with a hand-written loop (SF 0.01)") {
  const rel::table& l = data().lineitem;
  const rel::table r = tpch::sql::q6(l);
  double revenue = 0;
  std::int64_t matched = 0;
  const auto qty = l.reals("l_quantity"), price = l.reals("l_extendedprice"),
             disc = l.reals("l_discount");
  const auto ship = l.ints("l_shipdate");
  const double low = 0.06 - 0.01, high = 0.06 + 0.01;  // as SQL computes them: in doubles
  for (std::size_t i = 0; i < l.rows(); ++i)
    if (ship[i] >= rel::date("1994-01-01") && ship[i] < rel::date("1995-01-01") && disc[i] >= low &&
        disc[i] <= high && qty[i] < 24) {
      revenue += price[i] * disc[i];
      ++matched;
    }
  CHECK(matched > 100);
  REQUIRE(r.rows() == 1);
  CHECK(close(r.reals("revenue")[0], revenue));
}

TEST_CASE("sql: TPC-H Q12 as SQL text, a join of two tables, agrees with a hand-written loop") {
  const rel::table& l = data().lineitem;
  const rel::table& o = data().orders;
  const rel::table r = tpch::sql::q12(o, l);
  std::map<std::int64_t, std::string> priority;  // o_orderkey -> o_orderpriority
  for (std::size_t i = 0; i < o.rows(); ++i)
    priority[o.ints("o_orderkey")[i]] = o["o_orderpriority"].text(i);
  std::map<std::string, std::pair<double, double>> modes;  // high, low line counts
  const auto ship = l.ints("l_shipdate"), commit = l.ints("l_commitdate"),
             receipt = l.ints("l_receiptdate"), key = l.ints("l_orderkey");
  for (std::size_t i = 0; i < l.rows(); ++i) {
    const std::string mode = l["l_shipmode"].text(i);
    if ((mode != "MAIL" && mode != "SHIP") || commit[i] >= receipt[i] || ship[i] >= commit[i] ||
        receipt[i] < rel::date("1994-01-01") || receipt[i] >= rel::date("1995-01-01"))
      continue;
    const std::string& p = priority.at(key[i]);
    const bool high = p == "1-URGENT" || p == "2-HIGH";
    (high ? modes[mode].first : modes[mode].second) += 1;
  }
  REQUIRE(modes.size() == 2);
  REQUIRE(r.rows() == 2);
  std::size_t row = 0;
  for (const auto& [mode, counts] : modes) {
    CHECK(r["l_shipmode"].text(row) == mode);
    CHECK(r.reals("high_line_count")[row] == counts.first);
    CHECK(r.reals("low_line_count")[row] == counts.second);
    CHECK(counts.first > 0);
    ++row;
  }
}

TEST_CASE("sql: TPC-H Q1, Q6 and Q12 agree with SQLite on the same CSV files (SF 0.01)") {
  if (!tpch::have_sqlite3()) {
    MESSAGE("sqlite3 is not installed (Debian: sqlite3): the comparison with SQLite is skipped");
    return;
  }
  const std::vector<rel::column_spec> q1_schema = {
      {"l_returnflag", column_type::string},    {"l_linestatus", column_type::string},
      {"sum_qty", column_type::decimal},        {"sum_base_price", column_type::decimal},
      {"sum_disc_price", column_type::decimal}, {"sum_charge", column_type::decimal},
      {"avg_qty", column_type::decimal},        {"avg_price", column_type::decimal},
      {"avg_disc", column_type::decimal},       {"count_order", column_type::int64}};
  for (const std::string& d :
       tpch::differences(tpch::sql::q1(data().lineitem), sqlite_answer("q1"), q1_schema))
    FAIL_CHECK("Q1: " << d);
  for (const std::string& d : tpch::differences(tpch::sql::q6(data().lineitem), sqlite_answer("q6"),
                                                {{"revenue", column_type::decimal}}))
    FAIL_CHECK("Q6: " << d);
  for (const std::string& d :
       tpch::differences(tpch::sql::q12(data().orders, data().lineitem), sqlite_answer("q12"),
                         {{"l_shipmode", column_type::string},
                          {"high_line_count", column_type::decimal},
                          {"low_line_count", column_type::decimal}}))
    FAIL_CHECK("Q12: " << d);
}
