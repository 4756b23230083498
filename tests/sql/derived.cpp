// loom::sql over a derived table (FROM (SELECT ...) AS d, inlined while compiling), EXTRACT, a
// table joined to itself under two aliases and an OR whose branches share terms, each against a
// plain C++ loop over the same rows; and loom::sql_explain's text for one table and for a join.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace {
namespace rel = loom::relational;
using rel::column_type;

/// Eight people, each with a boss (0: none), a city, a hiring date and a pay.
rel::table make_staff() {
  return rel::read_csv_text(
      "id,boss,name,city,hired,pay\n"
      "1,0,Ada,Lyon,1994-01-01,90\n"
      "2,1,Bo,Lyon,1994-03-15,40\n"
      "3,1,Cy,Oslo,1995-01-01,55\n"
      "4,2,Di,Oslo,1995-06-30,20\n"
      "5,2,Ed,Lyon,1995-07-01,35.5\n"
      "6,3,Fay,Lima,1996-02-29,60\n"
      "7,3,Gus,Oslo,1996-12-01,8\n"
      "8,6,Hal,Lima,1996-12-31,25\n",
      "staff",
      {{"id", column_type::int64},
       {"boss", column_type::int64},
       {"name", column_type::string},
       {"city", column_type::string},
       {"hired", column_type::date},
       {"pay", column_type::decimal}});
}

}  // namespace

TEST_CASE("sql: a table joined to itself under two aliases reads each alias's own rows") {
  const rel::table staff = make_staff();
  loom::sql_database db;
  db.add("staff", staff);
  const rel::table r = loom::sql<R"(
    select e.name as employee, m.name as manager, m.pay - e.pay as gap
    from staff e, staff m
    where e.boss = m.id and e.city <> m.city
    order by employee)">(db);
  // Cy (Oslo) under Ada (Lyon), Di (Oslo) under Bo (Lyon), Fay (Lima) under Cy (Oslo)
  REQUIRE(r.rows() == 3);
  CHECK(r["employee"].text(0) == "Cy");
  CHECK(r["manager"].text(0) == "Ada");
  CHECK(r.reals("gap")[0] == 35);
  CHECK(r["employee"].text(1) == "Di");
  CHECK(r["manager"].text(1) == "Bo");
  CHECK(r["employee"].text(2) == "Fay");
  CHECK(r["manager"].text(2) == "Cy");
  CHECK(r.reals("gap")[2] == -5);
}

TEST_CASE("sql: a derived table is inlined; EXTRACT gives a date's year, month and day") {
  const rel::table staff = make_staff();
  // The outer WHERE reads the derived columns; y and m are GROUP BY keys computed per row.
  const rel::table r = loom::sql<R"(
    select y, m, count(*) as n, sum(pay) as total
    from (select extract(year from hired) as y, extract(month from hired) as m, pay
          from staff
          where pay > 10) as hires
    where m <= 6
    group by y, m
    order by y desc, m)">(staff);
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<std::int64_t, double>> expected;
  for (std::size_t i = 0; i < staff.rows(); ++i) {
    const rel::civil_date d = rel::civil_from_days(staff.ints("hired")[i]);
    if (staff.reals("pay")[i] > 10 && d.month <= 6) {
      auto& [n, total] = expected[{-d.year, d.month}];  // year descending, then month
      ++n;
      total += staff.reals("pay")[i];
    }
  }
  REQUIRE(expected.size() == 5);
  REQUIRE(r.rows() == expected.size());
  std::size_t row = 0;
  for (const auto& [key, value] : expected) {
    CAPTURE(row);
    CHECK(r.ints("y")[row] == -key.first);  // EXTRACT gives integers
    CHECK(r.ints("m")[row] == key.second);
    CHECK(r.ints("n")[row] == value.first);
    CHECK(r.reals("total")[row] == value.second);
    ++row;
  }
  const rel::table days = loom::sql<R"(
    select name, extract(day from hired) as d from staff
    where extract(month from hired) = 12 or extract(day from hired) = 29)">(staff);
  REQUIRE(days.rows() == 3);
  CHECK(days["name"].text(0) == "Fay");
  CHECK(days.ints("d")[0] == 29);
  CHECK(days.ints("d")[1] == 1);
  CHECK(days.ints("d")[2] == 31);
}

TEST_CASE("sql: an OR's common terms are factored out; the rest is tested per row") {
  const rel::table staff = make_staff();
  loom::sql_database db;
  db.add("staff", staff);
  // e.boss = m.id is in both branches: it joins the two aliases (else: no equality, no join)
  const rel::table r = loom::sql<R"(
    select count(*) as n, sum(e.pay) as pay
    from staff e, staff m
    where (e.boss = m.id and m.city = 'Lyon' and e.pay < 50)
       or (e.pay < 50 and m.id = e.boss and e.city = 'Lima'))">(db);
  // Bo, Di, Ed under managers in Lyon; Hal in Lima: all paid under 50
  REQUIRE(r.rows() == 1);
  CHECK(r.ints("n")[0] == 4);
  CHECK(r.reals("pay")[0] == 40 + 20 + 35.5 + 25);
}

TEST_CASE("sql_explain: the plan in the query's own names") {
  const rel::table staff = make_staff();
  CHECK(loom::sql_explain<R"(
    select y, sum(pay) as total
    from (select extract(year from hired) as y, pay from staff where city in ('Lyon', 'Oslo'))
    where pay between 10 and 100
    group by y
    order by total desc
    limit 2)">(staff) ==
        "scan staff (8 rows)\n"
        "  filter: city IN ('Lyon', 'Oslo') AND pay BETWEEN 10 AND 100\n"
        "group by EXTRACT(YEAR FROM hired)\n"
        "aggregates per group: SUM(pay)\n"
        "result: EXTRACT(YEAR FROM hired) AS y, SUM(pay) AS total\n"
        "order by total DESC\n"
        "limit 2\n");
  loom::sql_database db;
  db.add("staff", staff);
  CHECK(loom::sql_explain<R"(
    select m.name, count(*) as reports
    from staff e, staff m
    where e.boss = m.id and m.pay > 2 * e.pay + 1 and e.city <> 'Lima' and not m.id = 1
    group by m.name)">(db) ==
        "scan staff e (8 rows)\n"
        "  filter: e.city <> 'Lima'\n"
        "join staff m (8 rows) on m.id = e.boss (merged: both ascend)\n"
        "  filter staff m: NOT m.id = 1\n"
        "  test joined rows: m.pay > 2 * e.pay + 1\n"
        "estimated work 24; scanning staff m first instead: 26\n"
        "group by m.name\n"
        "aggregates per group: COUNT(*)\n"
        "result: m.name, COUNT(*) AS reports\n");
}
