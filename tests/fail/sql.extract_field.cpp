// LOOM_EXPECT_ERROR: sql_syntax_error<2, ?24, ?loom::sql_compiler::error_code::expected_extract_field>
// EXTRACT takes YEAR, MONTH or DAY: another field is a compile error at its line and column
// (line 2, column 24: WEEK) (LOOM_EXPECT_OK: YEAR).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

loom::relational::table revenue_by_week(const loom::relational::table& lineitem) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<R"(select w, sum(l_extendedprice) as revenue
  from (select extract(year from l_shipdate) as w, l_extendedprice from lineitem) as s
  group by w)">(lineitem);
#else
  return loom::sql<R"(select w, sum(l_extendedprice) as revenue
  from (select extract(week from l_shipdate) as w, l_extendedprice from lineitem) as s
  group by w)">(lineitem);
#endif
}
