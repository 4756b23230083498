// TPC-H Q1, Q3, Q5 to Q10, Q12, Q14 and Q19 as SQL text, compiled by loom::sql at compile time
// into loops over the lineitem table (Q12 and Q14: a hash join of two tables; the others: a
// chain of hash joins of three to eight tables, Q7 to Q9 over a derived table that is inlined);
// the SQL of the specification, clause 2.4, with its validation parameters.
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

/// Q7, volume shipping (NATION1 = FRANCE, NATION2 = GERMANY): nation joined twice, under two
/// aliases, and a derived table.
inline constexpr loom::fixed_string q7_text = R"(
  select supp_nation, cust_nation, l_year, sum(volume) as revenue
  from (
    select n1.n_name as supp_nation,
           n2.n_name as cust_nation,
           extract(year from l_shipdate) as l_year,
           l_extendedprice * (1 - l_discount) as volume
    from supplier, lineitem, orders, customer, nation n1, nation n2
    where s_suppkey = l_suppkey
      and o_orderkey = l_orderkey
      and c_custkey = o_custkey
      and s_nationkey = n1.n_nationkey
      and c_nationkey = n2.n_nationkey
      and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')
        or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))
      and l_shipdate between date '1995-01-01' and date '1996-12-31'
  ) as shipping
  group by supp_nation, cust_nation, l_year
  order by supp_nation, cust_nation, l_year)";

/// Q8, national market share (NATION = BRAZIL, REGION = AMERICA, TYPE = ECONOMY ANODIZED
/// STEEL): eight tables, nation twice.
inline constexpr loom::fixed_string q8_text = R"(
  select o_year,
         sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
  from (
    select extract(year from o_orderdate) as o_year,
           l_extendedprice * (1 - l_discount) as volume,
           n2.n_name as nation
    from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
    where p_partkey = l_partkey
      and s_suppkey = l_suppkey
      and l_orderkey = o_orderkey
      and o_custkey = c_custkey
      and c_nationkey = n1.n_nationkey
      and n1.n_regionkey = r_regionkey
      and r_name = 'AMERICA'
      and s_nationkey = n2.n_nationkey
      and o_orderdate between date '1995-01-01' and date '1996-12-31'
      and p_type = 'ECONOMY ANODIZED STEEL'
  ) as all_nations
  group by o_year
  order by o_year)";

/// Q9, product type profit measure (COLOR = green): partsupp joined on two columns.
inline constexpr loom::fixed_string q9_text = R"(
  select nation, o_year, sum(amount) as sum_profit
  from (
    select n_name as nation,
           extract(year from o_orderdate) as o_year,
           l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
    from part, supplier, lineitem, partsupp, orders, nation
    where s_suppkey = l_suppkey
      and ps_suppkey = l_suppkey
      and ps_partkey = l_partkey
      and p_partkey = l_partkey
      and o_orderkey = l_orderkey
      and s_nationkey = n_nationkey
      and p_name like '%green%'
  ) as profit
  group by nation, o_year
  order by nation, o_year desc)";

/// Q14, promotion effect (DATE = 1995-09-01).
inline constexpr loom::fixed_string q14_text = R"(
  select 100.00 * sum(case when p_type like 'PROMO%'
                           then l_extendedprice * (1 - l_discount)
                           else 0 end)
         / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
  from lineitem, part
  where l_partkey = p_partkey
    and l_shipdate >= date '1995-09-01'
    and l_shipdate < date '1995-09-01' + interval '1' month)";

/// Q19, discounted revenue (QUANTITY1 = 1, QUANTITY2 = 10, QUANTITY3 = 20, BRAND1 = Brand#12,
/// BRAND2 = Brand#23, BRAND3 = Brand#34). The join equality and the ship mode and instruction
/// terms, repeated in the three branches of the OR, are factored out of it while compiling.
inline constexpr loom::fixed_string q19_text = R"(
  select sum(l_extendedprice * (1 - l_discount)) as revenue
  from lineitem, part
  where (
      p_partkey = l_partkey
      and p_brand = 'Brand#12'
      and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
      and l_quantity >= 1 and l_quantity <= 1 + 10
      and p_size between 1 and 5
      and l_shipmode in ('AIR', 'AIR REG')
      and l_shipinstruct = 'DELIVER IN PERSON'
    ) or (
      p_partkey = l_partkey
      and p_brand = 'Brand#23'
      and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
      and l_quantity >= 10 and l_quantity <= 10 + 10
      and p_size between 1 and 10
      and l_shipmode in ('AIR', 'AIR REG')
      and l_shipinstruct = 'DELIVER IN PERSON'
    ) or (
      p_partkey = l_partkey
      and p_brand = 'Brand#34'
      and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
      and l_quantity >= 20 and l_quantity <= 20 + 10
      and p_size between 1 and 15
      and l_shipmode in ('AIR', 'AIR REG')
      and l_shipinstruct = 'DELIVER IN PERSON'
    ))";

/// The lineitem columns the queries read, from the lineitem.csv of
/// `generate(dir, sf, true)`.
inline rel::table load_lineitem(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "lineitem.csv").string(), {{"l_orderkey", column_type::int64},
                                                         {"l_partkey", column_type::int64},
                                                         {"l_suppkey", column_type::int64},
                                                         {"l_quantity", column_type::fixed, 2},
                                                         {"l_extendedprice", column_type::fixed, 2},
                                                         {"l_discount", column_type::fixed, 2},
                                                         {"l_tax", column_type::fixed, 2},
                                                         {"l_returnflag", column_type::string},
                                                         {"l_linestatus", column_type::string},
                                                         {"l_shipdate", column_type::date},
                                                         {"l_commitdate", column_type::date},
                                                         {"l_receiptdate", column_type::date},
                                                         {"l_shipinstruct", column_type::string},
                                                         {"l_shipmode", column_type::string}});
}

/// The orders columns the queries read, from the orders.csv of
/// `generate(dir, sf, true)`.
inline rel::table load_orders(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "orders.csv").string(), {{"o_orderkey", column_type::int64},
                                                       {"o_custkey", column_type::int64},
                                                       {"o_orderdate", column_type::date},
                                                       {"o_orderpriority", column_type::string},
                                                       {"o_shippriority", column_type::int64}});
}

/// The customer columns the queries read.
inline rel::table load_customer(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "customer.csv").string(), {{"c_custkey", column_type::int64},
                                                         {"c_name", column_type::string},
                                                         {"c_address", column_type::string},
                                                         {"c_nationkey", column_type::int64},
                                                         {"c_phone", column_type::string},
                                                         {"c_acctbal", column_type::fixed, 2},
                                                         {"c_mktsegment", column_type::string},
                                                         {"c_comment", column_type::string}});
}

/// The supplier, nation and region columns the queries read.
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
/// The part and partsupp columns Q8, Q9, Q14 and Q19 read.
inline rel::table load_part(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "part.csv").string(), {{"p_partkey", column_type::int64},
                                                     {"p_name", column_type::string},
                                                     {"p_brand", column_type::string},
                                                     {"p_type", column_type::string},
                                                     {"p_size", column_type::int64},
                                                     {"p_container", column_type::string}});
}
inline rel::table load_partsupp(const std::filesystem::path& dir) {
  using rel::column_type;
  return rel::read_csv((dir / "partsupp.csv").string(), {{"ps_partkey", column_type::int64},
                                                         {"ps_suppkey", column_type::int64},
                                                         {"ps_supplycost", column_type::fixed, 2}});
}

/// The tables the queries read, by their TPC-H names.
struct tables {
  rel::table lineitem, orders, customer, supplier, nation, region, part, partsupp;
  explicit tables(const std::filesystem::path& dir)
      : lineitem(load_lineitem(dir)),
        orders(load_orders(dir)),
        customer(load_customer(dir)),
        supplier(load_supplier(dir)),
        nation(load_nation(dir)),
        region(load_region(dir)),
        part(load_part(dir)),
        partsupp(load_partsupp(dir)) {}
  loom::sql_database database() const {
    loom::sql_database db;
    db.add("lineitem", lineitem).add("orders", orders).add("customer", customer);
    db.add("supplier", supplier).add("nation", nation).add("region", region);
    db.add("part", part).add("partsupp", partsupp);
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
inline rel::table q7(const tables& t) { return loom::sql<q7_text>(t.database()); }
inline rel::table q8(const tables& t) { return loom::sql<q8_text>(t.database()); }
inline rel::table q9(const tables& t) { return loom::sql<q9_text>(t.database()); }
inline rel::table q14(const tables& t) { return loom::sql<q14_text>(t.database()); }
inline rel::table q19(const tables& t) { return loom::sql<q19_text>(t.database()); }

}  // namespace tpch::sql

#endif  // LOOM_EXAMPLES_TPCH_SQL_QUERIES_HPP
