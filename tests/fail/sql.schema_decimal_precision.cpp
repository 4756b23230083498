// LOOM_EXPECT_ERROR: sql_schema_syntax_error<1, ?36, ?loom::sql_compiler::schema_error_code::bad_decimal_precision>
// DECIMAL(p,s) needs 1 <= p <= 18 (an int64 holds 18 digits) and 0 <= s <= p: DECIMAL(19,2) is a
// compile error at its '(' (line 1, column 36) (LOOM_EXPECT_OK: DECIMAL(15,2)).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

namespace schema_decimal_precision {  // the twins of every compile-fail test share one unit

#ifdef LOOM_EXPECT_OK
constexpr loom::fixed_string schema = "part(p_partkey INT, p_price DECIMAL(15,2))";
#else
constexpr loom::fixed_string schema = "part(p_partkey INT, p_price DECIMAL(19,2))";
#endif

loom::relational::table parts(const loom::sql_database& db) {
  return loom::sql<"select count(*) as n from part", schema>(db);
}
}  // namespace schema_decimal_precision
