// LOOM_EXPECT_ERROR: sql_schema_error<2, ?22, ?loom::sql_compiler::schema_error_code::type_mismatch>
// Checked against its schema, a query that compares a DATE column with a number (line 2,
// column 22) does not compile (LOOM_EXPECT_OK: compared with a DATE literal).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

namespace schema_type_mismatch {  // the twins of every compile-fail test share one unit

constexpr loom::fixed_string schema = "lineitem(l_orderkey INT, l_shipdate DATE)";

loom::relational::table shipped(const loom::sql_database& db) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<R"(select count(*) as n from lineitem
  where l_shipdate < DATE '1995-01-01')",
                   schema>(db);
#else
  return loom::sql<R"(select count(*) as n from lineitem
  where l_shipdate < 19950101)",
                   schema>(db);
#endif
}
}  // namespace schema_type_mismatch
