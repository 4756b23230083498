select y from (select extract(week from d) as y, sum(v) from t) as s, u
