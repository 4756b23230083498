lineitem(l_orderkey INT, l_quantity DECIMAL(15,2), l_shipdate DATE, l_returnflag TEXT);
CREATE TABLE orders(o_orderkey BIGINT, o_orderdate DATE) -- a comment
