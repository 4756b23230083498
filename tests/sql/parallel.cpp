// A query's scan split over threads: the scanned table's rows in contiguous parts, one a thread,
// the joins' indexes shared, each part's groups merged after. Results with 1, 2, 3 and 4 threads
// equal (integer values: every order of sums is exact), row order kept for ungrouped queries,
// every aggregate (SUM, COUNT, COUNT(DISTINCT), MIN, MAX, AVG, over exact decimals too), and one
// part in deterministic mode or below min_work rows a part.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

loom::sql_database sales() {
  std::string facts = "id,shop,qty,price,day\n", shops = "shop,region\n";
  for (long f = 0; f < 20000; ++f)
    facts += std::to_string(f) + "," + std::to_string((f * 7919) % 300) + "," +
             std::to_string(f % 17) + "," + std::to_string(f % 101) + "." +
             std::to_string(f % 100 < 10 ? 0 : f % 100) + ",1995-0" + std::to_string(1 + f % 9) +
             "-1" + std::to_string(f % 10) + "\n";
  for (long s = 0; s < 300; ++s) shops += std::to_string(s) + ",r" + std::to_string(s % 7) + "\n";
  loom::sql_database db;
  db.add("facts", rel::read_csv_text(facts, "facts",
                                     {{"id", column_type::int64},
                                      {"shop", column_type::int64},
                                      {"qty", column_type::int64},
                                      {"price", column_type::fixed, 2},
                                      {"day", column_type::date}}));
  db.add("shops",
         rel::read_csv_text(shops, "shops",
                            {{"shop", column_type::int64}, {"region", column_type::string}}));
  return db;
}

// Every column of two results, cell by cell as text.
bool same(const rel::table& a, const rel::table& b) {
  if (a.rows() != b.rows() || a.columns().size() != b.columns().size()) return false;
  for (std::size_t c = 0; c < a.columns().size(); ++c)
    for (std::size_t r = 0; r < a.rows(); ++r)
      if (a.columns()[c].text(r) != b.columns()[c].text(r)) return false;
  return true;
}

template <loom::fixed_string Text> void check_every_thread_count(const loom::sql_database& db) {
  loom::parallel_scope serial({.threads = 1});
  const rel::table one = loom::sql<Text>(db);
  CHECK(one.rows() > 0);
  for (int threads : {2, 3, 4}) {
    CAPTURE(threads);
    loom::parallel_scope split({.threads = threads, .min_work = 1000});
    CHECK(same(loom::sql<Text>(db), one));
  }
}
}  // namespace

TEST_CASE("sql scans split over threads give the 1-thread result") {
  const loom::sql_database db = sales();
  // one table, grouped, every aggregate (price is an exact decimal)
  check_every_thread_count<R"(
    SELECT qty, SUM(price) AS s, COUNT(*) AS n, COUNT(DISTINCT shop) AS d, MIN(price) AS lo,
           MAX(day) AS last, AVG(qty * 2) AS a
    FROM facts WHERE day >= DATE '1995-02-01' GROUP BY qty ORDER BY qty)">(db);
  // one table, no GROUP BY: one row of aggregates
  check_every_thread_count<R"(
    SELECT SUM(qty) AS s, COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi FROM facts
    WHERE qty BETWEEN 3 AND 9)">(db);
  // ungrouped rows, in table order across the parts (no ORDER BY)
  check_every_thread_count<R"(SELECT id, qty FROM facts WHERE price < 20)">(db);
  // a join, grouped by the joined table's column, and ungrouped with a LIMIT
  check_every_thread_count<R"(
    SELECT region, SUM(qty) AS q, COUNT(*) AS n FROM facts, shops
    WHERE facts.shop = shops.shop AND qty > 4 GROUP BY region ORDER BY region)">(db);
  check_every_thread_count<R"(
    SELECT id, region FROM facts, shops WHERE facts.shop = shops.shop AND region = 'r3'
    LIMIT 50)">(db);
}

TEST_CASE("sql scans stay in one part in deterministic mode and below min_work rows a part") {
  const loom::sql_database db = sales();
  constexpr loom::fixed_string text = "SELECT SUM(qty) AS s FROM facts";
  CHECK(loom::sql_compiler::detail::scan_parts(20000) >= 1);
  {
    loom::parallel_scope s({.threads = 4, .min_work = 1000});
    CHECK(loom::sql_compiler::detail::scan_parts(20000) == 4);
    CHECK(loom::sql_compiler::detail::scan_parts(2500) == 2);
    CHECK(loom::sql_compiler::detail::scan_parts(999) == 1);
  }
  {
    loom::parallel_scope s({.threads = 4, .deterministic = true, .min_work = 1000});
    CHECK(loom::sql_compiler::detail::scan_parts(20000) == 1);
    CHECK(loom::sql<text>(db).rows() == 1);
  }
  {
    loom::parallel_scope s({.threads = 1});
    CHECK(loom::sql_compiler::detail::scan_parts(1 << 24) == 1);
  }
}
