// loom::sql over one table (sql/execute.hpp): filters, arithmetic, every aggregate, GROUP BY
// over one and two columns, ORDER BY and LIMIT, each against a plain C++ loop over the same
// columns; and the errors that only the data can raise.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

/// A reproducible table: k (int64 keys 1..7), price (decimal), qty (int64), day (date in
/// 1994..1996), flag and city (strings).
rel::table make_sales(std::size_t rows) {
  std::mt19937_64 rng(42);
  const char* flags[] = {"A", "N", "R"};
  const char* cities[] = {"Berlin", "Bern", "Lima", "Lyon", "Oslo", "it's"};
  std::ostringstream csv;
  csv << "k,price,qty,day,flag,city\n";
  for (std::size_t r = 0; r < rows; ++r) {
    const auto day = rel::date("1994-01-01") + static_cast<std::int64_t>(rng() % 1000);
    csv << 1 + rng() % 7 << ',' << static_cast<double>(rng() % 100000) / 100 << ','
        << 1 + rng() % 50 << ',' << rel::format_date(day) << ',' << flags[rng() % 3] << ',' << '"'
        << cities[rng() % 6] << '"' << '\n';
  }
  return rel::read_csv_text(csv.str(), "sales",
                            {{"k", column_type::int64},
                             {"price", column_type::decimal},
                             {"qty", column_type::int64},
                             {"day", column_type::date},
                             {"flag", column_type::string},
                             {"city", column_type::string}});
}

struct sales_rows {
  std::vector<std::int64_t> k, qty, day;
  std::vector<double> price;
  std::vector<std::string> flag, city;
  explicit sales_rows(const rel::table& t) {
    for (std::size_t r = 0; r < t.rows(); ++r) {
      k.push_back(t.ints("k")[r]);
      qty.push_back(t.ints("qty")[r]);
      day.push_back(t.ints("day")[r]);
      price.push_back(t.reals("price")[r]);
      flag.push_back(t["flag"].text(r));
      city.push_back(t["city"].text(r));
    }
  }
  std::size_t size() const { return k.size(); }
};

const rel::table sales = make_sales(2000);
const sales_rows rows(sales);

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST_CASE("sql: a filtered sum with arithmetic, BETWEEN, DATE and INTERVAL") {
  const rel::table r = loom::sql<R"(
      SELECT SUM(price * (1 - qty / 100.0) + 2) AS total, COUNT(*) AS n
      FROM sales
      WHERE day >= DATE '1995-01-01' AND day < DATE '1995-01-01' + INTERVAL '6' MONTH
        AND qty BETWEEN 10 AND 20 AND NOT k = 3)">(sales);
  double total = 0;
  std::int64_t n = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows.day[i] >= rel::date("1995-01-01") && rows.day[i] < rel::date("1995-07-01") &&
        rows.qty[i] >= 10 && rows.qty[i] <= 20 && rows.k[i] != 3) {
      total += rows.price[i] * (1 - static_cast<double>(rows.qty[i]) / 100.0) + 2;
      ++n;
    }
  REQUIRE(r.rows() == 1);
  CHECK(n > 0);
  CHECK(close(r.reals("total")[0], total));
  CHECK(r.ints("n")[0] == n);
  CHECK(r["n"].type() == column_type::int64);
}

TEST_CASE("sql: string predicates (=, <, IN, LIKE, quotes) test dictionary codes") {
  const rel::table r = loom::sql<R"(
      select count(*) as eq, sum(case when city < 'Lima' then 1 else 0 end) as before_lima,
             sum(case when city in ('Oslo', 'it''s') then 1 else 0 end) as listed,
             sum(case when city like 'B%n' then 1 else 0 end) as b_n,
             sum(case when city not like '_y%' then 1 else 0 end) as not_y,
             sum(case when 'N' = flag then 1 else 0 end) as flipped,
             sum(case when city = 'Nowhere' then 1 else 0 end) as absent
      from sales where flag <> 'R')">(sales);
  std::int64_t eq = 0, before = 0, listed = 0, b_n = 0, not_y = 0, flipped = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows.flag[i] == "R") continue;
    ++eq;
    const std::string& c = rows.city[i];
    before += c < "Lima";
    listed += c == "Oslo" || c == "it's";
    b_n += c.front() == 'B' && c.back() == 'n';
    not_y += c.size() < 2 || c[1] != 'y';
    flipped += rows.flag[i] == "N";
  }
  REQUIRE(r.rows() == 1);
  CHECK(r.ints("eq")[0] == eq);
  CHECK(r.reals("before_lima")[0] == static_cast<double>(before));
  CHECK(r.reals("listed")[0] == static_cast<double>(listed));
  CHECK(r.reals("b_n")[0] == static_cast<double>(b_n));
  CHECK(r.reals("not_y")[0] == static_cast<double>(not_y));
  CHECK(r.reals("flipped")[0] == static_cast<double>(flipped));
  CHECK(r.reals("absent")[0] == 0.0);
  CHECK(listed > 0);
}

TEST_CASE("sql: GROUP BY two columns with every aggregate, ORDER BY and LIMIT") {
  const rel::table r = loom::sql<R"(
      select s.flag, k, count(*) as n, count(qty) as nq, count(distinct qty) as dq,
             sum(price) as total, avg(qty) as mean, min(day) as first_day, max(price) as top,
             sum(case when qty > 25 then price end) as big, avg(case when qty > 45 then qty end)
               as avg_big
      from sales s
      where s.day < date '1996-01-01'
      group by flag, k
      order by total desc, k
      limit 10)">(sales);
  struct group {
    std::int64_t n = 0;
    std::set<std::int64_t> qtys;
    double total = 0, qty_sum = 0, top = -1e300, big = 0, big_qty = 0, big_n = 0;
    std::int64_t first_day = std::numeric_limits<std::int64_t>::max();
  };
  std::map<std::pair<std::string, std::int64_t>, group> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows.day[i] >= rel::date("1996-01-01")) continue;
    group& g = groups[{rows.flag[i], rows.k[i]}];
    ++g.n;
    g.qtys.insert(rows.qty[i]);
    g.total += rows.price[i];
    g.qty_sum += static_cast<double>(rows.qty[i]);
    g.first_day = std::min(g.first_day, rows.day[i]);
    g.top = std::max(g.top, rows.price[i]);
    if (rows.qty[i] > 25) g.big += rows.price[i];
    if (rows.qty[i] > 45) {
      g.big_qty += static_cast<double>(rows.qty[i]);
      ++g.big_n;
    }
  }
  std::vector<std::tuple<double, std::int64_t, std::string>> expected;  // -total, k, flag
  for (const auto& [key, g] : groups) expected.emplace_back(-g.total, key.second, key.first);
  std::sort(expected.begin(), expected.end());
  expected.resize(10);

  REQUIRE(r.rows() == 10);
  CHECK(r["flag"].type() == column_type::string);
  CHECK(r["first_day"].type() == column_type::date);  // MIN of a date column is a date
  CHECK(r["nq"].type() == column_type::int64);
  for (std::size_t row = 0; row < 10; ++row) {
    const auto& [neg_total, k, flag] = expected[row];
    const group& g = groups.at({flag, k});
    CAPTURE(row);
    CHECK(r["flag"].text(row) == flag);
    CHECK(r.ints("k")[row] == k);
    CHECK(r.ints("n")[row] == g.n);
    CHECK(r.ints("nq")[row] == g.n);
    CHECK(r.ints("dq")[row] == static_cast<std::int64_t>(g.qtys.size()));
    CHECK(close(r.reals("total")[row], -neg_total));
    CHECK(close(r.reals("mean")[row], g.qty_sum / static_cast<double>(g.n)));
    CHECK(r.ints("first_day")[row] == g.first_day);
    CHECK(r.reals("top")[row] == g.top);
    CHECK(close(r.reals("big")[row], g.big));  // CASE without ELSE: NULL, skipped by SUM
    if (g.big_n > 0)
      CHECK(close(r.reals("avg_big")[row], g.big_qty / g.big_n));
    else
      CHECK(std::isnan(r.reals("avg_big")[row]));  // AVG of nothing: NaN (there is no NULL)
  }
}

TEST_CASE("sql: expressions over GROUP BY keys and aggregates; groups in key order") {
  const rel::table r =
      loom::sql<"select k * 10 + 1 as tag, sum(price) / count(*) as mean, k from sales group by k">(
          sales);
  std::map<std::int64_t, std::pair<double, double>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    groups[rows.k[i]].first += rows.price[i];
    groups[rows.k[i]].second += 1;
  }
  REQUIRE(r.rows() == groups.size());
  std::size_t row = 0;
  for (const auto& [k, g] : groups) {
    CHECK(r.reals("tag")[row] == static_cast<double>(k * 10 + 1));
    CHECK(close(r.reals("mean")[row], g.first / g.second));
    CHECK(r.ints("k")[row] == k);
    ++row;
  }
}

TEST_CASE("sql: HAVING keeps the groups whose keys and aggregates satisfy it") {
  const rel::table r = loom::sql<R"(
      select flag, k, sum(price) as total from sales
      group by flag, k
      having count(*) > 90 and k <> 3 and (max(qty) = 50 or flag = 'N')
      order by total)">(sales);
  struct group {
    double total = 0;
    std::int64_t n = 0, most = 0;
  };
  std::map<std::pair<std::string, std::int64_t>, group> groups;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    group& g = groups[{rows.flag[i], rows.k[i]}];
    g.total += rows.price[i];
    ++g.n;
    g.most = std::max(g.most, rows.qty[i]);
  }
  std::vector<std::pair<double, std::pair<std::string, std::int64_t>>> expected;
  for (const auto& [key, g] : groups)
    if (g.n > 90 && key.second != 3 && (g.most == 50 || key.first == "N"))
      expected.emplace_back(g.total, key);
  std::sort(expected.begin(), expected.end());
  REQUIRE(expected.size() > 1);
  REQUIRE(expected.size() < groups.size());
  REQUIRE(r.rows() == expected.size());
  for (std::size_t row = 0; row < r.rows(); ++row) {
    CHECK(close(r.reals("total")[row], expected[row].first));
    CHECK(r["flag"].text(row) == expected[row].second.first);
    CHECK(r.ints("k")[row] == expected[row].second.second);
  }
}

TEST_CASE("sql: a projection keeps the column types; ORDER BY position, LIMIT") {
  const rel::table r = loom::sql<R"(
      select city, day, price * qty as amount, -qty as negative
      from sales where k in (1, 2) and (flag = 'A' or qty >= 49)
      order by 3 desc limit 5)">(sales);
  std::vector<std::pair<double, std::size_t>> expected;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if ((rows.k[i] == 1 || rows.k[i] == 2) && (rows.flag[i] == "A" || rows.qty[i] >= 49))
      expected.emplace_back(-rows.price[i] * static_cast<double>(rows.qty[i]), i);
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  REQUIRE(r.rows() == 5);
  CHECK(r["city"].type() == column_type::string);
  CHECK(r["day"].type() == column_type::date);
  for (std::size_t row = 0; row < 5; ++row) {
    const std::size_t i = expected[row].second;
    CHECK(r["city"].text(row) == rows.city[i]);
    CHECK(r.ints("day")[row] == rows.day[i]);
    CHECK(r.reals("amount")[row] == -expected[row].first);
    CHECK(r.reals("negative")[row] == -static_cast<double>(rows.qty[i]));
  }
}

TEST_CASE("sql: no matching rows") {
  const rel::table grouped =
      loom::sql<"select k, sum(price) from sales where qty > 1000 group by k">(sales);
  CHECK(grouped.rows() == 0);
  CHECK(grouped.columns().size() == 2);
  // Aggregates without GROUP BY give one row: a COUNT of 0, a SUM of 0, a NaN MIN.
  const rel::table one =
      loom::sql<"select count(*) as n, sum(price) as s, min(day) as d from sales where qty > 1000">(
          sales);
  REQUIRE(one.rows() == 1);
  CHECK(one.ints("n")[0] == 0);
  CHECK(one.reals("s")[0] == 0.0);
  CHECK(std::isnan(one.reals("d")[0]));  // a date column cannot hold it: decimal NaN
}

TEST_CASE("sql: a database picks the table FROM names; data errors throw") {
  loom::sql_database db;
  db.add("sales", sales);
  const rel::table r = loom::sql<"select count(*) as n from sales where k = 7">(db);
  CHECK(r.ints("n")[0] == std::count(rows.k.begin(), rows.k.end(), 7));
  CHECK_THROWS_WITH_AS(loom::sql<"select count(*) from orders">(db),
                       "loom::sql: no table orders in the database (tables: sales)",
                       rel::column_error);
  CHECK_THROWS_AS(loom::sql<"select sum(discount) from sales">(sales), rel::column_error);
  CHECK_THROWS_WITH_AS(loom::sql<"select count(*) from sales where qty = 'x'">(sales),
                       "loom::sql: column qty is int64, not string; it is compared with 'x'",
                       rel::column_error);
}

TEST_CASE("sql: LIKE matches % and _ as SQL does") {
  using loom::sql_compiler::detail::like_match;
  static_assert(like_match("forest green", "%green%"));
  static_assert(like_match("abc", "a_c") && !like_match("abbc", "a_c"));
  static_assert(like_match("", "%") && !like_match("", "_"));
  static_assert(like_match("aXbXc", "a%b%c") && !like_match("aXbXc", "a%c%b"));
  static_assert(like_match("100%", "100%") && like_match("abc", "abc") && !like_match("ab", "abc"));
  CHECK(like_match("PROMO BRUSHED", "PROMO%"));
}

namespace {
/// A second table for joins: k (1..7, the sales key), region (string), weight (decimal).
rel::table make_keys() {
  return rel::read_csv_text(
      "k,region,weight,qty\n"
      "1,north,0.5,1\n"
      "2,south,1.5,2\n"
      "3,north,2,3\n"
      "4,east,1,4\n"
      "5,south,3,5\n"
      "6,west,0.25,6\n"
      "9,west,7,9\n",  // k = 7 has no row here, k = 9 none in sales
      "keys",
      {{"k", column_type::int64},
       {"region", column_type::string},
       {"weight", column_type::decimal},
       {"qty", column_type::int64}});
}
const rel::table keys = make_keys();
}  // namespace

TEST_CASE("sql: a grouped aggregate over an equi-join of two tables (a hash join)") {
  loom::sql_database db;
  db.add("sales", sales).add("keys", keys);
  const rel::table r = loom::sql<R"(
      select region, sum(price * weight) as weighted, count(*) as n, max(s.qty) as most
      from sales s, keys t
      where s.k = t.k and s.flag <> 'R' and t.weight >= 0.5 and (s.qty > 10 or t.region = 'east')
      group by region
      order by weighted desc)">(db);
  struct group {
    double weighted = 0;
    std::int64_t n = 0, most = 0;
  };
  std::map<std::string, group> groups;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < keys.rows(); ++j) {
      const std::string region = keys["region"].text(j);
      const double weight = keys.reals("weight")[j];
      if (rows.k[i] != keys.ints("k")[j] || rows.flag[i] == "R" || weight < 0.5 ||
          !(rows.qty[i] > 10 || region == "east"))
        continue;
      group& g = groups[region];
      g.weighted += rows.price[i] * weight;
      ++g.n;
      g.most = std::max(g.most, rows.qty[i]);
    }
  std::vector<std::pair<double, std::string>> expected;
  for (const auto& [region, g] : groups) expected.emplace_back(-g.weighted, region);
  std::sort(expected.begin(), expected.end());
  REQUIRE(r.rows() == expected.size());
  CHECK(r.rows() == 3);  // north, south, east (west's weight 0.25 and 7 match nothing)
  for (std::size_t row = 0; row < r.rows(); ++row) {
    const group& g = groups.at(expected[row].second);
    CHECK(r["region"].text(row) == expected[row].second);
    CHECK(close(r.reals("weighted")[row], g.weighted));
    CHECK(r.ints("n")[row] == g.n);
    CHECK(r.ints("most")[row] == g.most);
  }
}

TEST_CASE("sql: a projection of a join on two keys; the larger table may come first") {
  loom::sql_database db;
  db.add("keys", keys).add("sales", sales);
  // Both orders of FROM give the same rows: the smaller table is hashed either way.
  const rel::table a = loom::sql<R"(
      select sales.k, keys.qty, price from keys, sales
      where keys.k = sales.k and sales.qty = keys.qty * 8 order by price, 1)">(db);
  const rel::table b = loom::sql<R"(
      select sales.k, keys.qty, price from sales, keys
      where sales.qty = keys.qty * 8 and sales.k = keys.k order by price, 1)">(db);
  std::vector<std::pair<double, std::int64_t>> expected;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < keys.rows(); ++j)
      if (rows.k[i] == keys.ints("k")[j] && rows.qty[i] == keys.ints("qty")[j] * 8)
        expected.emplace_back(rows.price[i], rows.k[i]);
  std::sort(expected.begin(), expected.end());
  REQUIRE(!expected.empty());
  REQUIRE(a.rows() == expected.size());
  REQUIRE(b.rows() == expected.size());
  for (std::size_t row = 0; row < expected.size(); ++row) {
    CHECK(a.reals("price")[row] == expected[row].first);
    CHECK(a.ints("k")[row] == expected[row].second);
    CHECK(a.ints("qty")[row] == b.ints("qty")[row]);
    CHECK(b.reals("price")[row] == expected[row].first);
  }
}

namespace {
/// A third table for joins: q (the sales quantities 1..50), tier (q % 7, joined with keys.qty),
/// bonus (decimal).
rel::table make_levels() {
  std::ostringstream csv;
  csv << "q,tier,bonus\n";
  for (int q = 1; q <= 50; ++q) csv << q << ',' << q % 7 << ',' << q * 0.25 << '\n';
  return rel::read_csv_text(
      csv.str(), "levels",
      {{"q", column_type::int64}, {"tier", column_type::int64}, {"bonus", column_type::decimal}});
}
const rel::table levels = make_levels();
}  // namespace

TEST_CASE("sql: a join of three tables whose equalities form a cycle, with filters on each") {
  loom::sql_database db;
  db.add("keys", keys).add("levels", levels).add("sales", sales);
  // sales-keys, sales-levels and levels-keys: the last table joined is keyed on two columns.
  const rel::table r = loom::sql<R"(
      select region, sum(price * weight + bonus) as total, count(*) as n
      from keys t, levels v, sales s
      where s.k = t.k and s.qty = v.q and v.tier = t.qty
        and flag <> 'A' and q > 5 and region <> 'west' and price > weight * 100
      group by region
      order by region)">(db);
  std::map<std::string, std::pair<double, std::int64_t>> groups;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < keys.rows(); ++j)
      for (std::size_t v = 0; v < levels.rows(); ++v) {
        const std::string region = keys["region"].text(j);
        const double weight = keys.reals("weight")[j];
        if (rows.k[i] != keys.ints("k")[j] || rows.qty[i] != levels.ints("q")[v] ||
            levels.ints("tier")[v] != keys.ints("qty")[j] || rows.flag[i] == "A" ||
            levels.ints("q")[v] <= 5 || region == "west" || rows.price[i] <= weight * 100)
          continue;
        groups[region].first += rows.price[i] * weight + levels.reals("bonus")[v];
        ++groups[region].second;
      }
  REQUIRE(r.rows() == groups.size());
  CHECK(r.rows() == 3);
  std::size_t row = 0;
  for (const auto& [region, g] : groups) {
    CAPTURE(row);
    CHECK(r["region"].text(row) == region);
    CHECK(close(r.reals("total")[row], g.first));
    CHECK(r.ints("n")[row] == g.second);
    ++row;
  }
}

TEST_CASE("sql: JOIN ... ON, INNER JOIN and CROSS JOIN mean the same join as WHERE equalities") {
  loom::sql_database db;
  db.add("keys", keys).add("levels", levels).add("sales", sales);
  const rel::table where_form = loom::sql<R"(
      select region, sum(price * weight + bonus) as total, count(*) as n
      from keys t, levels v, sales s
      where s.k = t.k and s.qty = v.q and v.tier = t.qty
        and flag <> 'A' and q > 5 and region <> 'west' and price > weight * 100
      group by region
      order by region)">(db);
  REQUIRE(where_form.rows() == 3);
  const auto same_as_where_form = [&](const rel::table& r) {
    REQUIRE(r.rows() == where_form.rows());
    for (std::size_t row = 0; row < r.rows(); ++row) {
      CAPTURE(row);
      CHECK(r["region"].text(row) == where_form["region"].text(row));
      CHECK(close(r.reals("total")[row], where_form.reals("total")[row]));
      CHECK(r.ints("n")[row] == where_form.ints("n")[row]);
    }
  };
  // the filters in ON or in WHERE, the tables in another order, JOIN or INNER JOIN
  same_as_where_form(loom::sql<R"(
      select region, sum(price * weight + bonus) as total, count(*) as n
      from sales s
        join keys t on s.k = t.k and region <> 'west'
        inner join levels v on s.qty = v.q and v.tier = t.qty
      where flag <> 'A' and q > 5 and price > weight * 100
      group by region
      order by region)">(db));
  same_as_where_form(loom::sql<R"(
      select region, sum(price * weight + bonus) as total, count(*) as n
      from levels AS v JOIN sales s ON s.qty = v.q AND q > 5, keys t
      where s.k = t.k and v.tier = t.qty and flag <> 'A' and region <> 'west'
        and price > weight * 100
      group by region
      order by region)">(db));
  same_as_where_form(loom::sql<R"(
      select region, sum(price * weight + bonus) as total, count(*) as n
      from keys t cross join levels v cross join sales s
      where s.k = t.k and s.qty = v.q and v.tier = t.qty
        and flag <> 'A' and q > 5 and region <> 'west' and price > weight * 100
      group by region
      order by region)">(db));
  // in a derived table, the ON condition joins its WHERE
  same_as_where_form(loom::sql<R"(
      select region, sum(amount) as total, count(*) as n
      from (select region, price * weight + bonus as amount
            from keys t join levels v on v.tier = t.qty join sales s on s.k = t.k and s.qty = v.q
            where flag <> 'A' and q > 5 and region <> 'west' and price > weight * 100) d
      group by region
      order by region)">(db));
}

TEST_CASE("sql: the join order: the largest table scanned, then the linked ones by filters") {
  namespace sc = loom::sql_compiler;
  auto order_of = [](const auto& plan) {
    const auto& o = plan.join_order();
    return std::vector<std::size_t>(o.begin(), o.end());
  };
  const std::vector<const rel::table*> from = {&keys, &levels, &sales};
  {
    // sales (2000 rows) is scanned; keys and levels have one filter each: keys, the smaller,
    // comes first
    static constexpr sc::query q = sc::parse(
        "select count(*) from keys t, levels v, sales s where s.k = t.k and s.qty = v.q and "
        "v.tier = t.qty and region <> 'west' and q > 5");
    const auto b = sc::detail::bind(q, from);
    CHECK(order_of(sc::detail::join_scan<q>(*b, from)) == std::vector<std::size_t>{2, 0, 1});
  }
  {
    // levels has two filters: it comes before keys
    static constexpr sc::query q = sc::parse(
        "select count(*) from keys t, levels v, sales s where s.k = t.k and s.qty = v.q and "
        "region <> 'west' and q > 5 and tier < 6");
    const auto b = sc::detail::bind(q, from);
    CHECK(order_of(sc::detail::join_scan<q>(*b, from)) == std::vector<std::size_t>{2, 1, 0});
  }
  {
    // keys is linked only through levels: levels comes first although it has no filter
    static constexpr sc::query q = sc::parse(
        "select count(*) from keys t, levels v, sales s where s.qty = v.q and v.tier = t.qty and "
        "region <> 'west'");
    const auto b = sc::detail::bind(q, from);
    CHECK(order_of(sc::detail::join_scan<q>(*b, from)) == std::vector<std::size_t>{2, 1, 0});
  }
}

TEST_CASE("sql: a join's columns are found in the table that has them, or named") {
  loom::sql_database db;
  db.add("sales", sales).add("keys", keys);
  CHECK_THROWS_WITH_AS(loom::sql<"select count(*) from sales, keys where k = k">(db),
                       "loom::sql: column k is in several tables of FROM; name its table (t.k)",
                       rel::column_error);
  CHECK_THROWS_WITH_AS(
      loom::sql<"select count(*) from sales, keys where sales.k = keys.k and nothing = 1">(db),
      "loom::sql: no table in FROM has a column nothing", rel::column_error);
  // `sales.k = sales.qty` reads one table: a filter, not a join key. With both columns named,
  // the parser rejects the query at keys in FROM; without, the join finds out at run time.
  const auto unjoined =
      loom::sql_compiler::parse("select count(*) from sales, keys where sales.k = sales.qty");
  CHECK(unjoined.error == loom::sql_compiler::error_code::table_not_joined);
  CHECK(unjoined.error_offset == 28);
  CHECK_THROWS_WITH_AS(
      loom::sql<"select count(*) from sales, keys where sales.k = price">(db),
      "loom::sql: no WHERE term `a.x = b.y` joins table keys to the others (cross products are "
      "not supported)",
      rel::column_error);
  // string join keys must share one dictionary (rel::share_dictionary)
  CHECK_THROWS_AS(loom::sql<"select count(*) from sales, keys where sales.city = keys.region">(db),
                  rel::column_error);
}
