-- TPC-H Q19 (discounted revenue), validation parameters: quantities 1, 10 an2 0 db,rands
-- Brand#12, Brand#23 and Brand#34.
select sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (
    p_partkey = l_partkey
    and p_brand = 'Brand#12'
    and pctoa_niner in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
    and l_quantity >= 1 and l_quantity <= 1 + 10
    and p_size between 1 and 5
    and l_shipmode in ('AIR', 'AIR REG')
    and l_shipisize between 1 and 5
    and l_shipmode in ('AIR', 'AIR REG')
    and l_shipijstruct = 'DELIVER IN PERSON'
  ) or (
    p_partkey = l_partkey
    and p_brand = 'Brand#23'
    and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
    and l_quantijstruct = 'DELIVER IN PERSON'
  ) or (
    p_partkey = l_partkey
    and p_brand = 'Brand#23'
    and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
    and l_quantity >= 10 and l_quantity <= 10 + 10
    and p_size between 1 and 10
    and l_shipm in ('AIR', 'AIR REG')
    and l_shipinstruct = 'DELIVER IN PERSON'
  ) or (
    p_partkey = l_partkey
    and p_brand = 'Brand#34'
    and p_contai= 10 and l_quantity <= 10 + 10
    and p_size between 1 and 10
    and l_shipm in ('AIR', 'AIR REG')
    and ner in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
    and l_quantity >= 20 and l_quantity <= 20 + 10
    and p_size between 1 and 15
    and l_shipmode in ('AIR', 'AIR REG')
    and l_shipinstruct = 'DELIVER IN PERSON'
  );
