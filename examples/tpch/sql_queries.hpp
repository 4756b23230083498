// TPC-H Q1, Q6 and Q12 as SQL text, compiled by loom::sql at compile time into loops over the
// lineitem table (Q12: a hash join of orders and lineitem); the SQL of the specification,
// clause 2.4, with its validation parameters.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXAMPLES_TPCH_SQL_QUERIES_HPP
#define LOOM_EXAMPLES_TPCH_SQL_QUERIES_HPP

#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <filesystem>

namespace tpch::sql {

namespace rel = loom::relational;

/// Q1, pricing summary report (DELTA = 90 days).
inline constexpr loom::fixed_string q1_text = R"(
  select l_returnflag, l_linestatus,
         sum(l_quantity) as sum_qty,
         sum(l_extendedprice) as sum_base_price,
         sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
         avg(l_quantity) as avg_qty,
         avg(l_extendedprice) as avg_price,
         avg(l_discount) as avg_disc,
         count(*) as count_order
  from lineitem
  where l_shipdate <= date '1998-12-01' - interval '90' day (3)
  group by l_returnflag, l_linestatus
  order by l_returnflag, l_linestatus)";

/// Q6, forecasting revenue change (DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24).
inline constexpr loom::fixed_string q6_text = R"(
  select sum(l_extendedprice * l_discount) as revenue
  from lineitem
  where l_shipdate >= date '1994-01-01'
    and l_shipdate < date '1994-01-01' + interval '1' year
    and l_discount between 0.06 - 0.01 and 0.06 + 0.01
    and l_quantity < 24)";

/// Q12, shipping modes and order priority (SHIPMODE1 = MAIL, SHIPMODE2 = SHIP, DATE =
/// 1994-01-01).
inline constexpr loom::fixed_string q12_text = R"(
  select l_shipmode,
         sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH'
                  then 1 else 0 end) as high_line_count,
         sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH'
                  then 1 else 0 end) as low_line_count
  from orders, lineitem
  where o_orderkey = l_orderkey
    and l_shipmode in ('MAIL', 'SHIP')
    and l_commitdate < l_receiptdate
    and l_shipdate < l_commitdate
    and l_receiptdate >= date '1994-01-01'
    and l_receiptdate < date '1994-01-01' + interval '1' year
  group by l_shipmode
  order by l_shipmode)";

/// The lineitem columns Q1, Q6 and Q12 read, from the lineitem.csv of
/// `generate(dir, sf, true)`.
inline rel::table load_lineitem(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "lineitem.csv").string(), {{"l_orderkey", column_type::int64},
                                                         {"l_quantity", column_type::decimal},
                                                         {"l_extendedprice", column_type::decimal},
                                                         {"l_discount", column_type::decimal},
                                                         {"l_tax", column_type::decimal},
                                                         {"l_returnflag", column_type::string},
                                                         {"l_linestatus", column_type::string},
                                                         {"l_shipdate", column_type::date},
                                                         {"l_commitdate", column_type::date},
                                                         {"l_receiptdate", column_type::date},
                                                         {"l_shipmode", column_type::string}});
}

/// The orders columns Q12 reads, from the orders.csv of `generate(dir, sf, true)`.
inline rel::table load_orders(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "orders.csv").string(), {{"o_orderkey", column_type::int64},
                                                       {"o_orderpriority", column_type::string}});
}

inline rel::table q1(const rel::table& lineitem) { return loom::sql<q1_text>(lineitem); }
inline rel::table q6(const rel::table& lineitem) { return loom::sql<q6_text>(lineitem); }
inline rel::table q12(const rel::table& orders, const rel::table& lineitem) {
  loom::sql_database db;
  db.add("orders", orders).add("lineitem", lineitem);
  return loom::sql<q12_text>(db);
}

}  // namespace tpch::sql

#endif  // LOOM_EXAMPLES_TPCH_SQL_QUERIES_HPP
