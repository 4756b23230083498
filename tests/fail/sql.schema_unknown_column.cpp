// LOOM_EXPECT_ERROR: sql_schema_error<2, ?7, ?loom::sql_compiler::schema_error_code::unknown_column>
// Checked against its schema, a query that names a column no table of FROM has (l_extprice for
// l_extendedprice, line 2, column 7) does not compile (LOOM_EXPECT_OK: the right name).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

namespace schema_unknown_column {  // the twins of every compile-fail test share one unit

constexpr loom::fixed_string schema = "lineitem(l_orderkey INT, l_extendedprice DECIMAL)";

loom::relational::table revenue(const loom::sql_database& db) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<R"(select
  sum(l_extendedprice) as revenue from lineitem)",
                   schema>(db);
#else
  return loom::sql<R"(select
  sum(l_extprice) as revenue from lineitem)",
                   schema>(db);
#endif
}
}  // namespace schema_unknown_column
