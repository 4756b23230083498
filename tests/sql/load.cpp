// rel::read_csv_files: files cut into pieces read by several threads give the tables read_csv
// gives (TPC-H at SF 0.01, quoted fields across the cuts, errors at the whole file's line), and
// a sql_database that keeps the tables it is given.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../examples/tpch/dbgen.hpp"
#include "../../examples/tpch/sql_queries.hpp"

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;
using rel::column_type;

/// Whether two tables have the same columns, types, values and dictionaries.
bool same(const rel::table& a, const rel::table& b) {
  if (a.rows() != b.rows() || a.columns().size() != b.columns().size()) return false;
  for (std::size_t k = 0; k < a.columns().size(); ++k) {
    const rel::column &x = a.columns()[k], &y = b.columns()[k];
    if (x.name() != y.name() || x.type() != y.type()) return false;
    const bool equal = x.is_integer() ? std::ranges::equal(x.ints(), y.ints())
                                      : std::ranges::equal(x.reals(), y.reals());
    if (!equal) return false;
    if (x.type() == column_type::string && x.dict()->words() != y.dict()->words()) return false;
  }
  return true;
}

struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& name) : path(fs::temp_directory_path() / name) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() { fs::remove_all(path); }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("read_csv_files: TPC-H tables read in pieces by two threads equal the serial read") {
  const temp_dir dir("loom_tests_sql_load");
  tpch::generate(dir.path, 0.01, true);
  const std::vector<rel::csv_file> files = {
      {(dir.path / "lineitem.csv").string(),
       {{"l_orderkey", column_type::int64},
        {"l_quantity", column_type::decimal},
        {"l_extendedprice", column_type::decimal},
        {"l_returnflag", column_type::string},
        {"l_shipdate", column_type::date},
        {"l_shipmode", column_type::string},
        {"l_comment", column_type::string}}},
      {(dir.path / "orders.csv").string(),
       {{"o_orderkey", column_type::int64},
        {"o_orderdate", column_type::date},
        {"o_orderpriority", column_type::string},
        {"o_comment", column_type::string}}},
      {(dir.path / "customer.csv").string(),
       {{"c_custkey", column_type::int64},
        {"c_name", column_type::string},
        {"c_acctbal", column_type::decimal}}},
      {(dir.path / "nation.csv").string(),
       {{"n_nationkey", column_type::int64}, {"n_name", column_type::string}}}};
  std::vector<rel::table> serial;
  for (const auto& f : files) serial.push_back(rel::read_csv(f.path, f.schema, f.options));
  for (const std::size_t piece : {std::size_t{0}, std::size_t{100000}, std::size_t{4096}}) {
    CAPTURE(piece);
    const std::vector<rel::table> parallel = rel::read_csv_files(files, 2, piece);
    REQUIRE(parallel.size() == files.size());
    for (std::size_t f = 0; f < files.size(); ++f) {
      CAPTURE(files[f].path);
      CHECK(parallel[f].name() == serial[f].name());
      CHECK(same(parallel[f], serial[f]));
    }
  }
  CHECK(same(rel::read_csv_files({files[0]}, 1, 4096)[0], serial[0]));
}

TEST_CASE(
    "read_csv_files: the example of the documentation, TPC-H Q12 over tables read in pieces") {
  const temp_dir dir("loom_tests_sql_load_example");
  tpch::generate(dir.path, 0.01, true);
  const std::string lineitem_csv = (dir.path / "lineitem.csv").string(),
                    orders_csv = (dir.path / "orders.csv").string();
  const std::vector<rel::column_spec> lineitem_schema = {{"l_orderkey", column_type::int64},
                                                         {"l_shipmode", column_type::string},
                                                         {"l_shipdate", column_type::date},
                                                         {"l_commitdate", column_type::date},
                                                         {"l_receiptdate", column_type::date}};
  const std::vector<rel::column_spec> orders_schema = {{"o_orderkey", column_type::int64},
                                                       {"o_orderpriority", column_type::string}};
  loom::sql_database db;
  std::vector<rel::table> read =
      rel::read_csv_files({{lineitem_csv, lineitem_schema}, {orders_csv, orders_schema}}, 2);
  db.add("lineitem", std::move(read[0])).add("orders", std::move(read[1]));
  const rel::table lineitem = rel::read_csv(lineitem_csv, lineitem_schema),
                   orders = rel::read_csv(orders_csv, orders_schema);
  CHECK(same(db["lineitem"], lineitem));
  CHECK(same(db["orders"], orders));
  loom::sql_database serial;
  serial.add("lineitem", lineitem).add("orders", orders);
  CHECK(same(loom::sql<tpch::sql::q12_text>(db), loom::sql<tpch::sql::q12_text>(serial)));
}

TEST_CASE("read_csv_files: quoted fields with line feeds, blank lines and no header") {
  const temp_dir dir("loom_tests_sql_load_quoted");
  std::string text = "id,note,price\n";
  for (int i = 0; i < 300; ++i) {
    text += std::to_string(i) + ",";
    text += i % 7 == 0 ? "\"two\nlines, \"\"quoted\"\"\"" : "plain " + std::to_string(i % 13);
    text += "," + std::to_string(i) + ".25\n";
    if (i % 50 == 0) text += "\n";
  }
  write(dir.path / "notes.csv", text);
  const rel::csv_file with_header{(dir.path / "notes.csv").string(),
                                  {{"note", column_type::string}, {"price", column_type::decimal}}};
  const rel::table serial = rel::read_csv(with_header.path, with_header.schema);
  for (const std::size_t piece : {std::size_t{1}, std::size_t{17}, std::size_t{256}}) {
    CAPTURE(piece);
    CHECK(same(rel::read_csv_files({with_header}, 2, piece)[0], serial));
  }

  write(dir.path / "bare.csv", text.substr(text.find('\n') + 1));
  const rel::csv_file bare{
      (dir.path / "bare.csv").string(),
      {{"id", column_type::int64}, {"note", column_type::string}, {"price", column_type::decimal}},
      {',', false}};
  CHECK(same(rel::read_csv_files({bare}, 2, 64)[0],
             rel::read_csv(bare.path, bare.schema, bare.options)));
}

TEST_CASE("read_csv_files: an error names the line of the whole file") {
  const temp_dir dir("loom_tests_sql_load_error");
  std::string text = "id,price\n";
  for (int i = 0; i < 500; ++i) text += std::to_string(i) + (i == 321 ? ",12x\n" : ",1.5\n");
  write(dir.path / "bad.csv", text);
  const rel::csv_file bad{(dir.path / "bad.csv").string(),
                          {{"id", column_type::int64}, {"price", column_type::decimal}}};
  std::string serial, parallel;
  try {
    (void)rel::read_csv(bad.path, bad.schema);
  } catch (const rel::csv_error& e) {
    serial = e.what();
  }
  try {
    (void)rel::read_csv_files({bad}, 2, 100);
  } catch (const rel::csv_error& e) {
    parallel = e.what();
    CHECK(e.line() == 323);
  }
  CHECK(!serial.empty());
  CHECK(parallel == serial);
}

TEST_CASE("sql_database: keeps a table given by value") {
  loom::sql_database db;
  db.add("t", rel::read_csv_text("k,v\n1,2\n1,3\n2,5\n", "t",
                                 {{"k", column_type::int64}, {"v", column_type::int64}}));
  db.add("u", rel::read_csv_text("k,w\n1,10\n2,20\n", "u",
                                 {{"k", column_type::int64}, {"w", column_type::int64}}));
  const rel::table r =
      loom::sql<"SELECT t.k, SUM(v * w) AS s FROM t, u WHERE t.k = u.k GROUP BY t.k">(db);
  REQUIRE(r.rows() == 2);
  CHECK(r.reals("s")[0] == 50);
  CHECK(r.reals("s")[1] == 100);
}
