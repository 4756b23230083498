// The example of docs/relational.md, "SQL at compile time" (tools/check_readme.py keeps the two
// equal), and the result it shows.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <sstream>

TEST_CASE("sql: the example of docs/relational.md") {
  std::ostringstream out;
  namespace rel = loom::rel;
  const rel::table sales = rel::read_csv_text(
      "region,amount,day\n"
      "north,120.5,1995-03-01\n"
      "south,80,1995-03-02\n"
      "north,40,1996-01-10\n"
      "south,30.25,1995-11-30\n",
      "sales",
      {{"region", rel::column_type::string},
       {"amount", rel::column_type::decimal},
       {"day", rel::column_type::date}});
  // Parsed at compile time: a mistake in the text is a compile error at its line and column.
  const rel::table totals = loom::sql<R"(
      SELECT region, SUM(amount) AS total, COUNT(*) AS n
      FROM sales
      WHERE day < DATE '1995-01-01' + INTERVAL '1' YEAR
      GROUP BY region
      ORDER BY total DESC)">(sales);
  totals.write_csv(out);  // region,total,n / north,120.5,1 / south,110.25,2
  CHECK(out.str() == "region,total,n\nnorth,120.5,1\nsouth,110.25,2\n");
}
