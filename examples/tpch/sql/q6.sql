-- TPC-H Q6 (forecasting revenue change), validation parameters: 1994, discount 0.06, quantity
-- 24. Dates are ISO text, so the interval is written as the next year's first day.
select sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= '1994-01-01'
  and l_shipdate < '1995-01-01'
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01
  and l_quantity < 24;
