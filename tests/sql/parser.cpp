// The SQL parser (sql/parser.hpp): the trees it builds, checked in constant expressions and at
// run time (the same constexpr code), and the position and reason of every kind of rejection.
// SPDX-License-Identifier: BSL-1.0
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace {
namespace sc = loom::sql_compiler;
using sc::error_code;
using sc::node_kind;

constexpr sc::query q1 = sc::parse(R"(
  select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
         avg(l_discount) as avg_disc, count(*) as count_order
  from lineitem
  where l_shipdate <= date '1998-12-01' - interval '90' day (3)
  group by l_returnflag, l_linestatus
  order by l_returnflag, l_linestatus;)");

// The tree is a constant: its shape can be checked by static_assert.
static_assert(q1.ok());
static_assert(q1.select_count == 6 && q1.table_count == 1 && q1.group_count == 2);
static_assert(q1.aggregate_count == 4);
static_assert(q1.nodes[q1.aggregates[3]].kind == node_kind::count_star);
static_assert(q1.select[2].name == "sum_qty" && q1.select[0].name == "l_returnflag");
static_assert(q1.nodes[q1.where].kind == node_kind::le);
// DATE '1998-12-01' - INTERVAL '90' DAY is folded into one date: 1998-09-02
static_assert(q1.nodes[q1.nodes[q1.where].b].kind == node_kind::date);
static_assert(q1.nodes[q1.nodes[q1.where].b].number == loom::relational::date("1998-09-02"));
static_assert(q1.order_count == 2 && q1.order_by[1].output == 1 && !q1.order_by[0].descending);
// grouped columns in the select list read their GROUP BY key
static_assert(q1.nodes[q1.select[1].expr].slot == 1);

// Arithmetic of number literals is folded exactly, as DECIMAL literals are: TPC-H Q6's bounds
// are 0.05 and 0.07, not the doubles 0.049999999999999996 and 0.06999999999999999.
constexpr sc::query q6_bounds = sc::parse(
    "SELECT COUNT(*) FROM t WHERE d BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND q < 1.5 * 2 - 4");
static_assert(q6_bounds.ok());
constexpr const sc::node& q6_between = q6_bounds.nodes[q6_bounds.nodes[q6_bounds.where].a];
static_assert(q6_between.kind == node_kind::between);
static_assert(q6_bounds.nodes[q6_between.b].kind == node_kind::number &&
              q6_bounds.nodes[q6_between.b].number == 0.05);
static_assert(q6_bounds.nodes[q6_between.c].number == 0.07);
static_assert(q6_bounds.nodes[q6_bounds.nodes[q6_bounds.nodes[q6_bounds.where].b].b].number == -1);
// an 18-digit literal aligned to another's exponent would overflow an int64: the sum is left
// to run time (a constant expression rejects the overflow, so this fails to compile if it
// happens)
constexpr sc::query big_sum =
    sc::parse("SELECT a FROM t WHERE 948246224219080112 + 777777.777777 > 0");
static_assert(big_sum.ok());
static_assert(big_sum.nodes[big_sum.nodes[big_sum.where].a].kind == node_kind::add);
// a column is never folded
static_assert(
    sc::parse("SELECT a + 1 FROM t").nodes[sc::parse("SELECT a + 1 FROM t").select[0].expr].kind ==
    node_kind::add);

// An OR whose every branch has terms of one qualified table implies their OR for that table, a
// term of WHERE of its own (TPC-H Q7's nations): n1 gets FRANCE OR GERMANY, n2 likewise; the OR
// itself stays. t's terms are not in every branch: nothing is implied for t.
constexpr sc::query q7_nations = sc::parse(
    "SELECT COUNT(*) FROM nation n1, nation n2, t WHERE n1.k = t.a AND n2.k = t.b AND "
    "((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY' AND t.c > 1) OR "
    "(n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE'))");
static_assert(q7_nations.ok());
constexpr int where_terms(const sc::query& q, int id) {
  return q.nodes[id].kind == node_kind::logical_and
             ? where_terms(q, q.nodes[id].a) + where_terms(q, q.nodes[id].b)
             : 1;
}
static_assert(where_terms(q7_nations, q7_nations.where) == 5);  // 2 joins, the OR, 2 implied
constexpr const sc::node& implied_n2 = q7_nations.nodes[q7_nations.nodes[q7_nations.where].b];
static_assert(implied_n2.kind == node_kind::logical_or);
static_assert(q7_nations.nodes[q7_nations.nodes[implied_n2.a].a].qualifier == "n2" &&
              q7_nations.nodes[q7_nations.nodes[implied_n2.b].a].qualifier == "n2");

// A term common to every branch of an OR is factored out of it, so that an equality of
// columns joins (TPC-H Q19): WHERE becomes p.k = l.k AND l.q < 5 AND (p.b = 'a' OR p.b = 'c').
constexpr sc::query factored = sc::parse(
    "select sum(l.x) from l, p where (p.k = l.k and p.b = 'a' and l.q < 5) "
    "or (l.q < 5 and p.k = l.k and p.b = 'c')");
constexpr auto factored_terms = sc::detail::conjuncts_of(factored);
static_assert(factored.ok() && factored_terms.count == 3);
static_assert(sc::detail::is_column_equality(factored, factored_terms.ids[0]));
static_assert(factored.nodes[factored_terms.ids[1]].kind == node_kind::lt);
static_assert(factored.nodes[factored_terms.ids[2]].kind == node_kind::logical_or);
// A branch that is only common terms makes the OR true: what is left is the common term (an
// equality is the same term written the other way round).
constexpr sc::query absorbed = sc::parse("select a from t where a = b or (b = a and c > 1)");
static_assert(absorbed.ok() && absorbed.nodes[absorbed.where].kind == node_kind::eq);

// A derived table is inlined: its tables are the query's, its WHERE is ANDed with the outer
// one, and the outer query's columns y and v are its expressions (y a GROUP BY key).
constexpr sc::query derived = sc::parse(
    "select y, sum(v) as total from (select extract(year from d) as y, p * q as v from t "
    "where q > 1) as s where v > 10 group by y order by y desc");
static_assert(derived.ok() && derived.table_count == 1 && derived.tables[0].name == "t");
static_assert(derived.nodes[derived.select[0].expr].kind == node_kind::extract);
static_assert(derived.nodes[derived.select[0].expr].slot == 0);
static_assert(derived.select[0].name == "y" && derived.select[1].name == "total");
static_assert(derived.nodes[derived.nodes[derived.aggregates[0]].a].kind == node_kind::multiply);
static_assert(derived.nodes[derived.where].kind == node_kind::logical_and);
static_assert(derived.order_by[0].output == 0 && derived.order_by[0].descending);

// Joins: a cycle of equalities is accepted (its closing equality keys the last hash join); a
// table with no equality is rejected only when every equality names its tables, since an
// unqualified column's table is known at run time.
static_assert(
    sc::parse("select count(*) from a, b, c where a.x = b.x and b.y = c.y and c.z = a.z").ok());
static_assert(sc::parse("select count(*) from a, b, c where a.x = b.x and y = z").ok());

struct rejection {
  std::string_view text;
  error_code error;
  int column;  // 1-based, on the text's only line
};

// One text per reason (where a short one exists), with the column the reason points at.
constexpr rejection rejections[] = {
    {"selec a from t", error_code::expected_select, 1},
    {"select a b c from t", error_code::expected_from, 12},
    {"select a, from t", error_code::expected_expression, 11},
    {"select a from t where a", error_code::expected_condition, 23},
    {"select a = 1 from t", error_code::expected_value_not_condition, 10},
    {"select (a + 1 from t", error_code::expected_closing_parenthesis, 15},
    {"select a from t where a in 1", error_code::expected_opening_parenthesis, 28},
    {"select a from 1", error_code::expected_table_name, 15},
    {"select a as from t", error_code::expected_alias, 13},
    {"select t. from t", error_code::expected_column_after_dot, 11},
    {"select a from t order a", error_code::expected_by, 23},
    {"select case when a > 1 1 end from t", error_code::expected_then, 24},
    {"select case a end from t", error_code::expected_when, 13},
    {"select case when a > 1 then 1 else 2 from t", error_code::expected_end, 38},
    {"select a from t where a between 1 or 2", error_code::expected_and_of_between, 35},
    {"select a from t where a like b", error_code::expected_string_pattern_after_like, 30},
    {"select a from t where a < date 1", error_code::expected_date_string, 32},
    {"select a from t where a < date '1995-02-29'", error_code::invalid_date, 32},
    {"select a from t where a < date '1995-01-01' + interval 3 day",
     error_code::expected_interval_string, 56},
    {"select a from t where a < date '1995-01-01' + interval '3' week",
     error_code::expected_interval_unit, 60},
    {"select a from t where a < b + interval '3' day", error_code::interval_needs_date_literal, 31},
    {"select count() from t", error_code::expected_star_or_expression_in_count, 14},
    {"select a from t limit x", error_code::expected_limit_count, 23},
    {"select a from t limit 2.5", error_code::expected_limit_count, 23},
    {"select a from t where a > 1 1", error_code::expected_end_of_query, 29},
    {"select case when a > 1 then 1 end from t", error_code::case_without_else_outside_aggregate,
     8},
    {"select sum(max(a)) from t", error_code::aggregate_inside_aggregate, 12},
    {"select a from t where sum(a) > 1", error_code::aggregate_in_where, 23},
    {"select a from t group by sum(a)", error_code::aggregate_in_group_by, 26},
    {"select a, sum(b) from t", error_code::column_not_in_group_by, 8},
    {"select a, b, sum(c) from t group by a", error_code::column_not_in_group_by, 11},
    {"select a from t group by a having b > 1", error_code::column_not_in_group_by, 35},
    {"select a from t group by a having sum(b)", error_code::expected_condition, 35},
    {"select a from t group by a having sum(max(b)) > 1", error_code::aggregate_inside_aggregate,
     39},
    {"select x.a from t", error_code::unknown_table_alias, 8},
    {"select a, b as a from t", error_code::duplicate_output_name, 11},
    {"select a from t order by b", error_code::order_by_not_in_select_list, 26},
    {"select a from t order by 2", error_code::order_by_position_out_of_range, 26},
    {"select 'x' from t", error_code::string_outside_comparison, 8},
    {"select a from t where 'x' = a + 1", error_code::string_needs_column, 23},
    {"select a from t where a in ('x', 1)", error_code::string_needs_column, 34},
    {"select a from t group by a + 1", error_code::group_by_takes_columns, 28},
    {"select a # b from t", error_code::unexpected_character, 10},
    {"select a from t where b = 'abc", error_code::unterminated_string, 27},
    {"select a from t /* no end", error_code::unterminated_comment, 17},
    {"select 1.5e from t", error_code::malformed_number, 8},
    {"select 12abc from t", error_code::malformed_number, 8},
    {"select ((((((((((((((((((((((((((a)))))))))))))))))))))))))) from t",
     error_code::nesting_too_deep, 32},
    {"select a from t1, t2, t3, t4, t5, t6, t7, t8, t9", error_code::too_many_tables, 47},
    // no chain of equalities links t3 (then t1) to the others
    {"select a from t1, t2, t3 where t1.k = t2.k", error_code::table_not_joined, 23},
    {"select a from t1, t2, t3 where t2.k = t3.k and t3.x = 1", error_code::table_not_joined, 15},
    {"select a from t1 a, t2 b, t3 c where a.k = b.k and c.x = c.y", error_code::table_not_joined,
     27},
    // joins: inner ones only, each with its ON (a CROSS JOIN has none)
    {"select a from t join u where t.k = u.k", error_code::expected_on, 24},
    {"select a from t join u on t.k = u.k join v", error_code::expected_on, 43},
    {"select a from t left join u on t.k = u.k", error_code::join_kind_not_supported, 17},
    {"select a from t x left outer join u on x.k = u.k", error_code::join_kind_not_supported, 19},
    {"select a from t natural join u", error_code::join_kind_not_supported, 17},
    {"select a from t join u on t.k", error_code::expected_condition, 27},
    {"select a from t join u on sum(t.k) = u.k", error_code::aggregate_in_where, 27},
    {"select a from t join u on t.k = u.k join v on t.x = t.y", error_code::table_not_joined, 42},
    {"select a from (select b as a from t) x join u on x.a = u.k",
     error_code::derived_table_not_alone, 40},
    {"select extract(week from d) from t", error_code::expected_extract_field, 16},
    {"select extract(year d) from t", error_code::expected_from, 21},
    // derived tables: inlined, so without aggregates, alone in FROM, read by their columns
    {"select a from (select sum(b) as a from t) x", error_code::aggregate_in_derived_table, 23},
    {"select a from (select b as a from t) x, u", error_code::derived_table_not_alone, 39},
    {"select c from (select b as a from t) x", error_code::column_not_in_derived_table, 8},
    {"select y.a from (select b as a from t) x", error_code::unknown_table_alias, 8},
    {"select a from (select b as a, c as a from t) x", error_code::duplicate_output_name, 31},
    {"select a from (select b + 1 as a from t) x where a = 'v'", error_code::string_needs_column,
     54},
    {"select e, count(*) from (select extract(year from d) as e from t) x",
     error_code::column_not_in_group_by, 8},
    {"select a from (select b as a from t", error_code::expected_closing_parenthesis, 36},
};

constexpr bool rejected_as_listed() {
  for (const rejection& r : rejections) {
    const sc::query q = sc::parse(r.text);
    if (q.error != r.error || sc::position_of(r.text, q.error_offset).column != r.column)
      return false;
  }
  return true;
}
static_assert(rejected_as_listed());  // the constant evaluator agrees with the run-time checks

}  // namespace

TEST_CASE("sql parser: every rejection names its reason and column (at run time too)") {
  for (const rejection& r : rejections) {
    CAPTURE(r.text);
    const sc::query q = sc::parse(r.text);
    CHECK_FALSE(q.ok());
    CHECK(q.error == r.error);
    CHECK(sc::position_of(r.text, q.error_offset).column == r.column);
    CHECK(q.node_count == 0);  // a rejected text leaves no half-built tree
  }
}

TEST_CASE("sql parser: parse_or_throw's message shows the line, the column and a caret") {
  const std::string_view text = "select sum(l_quantity)\nfrom lineitem\nwhere l_discount >";
  try {
    (void)sc::parse_or_throw(text);
    FAIL("no error");
  } catch (const loom::parse_error& e) {
    CHECK(std::string(e.what()) ==
          "loom::sql: line 3, column 19: expected an expression\n"
          "  where l_discount >\n"
          "                    ^");
  }
  CHECK(sc::parse_or_throw("select 1 from t").ok());
}

TEST_CASE("sql parser: keywords in any case, comments, quotes, qualifiers and aliases") {
  const sc::query q = sc::parse(
      "SeLeCt T.a AS x, b y, -2.5e1 * (b) z -- a comment\n"
      "FROM tab T /* block */ WHERE a <> 'it''s' AND NOT b != 3 OR a NOT LIKE 'x_%' "
      "ORDER BY 3 DESC, y ASC LIMIT 10;");
  REQUIRE(q.ok());
  CHECK(q.select[0].name == "x");
  CHECK(q.nodes[q.select[0].expr].qualifier == "T");
  CHECK(q.select[1].name == "y");
  CHECK(q.select[2].name == "z");
  CHECK(q.nodes[q.nodes[q.select[2].expr].a].number == -25.0);  // -2.5e1 stays a literal
  CHECK(q.tables[0].name == "tab");
  CHECK(q.tables[0].alias == "T");
  CHECK(q.limit == 10);
  CHECK(q.order_by[0].output == 2);
  CHECK(q.order_by[0].descending);
  CHECK(q.order_by[1].output == 1);
  const sc::node& where = q.nodes[q.where];
  CHECK(where.kind == node_kind::logical_or);  // AND binds tighter than OR
  CHECK(q.nodes[where.a].kind == node_kind::logical_and);
  CHECK(q.nodes[where.b].kind == node_kind::logical_not);
  CHECK(q.nodes[q.nodes[where.b].a].kind == node_kind::like);
  CHECK(q.nodes[q.nodes[q.nodes[where.a].a].b].text == "it''s");  // '' stays doubled here
}

TEST_CASE("sql parser: JOIN ... ON conditions are ANDed before WHERE; LEFT may name a table") {
  const sc::query q = sc::parse(
      "select a from t inner join u on t.k = u.k join v w on w.j = u.j and w.x > 1 "
      "where t.y < 2");
  REQUIRE(q.ok());
  REQUIRE(q.table_count == 3);
  CHECK(q.tables[1].name == "u");
  CHECK(q.tables[1].alias.empty());
  CHECK(q.tables[2].name == "v");
  CHECK(q.tables[2].alias == "w");
  const sc::node& where = q.nodes[q.where];
  CHECK(where.kind == node_kind::logical_and);
  CHECK(q.nodes[where.b].kind == node_kind::lt);  // WHERE's own term comes last
  // words that only start a join kind stay names elsewhere: a table named left, an alias right
  const sc::query named = sc::parse("select a from left right, u where right.k = u.k");
  REQUIRE(named.ok());
  CHECK(named.tables[0].name == "left");
  CHECK(named.tables[0].alias == "right");
}

TEST_CASE("sql parser: arithmetic precedence, BETWEEN, IN lists, CASE chains, COUNT DISTINCT") {
  const sc::query q = sc::parse(
      "select sum(case when a in (1, 2, 3) then b * 2 when a between 4 and 5 then 1 end), "
      "count(distinct c), min(a - b / 2) from t");
  REQUIRE(q.ok());
  CHECK(q.aggregate_count == 3);
  const sc::node& outer = q.nodes[q.nodes[q.aggregates[0]].a];
  CHECK(outer.kind == node_kind::case_when);
  CHECK(q.nodes[outer.c].kind == node_kind::case_when);  // the second WHEN nests in the ELSE
  CHECK(q.nodes[outer.c].c == -1);                       // no ELSE: allowed in an aggregate
  const sc::node& in = q.nodes[outer.a];
  CHECK(in.kind == node_kind::in_list);
  int items = 0;
  for (int k = in.b; k >= 0; k = q.nodes[k].next) ++items;
  CHECK(items == 3);
  CHECK(q.nodes[q.aggregates[1]].kind == node_kind::count_distinct);
  const sc::node& minus = q.nodes[q.nodes[q.aggregates[2]].a];
  CHECK(minus.kind == node_kind::subtract);
  CHECK(q.nodes[minus.b].kind == node_kind::divide);
  CHECK(q.select[2].name == "min(a - b / 2)");  // an unnamed result column: its text
}

TEST_CASE("sql parser: DATE literals with DAY, MONTH and YEAR intervals") {
  namespace rel = loom::relational;
  auto day_of = [](std::string_view text) {
    const sc::query q = sc::parse(text);
    REQUIRE(q.ok());
    return static_cast<std::int64_t>(q.nodes[q.nodes[q.where].b].number);
  };
  CHECK(day_of("select a from t where d < date '1994-01-01' + interval '1' year") ==
        rel::date("1995-01-01"));
  CHECK(day_of("select a from t where d < date '1994-01-31' + interval '1' month") ==
        rel::date("1994-02-28"));  // clamped to the month's last day
  CHECK(day_of("select a from t where d < date '1996-03-31' - interval '1' month") ==
        rel::date("1996-02-29"));
  CHECK(day_of("select a from t where d < date '1994-03-01' - interval '14' month") ==
        rel::date("1993-01-01"));
  CHECK(day_of("select a from t where d < date '1998-12-01' - interval '90' day") ==
        rel::date("1998-09-02"));
  CHECK(day_of("select a from t where d < date '1998-12-01' + interval '-1' day + interval '2' "
               "day") == rel::date("1998-12-02"));
}

TEST_CASE("sql parser: decimal literals are read as the nearest double") {
  const sc::query q = sc::parse("select 0.06, 0.01, 123456.789, 1e-3, .5, 7 from t");
  REQUIRE(q.ok());
  CHECK(q.nodes[q.select[0].expr].number == 0.06);
  CHECK(q.nodes[q.select[1].expr].number == 0.01);
  CHECK(q.nodes[q.select[2].expr].number == 123456.789);
  CHECK(q.nodes[q.select[3].expr].number == 1e-3);
  CHECK(q.nodes[q.select[4].expr].number == 0.5);
  CHECK(q.nodes[q.select[5].expr].integer);
  CHECK_FALSE(q.nodes[q.select[4].expr].integer);
}

TEST_CASE("sql parser: capacities are errors, not overflows") {
  std::string many = "select a from t where a in (0";
  for (int k = 1; k < 400; ++k) many += ", " + std::to_string(k);
  many += ")";
  CHECK(sc::parse(many).error == error_code::too_many_nodes);
  std::string items = "select a0";
  for (int k = 1; k <= sc::max_select_items; ++k) items += ", a" + std::to_string(k);
  CHECK(sc::parse(items + " from t").error == error_code::too_many_select_items);
  std::string nots = "select a from t where ";
  for (int k = 0; k < 100; ++k) nots += "not ";
  CHECK(sc::parse(nots + "a = 1").error == error_code::nesting_too_deep);
}

TEST_CASE("sql parser: HAVING reads group keys and its own aggregates") {
  const sc::query q =
      sc::parse("select k, sum(x) as s from t group by k having count(*) > 2 and k <> 3");
  REQUIRE(q.ok());
  CHECK(q.aggregate_count == 2);  // SUM of the select list, COUNT of HAVING
  CHECK(q.nodes[q.aggregates[1]].kind == node_kind::count_star);
  const sc::node& having = q.nodes[q.having];
  CHECK(having.kind == node_kind::logical_and);
  CHECK(q.nodes[q.nodes[having.b].a].slot == 0);  // k: the first GROUP BY key
}
