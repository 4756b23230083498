// LOOM_EXPECT_ERROR: two tables in FROM need a WHERE term `a.x = b.y` that joins them
// Two tables in FROM with no equality of a column of each in WHERE would be a cross product,
// which loom::sql does not run: a compile error says what is missing (LOOM_EXPECT_OK: the
// equality is there).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

loom::relational::table count_pairs(const loom::sql_database& db) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<"SELECT COUNT(*) FROM orders, lineitem WHERE o_orderkey = l_orderkey">(db);
#else
  return loom::sql<"SELECT COUNT(*) FROM orders, lineitem WHERE o_orderkey < l_orderkey">(db);
#endif
}
