// LOOM_EXPECT_ERROR: sql_syntax_error<3, ?24, ?loom::sql_compiler::error_code::table_not_joined>
// A table of FROM that no chain of WHERE equalities links to the others would be a cross
// product: when every equality names its tables, a compile error points at that table in FROM
// (line 3, column 24: nation) and says why (LOOM_EXPECT_OK: the missing equality is there).
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/table.hpp>
#include <loom/sql.hpp>

loom::relational::table revenue_by_nation(const loom::sql_database& db) {
#ifdef LOOM_EXPECT_OK
  return loom::sql<R"(select n.n_name, sum(o.o_totalprice) as revenue
  from orders o, customer c,
                       nation n
  where o.o_custkey = c.c_custkey and c.c_nationkey = n.n_nationkey
  group by n.n_name)">(db);
#else
  return loom::sql<R"(select n.n_name, sum(o.o_totalprice) as revenue
  from orders o, customer c,
                       nation n
  where o.o_custkey = c.c_custkey and c.c_nationkey = 7
  group by n.n_name)">(db);
#endif
}
