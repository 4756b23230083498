// LOOM_EXPECT_ERROR: sql_syntax_error<2, ?3, ?loom::sql_compiler::error_code::expected_from>
// A query text that does not parse is a compile error naming the line and the column of the
// first offence and why: here the misspelt FROM on line 2, column 3 (LOOM_EXPECT_OK: spelt
// right).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

loom::relational::table revenue(const loom::relational::table& lineitem) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<"SELECT SUM(l_extendedprice) AS revenue\n  FROM lineitem">(lineitem);
#else
  return loom::sql<"SELECT SUM(l_extendedprice) AS revenue\n  FORM lineitem">(lineitem);
#endif
}
