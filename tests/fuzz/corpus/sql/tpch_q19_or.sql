select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (p_partkey = l_partkey and p_brand = 'Brand#12' and p_size between 1 and 5
       and l_shipmode in ('AIR', 'AIR REG'))
   or (l_partkey = p_partkey and p_brand = 'Brand#23' and l_quantity <= 10 + 10
       and l_shipmode in ('AIR', 'AIR REG'))
