select n1.n_name, count(*), sum(extract(month from o.o_orderdate)) as months
from nation n1, nation n2, orders o
where n1.n_regionkey = n2.n_regionkey and o.o_custkey = n2.n_nationkey
  and extract(day from o.o_orderdate) = 1
group by n1.n_name
