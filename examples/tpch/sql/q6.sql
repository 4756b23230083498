-- TPC-H Q6 (forecasting revenue change), validation parameters: 1994, discount 0.06, quantity
-- 24. Dates are ISO text, so the interval is written as the next year's first day.
select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= '1994-01-01'
  and l_shipdate < '1995-01-01'
  -- 0.06 - 0.01 and 0.06 + 0.01 written out: SQLite computes them in binary floating point
  -- (0.06999999999999999), which leaves out the discounts of 0.07; loom::sql and DuckDB fold
  -- them exactly, as DECIMAL literals.
  and l_discount between 0.05 and 0.07
  and l_quantity < 24;
