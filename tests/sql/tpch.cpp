// TPC-H Q1, Q3, Q5 to Q10, Q12, Q14 and Q19 written as SQL text (examples/tpch/sql_queries.hpp) at
// scale factor 0.01: against plain C++ loops over the same columns, and against SQLite running
// the same queries (examples/tpch/sql/q*.sql) on the same CSV files when the sqlite3 shell is
// installed.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
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
  std::unique_ptr<tpch::sql::tables> tables;
  tpch_data() {
    fs::remove_all(dir);
    tpch::generate(dir, 0.01, true);
    tables = std::make_unique<tpch::sql::tables>(dir);
  }
  ~tpch_data() { fs::remove_all(dir); }
  tpch_data(const tpch_data&) = delete;
  tpch_data& operator=(const tpch_data&) = delete;
};
const tpch_data& data() {
  static const tpch_data d;
  return d;
}
const tpch::sql::tables& tables() { return *data().tables; }

/// Runs examples/tpch/sql/<query>.sql in SQLite over the CSV files; returns its CSV output.
std::string sqlite_answer(const std::string& query) {
  const fs::path sql_dir = fs::path(__FILE__).parent_path() / "../../examples/tpch/sql";
  const fs::path script = data().dir / ("run_" + query + ".sqlite"),
                 out = data().dir / (query + ".sqlite.csv");
  // The columns the queries read, typed for SQLite: decimals as REAL, dates as ISO text.
  const std::pair<const char*, const char*> schema[] = {
      {"lineitem",
       "l_orderkey integer, l_partkey integer, l_suppkey integer, l_quantity real, "
       "l_extendedprice real, l_discount real, l_tax real, l_returnflag text, "
       "l_linestatus text, l_shipdate text, l_commitdate text, l_receiptdate text, "
       "l_shipinstruct text, l_shipmode text"},
      {"orders",
       "o_orderkey integer primary key, o_custkey integer, o_orderdate text, "
       "o_orderpriority text, o_shippriority integer"},
      {"customer",
       "c_custkey integer primary key, c_name text, c_address text, c_nationkey integer, "
       "c_phone text, c_acctbal real, c_mktsegment text, c_comment text"},
      {"supplier", "s_suppkey integer primary key, s_nationkey integer"},
      {"nation", "n_nationkey integer primary key, n_name text, n_regionkey integer"},
      {"region", "r_regionkey integer primary key, r_name text"},
      {"part",
       "p_partkey integer primary key, p_name text, p_brand text, p_type text, "
       "p_size integer, p_container text"},
      {"partsupp", "ps_partkey integer, ps_suppkey integer, ps_supplycost real"}};
  {
    std::ofstream s(script);
    s << ".mode csv\n";
    // Each file goes into a staging table named by its header, then the columns the queries
    // read are copied by name into the typed table.
    for (const auto& [table, columns] : schema) {
      std::string names;
      for (std::string_view rest = columns; !rest.empty();) {
        const std::size_t comma = rest.find(", ");
        const std::string_view item = rest.substr(0, comma);
        names += (names.empty() ? "" : ", ") + std::string(item.substr(0, item.find(' ')));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 2);
      }
      s << "create table " << table << "(" << columns << ");\n"
        << ".import '" << (data().dir / (std::string(table) + ".csv")).string() << "' " << table
        << "_csv\n"
        << "insert into " << table << " select " << names << " from " << table << "_csv;\n";
    }
    s << ".headers on\n.once '" << out.string() << "'\n.read '"
      << (sql_dir / (query + ".sql")).string() << "'\n";
  }
  const std::string cmd = "sqlite3 :memory: < '" + script.string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A numeric column's values as doubles (a fixed decimal's as its text reads).
std::vector<double> numbers(const rel::table& t, std::string_view name) {
  const rel::column& c = t[name];
  std::vector<double> out(c.size());
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = c.number(r);
  return out;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("sql: TPC-H Q1 as SQL text agrees with a hand-written loop (SF 0.01)") {
  const rel::table& l = tables().lineitem;
  const rel::table r = tpch::sql::q1(l);

  struct sums {
    double qty = 0, base = 0, disc_price = 0, charge = 0, disc = 0;
    std::int64_t n = 0;
  };
  std::map<std::pair<std::string, std::string>, sums> groups;
  const auto qty = numbers(l, "l_quantity"), price = numbers(l, "l_extendedprice"),
             disc = numbers(l, "l_discount"), tax = numbers(l, "l_tax");
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
    CHECK(close(r["sum_qty"].number(row), s.qty));
    CHECK(close(r["sum_base_price"].number(row), s.base));
    CHECK(close(r["sum_disc_price"].number(row), s.disc_price));
    CHECK(close(r["sum_charge"].number(row), s.charge));
    CHECK(close(r["avg_qty"].number(row), s.qty / static_cast<double>(s.n)));
    CHECK(close(r["avg_price"].number(row), s.base / static_cast<double>(s.n)));
    CHECK(close(r["avg_disc"].number(row), s.disc / static_cast<double>(s.n)));
    CHECK(r.ints("count_order")[row] == s.n);
    ++row;
  }
}

TEST_CASE("sql: TPC-H Q6 as SQL text agrees with a hand-written loop (SF 0.01)") {
  const rel::table& l = tables().lineitem;
  const rel::table r = tpch::sql::q6(l);
  double revenue = 0;
  std::int64_t matched = 0;
  const auto qty = numbers(l, "l_quantity"), price = numbers(l, "l_extendedprice"),
             disc = numbers(l, "l_discount");
  const auto ship = l.ints("l_shipdate");
  // 0.06 - 0.01 and 0.06 + 0.01 are folded exactly, as DECIMAL literals: 0.05 and 0.07 (in
  // doubles 0.06 + 0.01 is 0.06999999999999999, which would leave out the discounts of 0.07)
  const double low = 0.05, high = 0.07;
  for (std::size_t i = 0; i < l.rows(); ++i)
    if (ship[i] >= rel::date("1994-01-01") && ship[i] < rel::date("1995-01-01") && disc[i] >= low &&
        disc[i] <= high && qty[i] < 24) {
      revenue += price[i] * disc[i];
      ++matched;
    }
  CHECK(matched > 100);
  REQUIRE(r.rows() == 1);
  CHECK(close(r["revenue"].number(0), revenue));
}

namespace {
/// A decimal text with at most two digits after the point, in cents: parsed here digit by digit,
/// apart from loom's reader.
std::int64_t cents(const std::string& text) {
  std::int64_t v = 0;
  int after = -1;
  for (const char c : text) {
    if (c == '.') {
      after = 0;
      continue;
    }
    if (c < '0' || c > '9') throw std::invalid_argument("not a decimal: " + text);
    v = v * 10 + (c - '0');
    if (after >= 0) ++after;
  }
  if (after > 2) throw std::invalid_argument("more than two decimals: " + text);
  for (int k = std::max(after, 0); k < 2; ++k) v *= 10;
  return v;
}
}  // namespace

TEST_CASE("sql: TPC-H Q1's and Q6's sums are exact decimals, equal to integer sums of cents") {
  // lineitem's money columns as their text in the generated file (string columns), so that the
  // expected sums depend on neither loom's fixed decimal reader nor its SQL arithmetic
  const rel::table text = rel::read_csv((data().dir / "lineitem.csv").string(),
                                        {{"l_quantity", column_type::string},
                                         {"l_extendedprice", column_type::string},
                                         {"l_discount", column_type::string},
                                         {"l_tax", column_type::string},
                                         {"l_returnflag", column_type::string},
                                         {"l_linestatus", column_type::string},
                                         {"l_shipdate", column_type::date}});
  struct sums {
    __extension__ __int128 qty = 0, base = 0, disc_price = 0, charge = 0;
    std::int64_t n = 0;
  };
  std::map<std::pair<std::string, std::string>, sums> q1;
  __extension__ __int128 q6 = 0;
  const auto ship = text.ints("l_shipdate");
  for (std::size_t i = 0; i < text.rows(); ++i) {
    const std::int64_t qty = cents(text["l_quantity"].text(i)),
                       price = cents(text["l_extendedprice"].text(i)),
                       disc = cents(text["l_discount"].text(i)), tax = cents(text["l_tax"].text(i));
    if (ship[i] <= rel::date("1998-09-02")) {
      sums& s = q1[{text["l_returnflag"].text(i), text["l_linestatus"].text(i)}];
      s.qty += qty;                                                           // scale 2
      s.base += price;                                                        // scale 2
      s.disc_price += static_cast<__int128>(price) * (100 - disc);            // scale 4
      s.charge += static_cast<__int128>(price) * (100 - disc) * (100 + tax);  // scale 6
      ++s.n;
    }
    if (ship[i] >= rel::date("1994-01-01") && ship[i] < rel::date("1995-01-01") && disc >= 5 &&
        disc <= 7 && qty < 2400)
      q6 += static_cast<__int128>(price) * disc;  // scale 4
  }
  auto narrow = [](__int128 v) {
    REQUIRE(v <= std::numeric_limits<std::int64_t>::max());
    return static_cast<std::int64_t>(v);
  };

  const rel::table r1 = tpch::sql::q1(tables().lineitem);
  REQUIRE(r1.rows() == q1.size());
  CHECK(r1["sum_qty"].scale() == 2);
  CHECK(r1["sum_base_price"].scale() == 2);
  CHECK(r1["sum_disc_price"].scale() == 4);
  CHECK(r1["sum_charge"].scale() == 6);
  CHECK(r1["avg_qty"].type() == column_type::decimal);  // AVG: a double
  std::size_t row = 0;
  for (const auto& [key, s] : q1) {
    CAPTURE(row);
    CHECK(r1["l_returnflag"].text(row) == key.first);
    CHECK(r1.ints("sum_qty")[row] == narrow(s.qty));
    CHECK(r1.ints("sum_base_price")[row] == narrow(s.base));
    CHECK(r1.ints("sum_disc_price")[row] == narrow(s.disc_price));
    CHECK(r1.ints("sum_charge")[row] == narrow(s.charge));
    CHECK(r1["sum_charge"].text(row) == rel::format_fixed(narrow(s.charge), 6));
    CHECK(r1.ints("count_order")[row] == s.n);
    ++row;
  }

  const rel::table r6 = tpch::sql::q6(tables().lineitem);
  REQUIRE(r6.rows() == 1);
  CHECK(r6["revenue"].scale() == 4);
  CHECK(r6.ints("revenue")[0] == narrow(q6));
  CHECK(r6["revenue"].text(0) == rel::format_fixed(narrow(q6), 4));
}

TEST_CASE("sql: TPC-H Q12 as SQL text, a join of two tables, agrees with a hand-written loop") {
  const rel::table& l = tables().lineitem;
  const rel::table& o = tables().orders;
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
    CHECK(r["high_line_count"].number(row) == counts.first);
    CHECK(r["low_line_count"].number(row) == counts.second);
    CHECK(counts.first > 0);
    ++row;
  }
}

/// Revenue per key, sorted by revenue descending (ties by key), the first `limit` rows.
template <class Key>
std::vector<std::pair<Key, double>> top(const std::map<Key, double>& revenue, std::size_t limit) {
  std::vector<std::pair<Key, double>> rows(revenue.begin(), revenue.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (rows.size() > limit) rows.resize(limit);
  return rows;
}

TEST_CASE("sql: TPC-H Q3 as SQL text, a join of three tables, agrees with a hand-written loop") {
  const tpch::sql::tables& t = tables();
  const rel::table r = tpch::sql::q3(t);
  std::map<std::int64_t, bool> building;  // c_custkey -> in segment BUILDING
  for (std::size_t i = 0; i < t.customer.rows(); ++i)
    building[t.customer.ints("c_custkey")[i]] = t.customer["c_mktsegment"].text(i) == "BUILDING";
  const std::int64_t day = rel::date("1995-03-15");
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> orders;  // date, shippriority
  for (std::size_t i = 0; i < t.orders.rows(); ++i)
    if (t.orders.ints("o_orderdate")[i] < day && building.at(t.orders.ints("o_custkey")[i]))
      orders[t.orders.ints("o_orderkey")[i]] = {t.orders.ints("o_orderdate")[i],
                                                t.orders.ints("o_shippriority")[i]};
  std::map<std::int64_t, double> revenue;
  const rel::table& l = t.lineitem;
  for (std::size_t i = 0; i < l.rows(); ++i)
    if (l.ints("l_shipdate")[i] > day && orders.count(l.ints("l_orderkey")[i]))
      revenue[l.ints("l_orderkey")[i]] +=
          l["l_extendedprice"].number(i) * (1 - l["l_discount"].number(i));
  const auto expected = top(revenue, 10);
  REQUIRE(expected.size() == 10);
  REQUIRE(r.rows() == expected.size());
  for (std::size_t row = 0; row < r.rows(); ++row) {
    CAPTURE(row);
    CHECK(r.ints("l_orderkey")[row] == expected[row].first);
    CHECK(close(r["revenue"].number(row), expected[row].second));
    CHECK(r.ints("o_orderdate")[row] == orders.at(expected[row].first).first);
    CHECK(r.ints("o_shippriority")[row] == orders.at(expected[row].first).second);
  }
}

TEST_CASE("sql: TPC-H Q5 as SQL text, a join of six tables, agrees with a hand-written loop") {
  const tpch::sql::tables& t = tables();
  const rel::table r = tpch::sql::q5(t);
  std::map<std::int64_t, std::string> region;  // r_regionkey -> r_name
  for (std::size_t i = 0; i < t.region.rows(); ++i)
    region[t.region.ints("r_regionkey")[i]] = t.region["r_name"].text(i);
  std::map<std::int64_t, std::string> asia;  // n_nationkey -> n_name, the nations of ASIA
  for (std::size_t i = 0; i < t.nation.rows(); ++i)
    if (region.at(t.nation.ints("n_regionkey")[i]) == "ASIA")
      asia[t.nation.ints("n_nationkey")[i]] = t.nation["n_name"].text(i);
  std::map<std::int64_t, std::int64_t> supplier_nation, customer_nation, customer_of;
  for (std::size_t i = 0; i < t.supplier.rows(); ++i)
    supplier_nation[t.supplier.ints("s_suppkey")[i]] = t.supplier.ints("s_nationkey")[i];
  for (std::size_t i = 0; i < t.customer.rows(); ++i)
    customer_nation[t.customer.ints("c_custkey")[i]] = t.customer.ints("c_nationkey")[i];
  for (std::size_t i = 0; i < t.orders.rows(); ++i) {
    const std::int64_t d = t.orders.ints("o_orderdate")[i];
    if (d >= rel::date("1994-01-01") && d < rel::date("1995-01-01"))
      customer_of[t.orders.ints("o_orderkey")[i]] = t.orders.ints("o_custkey")[i];
  }
  std::map<std::string, double> revenue;
  const rel::table& l = t.lineitem;
  for (std::size_t i = 0; i < l.rows(); ++i) {
    const auto order = customer_of.find(l.ints("l_orderkey")[i]);
    if (order == customer_of.end()) continue;
    const std::int64_t nation = customer_nation.at(order->second);
    if (supplier_nation.at(l.ints("l_suppkey")[i]) != nation || !asia.count(nation)) continue;
    revenue[asia.at(nation)] += l["l_extendedprice"].number(i) * (1 - l["l_discount"].number(i));
  }
  const auto expected = top(revenue, revenue.size());
  REQUIRE(expected.size() == 5);  // the five nations of ASIA
  REQUIRE(r.rows() == expected.size());
  for (std::size_t row = 0; row < r.rows(); ++row) {
    CAPTURE(row);
    CHECK(r["n_name"].text(row) == expected[row].first);
    CHECK(close(r["revenue"].number(row), expected[row].second));
  }
}

TEST_CASE("sql: TPC-H Q10 as SQL text, a join of four tables, agrees with a hand-written loop") {
  const tpch::sql::tables& t = tables();
  const rel::table r = tpch::sql::q10(t);
  std::map<std::int64_t, std::int64_t> customer_of;  // o_orderkey -> o_custkey
  for (std::size_t i = 0; i < t.orders.rows(); ++i) {
    const std::int64_t d = t.orders.ints("o_orderdate")[i];
    if (d >= rel::date("1993-10-01") && d < rel::date("1994-01-01"))
      customer_of[t.orders.ints("o_orderkey")[i]] = t.orders.ints("o_custkey")[i];
  }
  std::map<std::int64_t, double> revenue;  // c_custkey -> revenue
  const rel::table& l = t.lineitem;
  for (std::size_t i = 0; i < l.rows(); ++i) {
    const auto order = customer_of.find(l.ints("l_orderkey")[i]);
    if (order != customer_of.end() && l["l_returnflag"].text(i) == "R")
      revenue[order->second] += l["l_extendedprice"].number(i) * (1 - l["l_discount"].number(i));
  }
  std::map<std::int64_t, std::size_t> customer_row;
  for (std::size_t i = 0; i < t.customer.rows(); ++i)
    customer_row[t.customer.ints("c_custkey")[i]] = i;
  std::map<std::int64_t, std::string> nation;
  for (std::size_t i = 0; i < t.nation.rows(); ++i)
    nation[t.nation.ints("n_nationkey")[i]] = t.nation["n_name"].text(i);
  const auto expected = top(revenue, 20);
  REQUIRE(expected.size() == 20);
  REQUIRE(r.rows() == expected.size());
  for (std::size_t row = 0; row < r.rows(); ++row) {
    CAPTURE(row);
    const std::size_t c = customer_row.at(expected[row].first);
    CHECK(r.ints("c_custkey")[row] == expected[row].first);
    CHECK(close(r["revenue"].number(row), expected[row].second));
    CHECK(r["c_name"].text(row) == t.customer["c_name"].text(c));
    CHECK(r["c_acctbal"].number(row) == t.customer["c_acctbal"].number(c));
    CHECK(r["n_name"].text(row) == nation.at(t.customer.ints("c_nationkey")[c]));
    CHECK(r["c_address"].text(row) == t.customer["c_address"].text(c));
    CHECK(r["c_phone"].text(row) == t.customer["c_phone"].text(c));
    CHECK(r["c_comment"].text(row) == t.customer["c_comment"].text(c));
  }
}

TEST_CASE("sql: TPC-H Q3, Q5 and Q10, joins of three to six tables, agree with SQLite") {
  if (!tpch::have_sqlite3()) {
    MESSAGE("sqlite3 is not installed (Debian: sqlite3): the comparison with SQLite is skipped");
    return;
  }
  for (const std::string& d : tpch::differences(tpch::sql::q3(tables()), sqlite_answer("q3"),
                                                {{"l_orderkey", column_type::int64},
                                                 {"revenue", column_type::decimal},
                                                 {"o_orderdate", column_type::date},
                                                 {"o_shippriority", column_type::int64}}))
    FAIL_CHECK("Q3: " << d);
  for (const std::string& d :
       tpch::differences(tpch::sql::q5(tables()), sqlite_answer("q5"),
                         {{"n_name", column_type::string}, {"revenue", column_type::decimal}}))
    FAIL_CHECK("Q5: " << d);
  for (const std::string& d : tpch::differences(tpch::sql::q10(tables()), sqlite_answer("q10"),
                                                {{"c_custkey", column_type::int64},
                                                 {"c_name", column_type::string},
                                                 {"revenue", column_type::decimal},
                                                 {"c_acctbal", column_type::decimal},
                                                 {"n_name", column_type::string},
                                                 {"c_address", column_type::string},
                                                 {"c_phone", column_type::string},
                                                 {"c_comment", column_type::string}}))
    FAIL_CHECK("Q10: " << d);
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
       tpch::differences(tpch::sql::q1(tables().lineitem), sqlite_answer("q1"), q1_schema))
    FAIL_CHECK("Q1: " << d);
  for (const std::string& d :
       tpch::differences(tpch::sql::q6(tables().lineitem), sqlite_answer("q6"),
                         {{"revenue", column_type::decimal}}))
    FAIL_CHECK("Q6: " << d);
  for (const std::string& d :
       tpch::differences(tpch::sql::q12(tables().orders, tables().lineitem), sqlite_answer("q12"),
                         {{"l_shipmode", column_type::string},
                          {"high_line_count", column_type::decimal},
                          {"low_line_count", column_type::decimal}}))
    FAIL_CHECK("Q12: " << d);
}

/// Row of each key of an integer column.
std::map<std::int64_t, std::size_t> rows_by(const rel::table& t, const std::string& key) {
  std::map<std::int64_t, std::size_t> rows;
  for (std::size_t i = 0; i < t.rows(); ++i) rows[t.ints(key)[i]] = i;
  return rows;
}

TEST_CASE("sql: TPC-H Q14 and Q19 as SQL text agree with hand-written loops (SF 0.01)") {
  const tpch::sql::tables& t = tables();
  const rel::table& l = t.lineitem;
  const auto part = rows_by(t.part, "p_partkey");
  const auto price = numbers(l, "l_extendedprice"), disc = numbers(l, "l_discount"),
             qty = numbers(l, "l_quantity");
  double promo = 0, all = 0, q19 = 0;
  for (std::size_t i = 0; i < l.rows(); ++i) {
    const std::size_t p = part.at(l.ints("l_partkey")[i]);
    const double revenue = price[i] * (1 - disc[i]);
    const std::int64_t ship = l.ints("l_shipdate")[i];
    if (ship >= rel::date("1995-09-01") && ship < rel::date("1995-10-01")) {
      all += revenue;
      if (t.part["p_type"].text(p).rfind("PROMO", 0) == 0) promo += revenue;
    }
    const std::string brand = t.part["p_brand"].text(p), container = t.part["p_container"].text(p);
    const std::int64_t size = t.part.ints("p_size")[p];
    const std::string mode = l["l_shipmode"].text(i);
    if ((mode != "AIR" && mode != "AIR REG") || l["l_shipinstruct"].text(i) != "DELIVER IN PERSON")
      continue;
    auto among = [&](std::initializer_list<std::string_view> names) {
      return std::find(names.begin(), names.end(), container) != names.end();
    };
    const bool small = brand == "Brand#12" && among({"SM CASE", "SM BOX", "SM PACK", "SM PKG"}) &&
                       qty[i] >= 1 && qty[i] <= 11 && size >= 1 && size <= 5;
    const bool medium = brand == "Brand#23" &&
                        among({"MED BAG", "MED BOX", "MED PKG", "MED PACK"}) && qty[i] >= 10 &&
                        qty[i] <= 20 && size >= 1 && size <= 10;
    const bool large = brand == "Brand#34" && among({"LG CASE", "LG BOX", "LG PACK", "LG PKG"}) &&
                       qty[i] >= 20 && qty[i] <= 30 && size >= 1 && size <= 15;
    if (small || medium || large) q19 += revenue;
  }
  const rel::table r14 = tpch::sql::q14(t), r19 = tpch::sql::q19(t);
  REQUIRE(r14.rows() == 1);
  CHECK(promo > 0);
  CHECK(close(r14["promo_revenue"].number(0), 100.00 * promo / all));
  REQUIRE(r19.rows() == 1);
  CHECK(q19 > 0);
  CHECK(close(r19["revenue"].number(0), q19));
}

/// The nation of each supplier, customer and order's customer, and each nation's name.
struct nations_of {
  std::map<std::int64_t, std::int64_t> supplier, customer;
  std::map<std::int64_t, std::string> name;
  explicit nations_of(const tpch::sql::tables& t) {
    for (std::size_t i = 0; i < t.supplier.rows(); ++i)
      supplier[t.supplier.ints("s_suppkey")[i]] = t.supplier.ints("s_nationkey")[i];
    for (std::size_t i = 0; i < t.customer.rows(); ++i)
      customer[t.customer.ints("c_custkey")[i]] = t.customer.ints("c_nationkey")[i];
    for (std::size_t i = 0; i < t.nation.rows(); ++i)
      name[t.nation.ints("n_nationkey")[i]] = t.nation["n_name"].text(i);
  }
};

TEST_CASE("sql: TPC-H Q7, Q8 and Q9, over derived tables, agree with hand-written loops") {
  const tpch::sql::tables& t = tables();
  const nations_of nation(t);
  const auto order = rows_by(t.orders, "o_orderkey"), part = rows_by(t.part, "p_partkey");
  std::map<std::pair<std::int64_t, std::int64_t>, double> supplycost;
  for (std::size_t i = 0; i < t.partsupp.rows(); ++i)
    supplycost[{t.partsupp.ints("ps_partkey")[i], t.partsupp.ints("ps_suppkey")[i]}] =
        t.partsupp["ps_supplycost"].number(i);
  std::map<std::int64_t, std::string> region;
  for (std::size_t i = 0; i < t.region.rows(); ++i)
    region[t.region.ints("r_regionkey")[i]] = t.region["r_name"].text(i);
  std::map<std::int64_t, std::string> region_of_nation;
  for (std::size_t i = 0; i < t.nation.rows(); ++i)
    region_of_nation[t.nation.ints("n_nationkey")[i]] = region.at(t.nation.ints("n_regionkey")[i]);
  std::map<std::tuple<std::string, std::string, std::int64_t>, double> q7;
  std::map<std::int64_t, std::pair<double, double>> q8;  // o_year -> BRAZIL's volume, all
  std::map<std::pair<std::string, std::int64_t>, double> q9;
  const rel::table& l = t.lineitem;
  for (std::size_t i = 0; i < l.rows(); ++i) {
    const std::size_t o = order.at(l.ints("l_orderkey")[i]), p = part.at(l.ints("l_partkey")[i]);
    const std::int64_t supp = l.ints("l_suppkey")[i];
    const std::string supp_nation = nation.name.at(nation.supplier.at(supp));
    const std::int64_t cust_key = nation.customer.at(t.orders.ints("o_custkey")[o]);
    const std::string cust_nation = nation.name.at(cust_key);
    const double volume = l["l_extendedprice"].number(i) * (1 - l["l_discount"].number(i));
    const std::int64_t ship = l.ints("l_shipdate")[i], ordered = t.orders.ints("o_orderdate")[o];
    if (((supp_nation == "FRANCE" && cust_nation == "GERMANY") ||
         (supp_nation == "GERMANY" && cust_nation == "FRANCE")) &&
        ship >= rel::date("1995-01-01") && ship <= rel::date("1996-12-31"))
      q7[{supp_nation, cust_nation, rel::year_of(ship)}] += volume;
    if (region_of_nation.at(cust_key) == "AMERICA" && ordered >= rel::date("1995-01-01") &&
        ordered <= rel::date("1996-12-31") &&
        t.part["p_type"].text(p) == "ECONOMY ANODIZED STEEL") {
      auto& [brazil, all] = q8[rel::year_of(ordered)];
      all += volume;
      if (supp_nation == "BRAZIL") brazil += volume;
    }
    if (t.part["p_name"].text(p).find("green") != std::string::npos)
      q9[{supp_nation, rel::year_of(ordered)}] +=
          volume - supplycost.at({l.ints("l_partkey")[i], supp}) * l["l_quantity"].number(i);
  }
  const rel::table r7 = tpch::sql::q7(t), r8 = tpch::sql::q8(t), r9 = tpch::sql::q9(t);
  REQUIRE(q7.size() == 4);
  REQUIRE(r7.rows() == q7.size());
  std::size_t row = 0;
  for (const auto& [key, revenue] : q7) {
    CAPTURE(row);
    CHECK(r7["supp_nation"].text(row) == std::get<0>(key));
    CHECK(r7["cust_nation"].text(row) == std::get<1>(key));
    CHECK(r7.ints("l_year")[row] == std::get<2>(key));
    CHECK(close(r7["revenue"].number(row), revenue));
    ++row;
  }
  REQUIRE(q8.size() == 2);
  REQUIRE(r8.rows() == q8.size());
  row = 0;
  for (const auto& [year, volumes] : q8) {
    CHECK(r8.ints("o_year")[row] == year);
    CHECK(close(r8["mkt_share"].number(row), volumes.first / volumes.second));
    ++row;
  }
  // ORDER BY nation, o_year DESC
  std::vector<std::pair<std::pair<std::string, std::int64_t>, double>> expected9(q9.begin(),
                                                                                 q9.end());
  std::stable_sort(expected9.begin(), expected9.end(), [](const auto& a, const auto& b) {
    return a.first.first != b.first.first ? a.first.first < b.first.first
                                          : a.first.second > b.first.second;
  });
  REQUIRE(expected9.size() > 100);  // nations by years 1992 to 1998
  REQUIRE(r9.rows() == expected9.size());
  for (row = 0; row < r9.rows(); ++row) {
    CAPTURE(row);
    CHECK(r9["nation"].text(row) == expected9[row].first.first);
    CHECK(r9.ints("o_year")[row] == expected9[row].first.second);
    CHECK(close(r9["sum_profit"].number(row), expected9[row].second));
  }
}

TEST_CASE("sql: TPC-H Q7, Q8, Q9, Q14 and Q19 agree with SQLite on the same CSV files") {
  if (!tpch::have_sqlite3()) {
    MESSAGE("sqlite3 is not installed (Debian: sqlite3): the comparison with SQLite is skipped");
    return;
  }
  for (const std::string& d : tpch::differences(tpch::sql::q7(tables()), sqlite_answer("q7"),
                                                {{"supp_nation", column_type::string},
                                                 {"cust_nation", column_type::string},
                                                 {"l_year", column_type::int64},
                                                 {"revenue", column_type::decimal}}))
    FAIL_CHECK("Q7: " << d);
  for (const std::string& d :
       tpch::differences(tpch::sql::q8(tables()), sqlite_answer("q8"),
                         {{"o_year", column_type::int64}, {"mkt_share", column_type::decimal}}))
    FAIL_CHECK("Q8: " << d);
  for (const std::string& d : tpch::differences(tpch::sql::q9(tables()), sqlite_answer("q9"),
                                                {{"nation", column_type::string},
                                                 {"o_year", column_type::int64},
                                                 {"sum_profit", column_type::decimal}}))
    FAIL_CHECK("Q9: " << d);
  for (const std::string& d : tpch::differences(tpch::sql::q14(tables()), sqlite_answer("q14"),
                                                {{"promo_revenue", column_type::decimal}}))
    FAIL_CHECK("Q14: " << d);
  for (const std::string& d : tpch::differences(tpch::sql::q19(tables()), sqlite_answer("q19"),
                                                {{"revenue", column_type::decimal}}))
    FAIL_CHECK("Q19: " << d);
}

TEST_CASE("sql_explain: TPC-H Q5's plan, in its own table and column names (SF 0.01)") {
  // The year's orders, their customers, their lineitems merged in key order (orders and
  // lineitem both ascend on the order key), the suppliers of each line (closing the cycle on
  // c_nationkey), their nations and region. Scanning region first costs about the same.
  CHECK(loom::sql_explain<tpch::sql::q5_text>(tables().database()) ==
        "scan orders (15000 rows)\n"
        "  filter: o_orderdate >= DATE '1994-01-01' AND o_orderdate < DATE '1995-01-01'\n"
        "  rows selected a block at a time by: o_orderdate >= DATE '1994-01-01' AND o_orderdate < "
        "DATE '1995-01-01'\n"
        "join customer (1500 rows) on c_custkey = o_custkey (array-indexed)\n"
        "join lineitem (59879 rows) on l_orderkey = o_orderkey (merged: both ascend)\n"
        "join supplier (100 rows) on s_suppkey = l_suppkey, s_nationkey = c_nationkey "
        "(array-indexed by the first, the others compared)\n"
        "  semi-join: indexes only the rows with a partner in nation (when a quarter or more have "
        "none)\n"
        "join nation (25 rows) on n_nationkey = s_nationkey (array-indexed)\n"
        "  semi-join: indexes only the rows with a partner in region (when a quarter or more have "
        "none)\n"
        "join region (5 rows) on r_regionkey = n_regionkey (array-indexed)\n"
        "  filter region: r_name = 'ASIA'\n"
        "estimated work 1.09e+05; scanning region first instead: 1.1e+05\n"
        "group by n_name\n"
        "aggregates per group: SUM(l_extendedprice * (1 - l_discount))\n"
        "result: n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue\n"
        "order by revenue DESC\n");
}
