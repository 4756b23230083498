// The TPC-H generator (examples/tpch/dbgen.hpp) follows the specification's keys and value
// distributions. The comparison of Q5 and Q9 with SQLite is the ctest
// tests.relational.tpch_vs_sqlite (`example.tpch --verify`, examples/tpch/CMakeLists.txt), so
// the queries are compiled once.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "../../examples/tpch/dbgen.hpp"

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;
using rel::column_type;
}  // namespace

TEST_CASE("the TPC-H generator follows the specification's keys and distributions (SF 0.01)") {
  const fs::path dir = fs::temp_directory_path() / "loom_tests_relational_dbgen";
  fs::remove_all(dir);
  tpch::generate(dir, 0.01);
  auto read = [&](const char* f, std::vector<rel::column_spec> s) {
    return rel::read_csv((dir / f).string(), s);
  };
  const auto orders = read("orders.csv", {{"o_orderkey", column_type::int64},
                                          {"o_custkey", column_type::int64},
                                          {"o_orderdate", column_type::date}});
  const auto lineitem = read("lineitem.csv", {{"l_orderkey", column_type::int64},
                                              {"l_partkey", column_type::int64},
                                              {"l_suppkey", column_type::int64},
                                              {"l_quantity", column_type::decimal},
                                              {"l_extendedprice", column_type::decimal},
                                              {"l_discount", column_type::decimal}});
  const auto partsupp = read(
      "partsupp.csv", {{"ps_partkey", column_type::int64}, {"ps_suppkey", column_type::int64}});
  const auto part =
      read("part.csv", {{"p_partkey", column_type::int64}, {"p_name", column_type::string}});
  const auto nation = read("nation.csv", {{"n_nationkey", column_type::int64},
                                          {"n_name", column_type::string},
                                          {"n_regionkey", column_type::int64}});
  fs::remove_all(dir);

  // cardinalities (clause 4.2.5): 1,500,000 orders, 200,000 parts, 4 suppliers per part, 25 nations
  CHECK(orders.rows() == 15000);
  CHECK(part.rows() == 2000);
  CHECK(partsupp.rows() == 4 * part.rows());
  CHECK(nation.rows() == 25);
  CHECK(nation["n_name"].text(8) == "INDIA");  // nations sorted by name: codes != keys
  const auto ok = orders.ints("o_orderkey"), cust = orders.ints("o_custkey");
  std::set<std::int64_t> keys(ok.begin(), ok.end());
  CHECK(keys.size() == orders.rows());
  for (std::size_t r = 0; r < orders.rows(); ++r) {
    CHECK((ok[r] & 31) < 8);  // sparse keys: the first 8 of every 32
    CHECK(cust[r] % 3 != 0);  // a third of the customers place no orders
  }
  const auto od = orders.ints("o_orderdate");
  CHECK(*std::min_element(od.begin(), od.end()) >= rel::date("1992-01-01"));
  CHECK(*std::max_element(od.begin(), od.end()) <= rel::date("1998-12-31") - 151);
  // lines per order in 1..7, quantities 1..50, discounts 0..0.10, price = quantity * retail price
  std::map<std::int64_t, int> lines;
  const auto disc = lineitem.reals("l_discount"), qty = lineitem.reals("l_quantity"),
             price = lineitem.reals("l_extendedprice");
  const auto lp = lineitem.ints("l_partkey");
  for (std::size_t r = 0; r < lineitem.rows(); ++r) {
    ++lines[lineitem.ints("l_orderkey")[r]];
    CHECK((disc[r] >= 0 && disc[r] <= 0.1));
    CHECK((qty[r] >= 1 && qty[r] <= 50));
    const double retail = (90000 + ((lp[r] / 10) % 20001) + 100 * (lp[r] % 1000)) / 100.0;
    CHECK(price[r] == doctest::Approx(qty[r] * retail));
  }
  CHECK(lines.size() == orders.rows());
  for (const auto& [k, n] : lines) CHECK((n >= 1 && n <= 7));
  // every (l_partkey, l_suppkey) is a partsupp row, and partsupp keys are unique
  std::set<std::pair<std::int64_t, std::int64_t>> ps;
  for (std::size_t r = 0; r < partsupp.rows(); ++r)
    ps.insert({partsupp.ints("ps_partkey")[r], partsupp.ints("ps_suppkey")[r]});
  CHECK(ps.size() == partsupp.rows());
  for (std::size_t r = 0; r < lineitem.rows(); ++r)
    CHECK(ps.count({lp[r], lineitem.ints("l_suppkey")[r]}) == 1);
  // part names: five distinct words of the 92
  for (std::int64_t code = 0; code < part["p_name"].dict()->size(); ++code) {
    std::set<std::string> words;
    std::istringstream in(part["p_name"].dict()->word(code));
    for (std::string w; in >> w;) {
      CHECK(std::find(tpch::part_name_words.begin(), tpch::part_name_words.end(), w) !=
            tpch::part_name_words.end());
      words.insert(w);
    }
    CHECK(words.size() == 5);
  }
}
