// LOOM_EXPECT_ERROR: sql_syntax_error<3, ?9, ?loom::sql_compiler::error_code::aggregate_in_derived_table>
// A derived table in FROM is inlined into the query, so it may not aggregate: its SUM is a
// compile error at its line and column (line 3, column 9) (LOOM_EXPECT_OK: the aggregate is
// the outer query's).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

namespace derived_table_aggregate {  // the twins of every compile-fail test share one unit

loom::relational::table revenue(const loom::relational::table& lineitem) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<R"(select sum(volume) as revenue
  from (select l_extendedprice * (1 - l_discount) as volume
        from lineitem) as v)">(lineitem);
#else
  return loom::sql<R"(select max(volume) as revenue
  from (select l_orderkey,
        sum(l_extendedprice * (1 - l_discount)) as volume
        from lineitem) as v)">(lineitem);
#endif
}
}  // namespace derived_table_aggregate
