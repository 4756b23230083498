// TPC-H Q5 and Q9 at scale factor 0.01: loom's answers (examples/tpch) against SQLite running
// the standard SQL on the same CSV files. Skipped, with a message, when sqlite3 is not installed.
// SPDX-License-Identifier: BSL-1.0
#include "../../examples/tpch/dbgen.hpp"
#include "../../examples/tpch/queries.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;

const fs::path sql_dir = fs::path(__FILE__).parent_path() / ".." / ".." / "examples" / "tpch" / "sql";

bool have_sqlite3() { return std::system("sqlite3 -version > /dev/null 2>&1") == 0; }

// Runs `query` in SQLite over the CSV files of `data`; returns its CSV output with a header.
std::string sqlite_answer(const fs::path& data, const std::string& query) {
  const fs::path script = data / ("run_" + query + ".sqlite"), out = data / (query + ".sqlite.csv");
  {
    std::ofstream s(script);
    s << ".read '" << (sql_dir / "schema.sql").string() << "'\n.mode csv\n";
    for (const char* t : {"region", "nation", "supplier", "customer", "orders", "lineitem", "part",
                          "partsupp"})
      s << ".import --skip 1 '" << (data / (std::string(t) + ".csv")).string() << "' " << t << "\n";
    s << ".headers on\n.once '" << out.string() << "'\n.read '"
      << (sql_dir / (query + ".sql")).string() << "'\n";
  }
  const std::string cmd = "sqlite3 :memory: < '" + script.string() + "'";
  REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, cmd);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compares two CSV results cell by cell: keys exactly, numbers to a relative 1e-9 (SQLite and
// loom add the same doubles in different orders).
void check_same(const rel::table& loom_result, const std::string& sqlite_csv,
                const std::vector<rel::column_spec>& schema) {
  const rel::table expected = rel::read_csv_text(sqlite_csv, "sqlite", schema);
  REQUIRE(expected.rows() > 0);
  REQUIRE(loom_result.rows() == expected.rows());
  for (const auto& spec : schema)
    for (std::size_t r = 0; r < expected.rows(); ++r) {
      if (spec.type == rel::column_type::decimal) {
        const double a = loom_result.reals(spec.name)[r], b = expected.reals(spec.name)[r];
        CHECK_MESSAGE(std::abs(a - b) <= 1e-9 * std::abs(b), spec.name << " row " << r);
      } else {
        CHECK(loom_result[spec.name].text(r) == expected[spec.name].text(r));
      }
    }
}

// SF 0.01, generated once into a temporary folder.
const fs::path& data_dir() {
  static const fs::path data = [] {
    const fs::path d = fs::temp_directory_path() / "loom_tests_relational_tpch";
    fs::remove_all(d);
    tpch::generate(d, 0.01);
    return d;
  }();
  return data;
}
}  // namespace

TEST_CASE("TPC-H Q5 and Q9 at SF 0.01 agree with SQLite") {
  if (!have_sqlite3()) {
    MESSAGE("skipped: sqlite3 is not installed (apt-get install sqlite3)");
    return;
  }
  const fs::path& data = data_dir();
  const tpch::database db = tpch::load(data);
  CHECK(db.orders.rows() == 15000);
  CHECK(db.partsupp.rows() == 4 * db.part.rows());

  const rel::table q5 = tpch::q5(db).run();
  check_same(q5, sqlite_answer(data, "q5"),
             {{"n_name", rel::column_type::string}, {"revenue", rel::column_type::decimal}});
  const rel::table q9 = tpch::q9(db).run();
  CHECK(q9.rows() <= 25 * 7);  // at most every nation, 1992 to 1998
  check_same(q9, sqlite_answer(data, "q9"),
             {{"nation", rel::column_type::string}, {"o_year", rel::column_type::int64},
              {"sum_profit", rel::column_type::decimal}});
}

TEST_CASE("the generator follows the specification's keys and distributions") {
  const tpch::database db = tpch::load(data_dir());
  const auto ok = db.orders.ints("o_orderkey"), cust = db.orders.ints("o_custkey");
  for (std::size_t r = 0; r < db.orders.rows(); ++r) {
    CHECK((ok[r] & 31) < 8);   // sparse keys: the first 8 of every 32
    CHECK(cust[r] % 3 != 0);   // a third of the customers place no orders
  }
  const auto od = db.orders.ints("o_orderdate");
  CHECK(*std::min_element(od.begin(), od.end()) >= rel::date("1992-01-01"));
  CHECK(*std::max_element(od.begin(), od.end()) <= rel::date("1998-12-31") - 151);
  const auto disc = db.lineitem.reals("l_discount"), qty = db.lineitem.reals("l_quantity");
  for (std::size_t r = 0; r < db.lineitem.rows(); ++r) {
    CHECK((disc[r] >= 0 && disc[r] <= 0.1));
    CHECK((qty[r] >= 1 && qty[r] <= 50));
  }
  // every (l_partkey, l_suppkey) is a partsupp row
  std::set<std::pair<std::int64_t, std::int64_t>> ps;
  for (std::size_t r = 0; r < db.partsupp.rows(); ++r)
    ps.insert({db.partsupp.ints("ps_partkey")[r], db.partsupp.ints("ps_suppkey")[r]});
  CHECK(ps.size() == db.partsupp.rows());
  for (std::size_t r = 0; r < db.lineitem.rows(); ++r)
    CHECK(ps.count({db.lineitem.ints("l_partkey")[r], db.lineitem.ints("l_suppkey")[r]}) == 1);
}
