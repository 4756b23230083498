// LOOM_EXPECT_ERROR: sql_schema_syntax_error<1, ?28, ?loom::sql_compiler::schema_error_code::unknown_column_type>
// A schema text that does not parse (BLOB is not a column type: line 1, column 28) is a compile
// error at its place in the schema (LOOM_EXPECT_OK: TEXT).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

namespace schema_syntax_error {  // the twins of every compile-fail test share one unit

#ifdef LOOM_EXPECT_OK
constexpr loom::fixed_string schema = "part(p_partkey INT, p_name TEXT)";
#else
constexpr loom::fixed_string schema = "part(p_partkey INT, p_name BLOB)";
#endif

loom::relational::table parts(const loom::sql_database& db) {
  return loom::sql<"select count(*) as n from part", schema>(db);
}
}  // namespace schema_syntax_error
