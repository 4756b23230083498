-- The columns of the generated CSV files that Q5 and Q9 read (examples/tpch/dbgen.hpp), typed
-- for SQLite as the specification types them: money and quantities DECIMAL(15,2) (NUMERIC
-- affinity in SQLite), dates as ISO text.
create table region(r_regionkey integer primary key, r_name text);
create table nation(n_nationkey integer primary key, n_name text, n_regionkey integer);
create table supplier(s_suppkey integer primary key, s_nationkey integer);
create table customer(c_custkey integer primary key, c_nationkey integer);
create table orders(o_orderkey integer primary key, o_custkey integer, o_orderdate text);
create table lineitem(l_orderkey integer, l_partkey integer, l_suppkey integer,
                      l_quantity decimal(15,2), l_extendedprice decimal(15,2),
                      l_discount decimal(15,2));
create table part(p_partkey integer primary key, p_name text);
create table partsupp(ps_partkey integer, ps_suppkey integer, ps_supplycost decimal(15,2),
                      primary key (ps_partkey, ps_suppkey));
