// TPC-H Q1, Q3, Q5, Q6, Q10 and Q12 as SQL text, compiled by loom::sql at compile time into
// loops over the lineitem table (Q12: a hash join of orders and lineitem; Q3, Q5 and Q10: a
// chain of hash joins of three to six tables); the SQL of the specification, clause 2.4, with
// its validation parameters.
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

/// Q3, shipping priority (SEGMENT = BUILDING, DATE = 1995-03-15).
inline constexpr loom::fixed_string q3_text = R"(
  select l_orderkey,
         sum(l_extendedprice * (1 - l_discount)) as revenue,
         o_orderdate, o_shippriority
  from customer, orders, lineitem
  where c_mktsegment = 'BUILDING'
    and c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate < date '1995-03-15'
    and l_shipdate > date '1995-03-15'
  group by l_orderkey, o_orderdate, o_shippriority
  order by revenue desc, o_orderdate
  limit 10)";

/// Q5, local supplier volume (REGION = ASIA, DATE = 1994-01-01). Its equalities form a cycle
/// (customer, orders, lineitem, supplier and back to customer by the nation).
inline constexpr loom::fixed_string q5_text = R"(
  select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
  from customer, orders, lineitem, supplier, nation, region
  where c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and l_suppkey = s_suppkey
    and c_nationkey = s_nationkey
    and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey
    and r_name = 'ASIA'
    and o_orderdate >= date '1994-01-01'
    and o_orderdate < date '1994-01-01' + interval '1' year
  group by n_name
  order by revenue desc)";

/// Q10, returned item reporting (DATE = 1993-10-01).
inline constexpr loom::fixed_string q10_text = R"(
  select c_custkey, c_name,
         sum(l_extendedprice * (1 - l_discount)) as revenue,
         c_acctbal, n_name, c_address, c_phone, c_comment
  from customer, orders, lineitem, nation
  where c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate >= date '1993-10-01'
    and o_orderdate < date '1993-10-01' + interval '3' month
    and l_returnflag = 'R'
    and c_nationkey = n_nationkey
  group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
  order by revenue desc
  limit 20)";

/// The lineitem columns Q1, Q3, Q5, Q6, Q10 and Q12 read, from the lineitem.csv of
/// `generate(dir, sf, true)`.
inline rel::table load_lineitem(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "lineitem.csv").string(), {{"l_orderkey", column_type::int64},
                                                         {"l_suppkey", column_type::int64},
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

/// The orders columns Q3, Q5, Q10 and Q12 read, from the orders.csv of
/// `generate(dir, sf, true)`.
inline rel::table load_orders(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "orders.csv").string(), {{"o_orderkey", column_type::int64},
                                                       {"o_custkey", column_type::int64},
                                                       {"o_orderdate", column_type::date},
                                                       {"o_orderpriority", column_type::string},
                                                       {"o_shippriority", column_type::int64}});
}

/// The customer columns Q3, Q5 and Q10 read.
inline rel::table load_customer(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "customer.csv").string(), {{"c_custkey", column_type::int64},
                                                         {"c_name", column_type::string},
                                                         {"c_address", column_type::string},
                                                         {"c_nationkey", column_type::int64},
                                                         {"c_phone", column_type::string},
                                                         {"c_acctbal", column_type::decimal},
                                                         {"c_mktsegment", column_type::string},
                                                         {"c_comment", column_type::string}});
}

/// The supplier, nation and region columns Q5 and Q10 read.
inline rel::table load_supplier(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "supplier.csv").string(),
                       {{"s_suppkey", column_type::int64}, {"s_nationkey", column_type::int64}});
}
inline rel::table load_nation(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "nation.csv").string(), {{"n_nationkey", column_type::int64},
                                                       {"n_name", column_type::string},
                                                       {"n_regionkey", column_type::int64}});
}
inline rel::table load_region(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "region.csv").string(),
                       {{"r_regionkey", column_type::int64}, {"r_name", column_type::string}});
}

/// The tables Q1 to Q12 read, by their TPC-H names.
struct tables {
  rel::table lineitem, orders, customer, supplier, nation, region;
  explicit tables(const std::filesystem::path& dir)
      : lineitem(load_lineitem(dir)),
        orders(load_orders(dir)),
        customer(load_customer(dir)),
        supplier(load_supplier(dir)),
        nation(load_nation(dir)),
        region(load_region(dir)) {}
  loom::sql_database database() const {
    loom::sql_database db;
    db.add("lineitem", lineitem).add("orders", orders).add("customer", customer);
    db.add("supplier", supplier).add("nation", nation).add("region", region);
    return db;
  }
};

inline rel::table q1(const rel::table& lineitem) { return loom::sql<q1_text>(lineitem); }
inline rel::table q6(const rel::table& lineitem) { return loom::sql<q6_text>(lineitem); }
inline rel::table q12(const rel::table& orders, const rel::table& lineitem) {
  loom::sql_database db;
  db.add("orders", orders).add("lineitem", lineitem);
  return loom::sql<q12_text>(db);
}
inline rel::table q3(const tables& t) { return loom::sql<q3_text>(t.database()); }
inline rel::table q5(const tables& t) { return loom::sql<q5_text>(t.database()); }
inline rel::table q10(const tables& t) { return loom::sql<q10_text>(t.database()); }

}  // namespace tpch::sql

#endif  // LOOM_EXAMPLES_TPCH_SQL_QUERIES_HPP
