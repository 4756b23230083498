select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem l
  join orders o on o.o_orderkey = l.l_orderkey and o_orderdate >= date '1994-01-01'
  inner join customer c on c.c_custkey = o.o_custkey
  cross join nation
where c.c_nationkey = n_nationkey
group by n_name
order by revenue desc
