// A query checked against a schema while it compiles (sql/schema.hpp): the schema's text and its
// errors, the query's unknown tables and columns, ambiguous columns and mismatched types (each
// at its offset in the query), loom::sql<Text, Schema> equal to the unchecked query, and the
// run-time check that the tables hold the schema's columns with its types.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <string_view>

namespace {
namespace rel = loom::relational;
namespace sc = loom::sql_compiler;
using rel::column_type;

constexpr loom::fixed_string shop_schema = R"(
  -- two tables, CREATE TABLE optional, types' sizes ignored
  CREATE TABLE orders(o_id INT, o_customer INTEGER, o_day DATE, o_total DECIMAL(15,2));
  items(i_order BIGINT, i_price NUMERIC, i_tag VARCHAR(10), i_note TEXT))";
constexpr sc::schema shop = sc::parse_schema(shop_schema.view());

static_assert(shop.ok());
static_assert(shop.table_count == 2 && shop.column_count == 8);
static_assert(shop.find_table("ORDERS") == 0 && shop.find_table("items") == 1);
static_assert(shop.find_table("lineitem") == -1);
static_assert(shop.columns[shop.find_column(0, "o_day")].kind == sc::column_kind::date);
static_assert(shop.columns[shop.find_column(0, "o_total")].kind == sc::column_kind::decimal);
static_assert(shop.columns[shop.find_column(1, "i_tag")].kind == sc::column_kind::text);
static_assert(shop.find_column(1, "o_id") == -1);

// The schema's own errors, at their offsets.
constexpr sc::schema_error_code schema_error(std::string_view text, int offset) {
  const sc::schema s = sc::parse_schema(text);
  return s.error_offset == offset ? s.error : sc::schema_error_code::none;
}
static_assert(schema_error("t(a INT, b BLOB)", 11) == sc::schema_error_code::unknown_column_type);
static_assert(schema_error("t a INT)", 2) == sc::schema_error_code::expected_opening_parenthesis);
static_assert(schema_error("t(a INT b INT)", 8) ==
              sc::schema_error_code::expected_comma_or_closing_parenthesis);
static_assert(schema_error("t(a INT, a DATE)", 9) == sc::schema_error_code::duplicate_column);
static_assert(schema_error("t(a INT) t(b INT)", 9) == sc::schema_error_code::duplicate_table);
static_assert(schema_error("t(, a INT)", 2) == sc::schema_error_code::expected_column_name);
static_assert(sc::parse_schema("").ok() && sc::parse_schema("").table_count == 0);

// DECIMAL(p,s) and NUMERIC(p,s) carry their scale (exact, a fixed column); bare DECIMAL, DOUBLE,
// REAL and FLOAT are doubles (scale -1); a bad precision or scale is an error at the '('.
static_assert(shop.columns[shop.find_column(0, "o_total")].scale == 2);
static_assert(shop.columns[shop.find_column(1, "i_price")].scale == -1);  // bare NUMERIC
constexpr int scale_of(std::string_view type) {
  const sc::schema s = sc::parse_schema(type);
  return s.ok() ? s.columns[0].scale : -100;
}
static_assert(scale_of("t(a DECIMAL(15, 2))") == 2 && scale_of("t(a numeric(18,18))") == 18);
static_assert(scale_of("t(a DECIMAL(9))") == 0 && scale_of("t(a DECIMAL)") == -1);
static_assert(scale_of("t(a DOUBLE)") == -1 && scale_of("t(a REAL)") == -1);
static_assert(scale_of("t(a FLOAT(24))") == -1 && scale_of("t(a INT)") == -1);
static_assert(schema_error("t(a DECIMAL(19,2))", 11) ==
              sc::schema_error_code::bad_decimal_precision);
static_assert(schema_error("t(a DECIMAL(5,6))", 11) ==
              sc::schema_error_code::bad_decimal_precision);
static_assert(schema_error("t(a NUMERIC(0))", 11) == sc::schema_error_code::bad_decimal_precision);
static_assert(schema_error("t(a DECIMAL(x,2))", 11) ==
              sc::schema_error_code::bad_decimal_precision);
static_assert(schema_error("t(a DECIMAL(15,2)", 17) ==
              sc::schema_error_code::expected_comma_or_closing_parenthesis);

// A query's check: the first error and its offset in the query text.
struct found {
  sc::schema_error_code error;
  int offset;
};
constexpr found check(std::string_view query) {
  const sc::query q = sc::parse(query);
  if (!q.ok()) return {sc::schema_error_code::none, -1};
  const sc::schema_check c = sc::check_against(q, shop);
  return {c.error, c.error_offset};
}
constexpr bool fits(std::string_view query) {
  const found f = check(query);
  return f.offset == 0 && f.error == sc::schema_error_code::none;
}
constexpr bool fails(std::string_view query, sc::schema_error_code e, std::string_view at) {
  const found f = check(query);
  return f.error == e && query.substr(static_cast<std::size_t>(f.offset), at.size()) == at;
}
using sc::schema_error_code;

static_assert(
    fits("SELECT o_id, SUM(i_price) AS s FROM orders, items WHERE o_id = i_order "
         "AND o_day < DATE '1995-01-01' AND i_tag LIKE 'a%' GROUP BY o_id"));
static_assert(
    fits("SELECT COUNT(*) FROM orders o WHERE o.o_total BETWEEN 1 AND 2.5 AND "
         "EXTRACT(YEAR FROM o_day) IN (1994, 1995)"));
static_assert(
    fits("SELECT MAX(o_day), MIN(i_tag), AVG(i_price * (1 - i_price)) FROM orders, "
         "items WHERE o_id = i_order AND i_note <> 'x'"));
static_assert(fits("SELECT SUM(CASE WHEN i_tag = 'PROMO' THEN i_price ELSE 0 END) FROM items"));

static_assert(fails("SELECT COUNT(*) FROM orders, lineitem WHERE o_id = l_orderkey",
                    schema_error_code::unknown_table, "lineitem"));
static_assert(fails("SELECT o_idd FROM orders", schema_error_code::unknown_column, "o_idd"));
static_assert(fails("SELECT o.i_price FROM orders o, items WHERE o.o_id = items.i_order",
                    schema_error_code::unknown_column, "o.i_price"));
static_assert(
    fails("SELECT a.o_id FROM orders a, orders b WHERE a.o_id = b.o_customer AND "
          "o_total > 3",
          schema_error_code::ambiguous_column, "o_total"));
static_assert(fails("SELECT COUNT(*) FROM items WHERE i_price = 'cheap'",
                    schema_error_code::type_mismatch, "'cheap'"));
static_assert(fails("SELECT COUNT(*) FROM orders WHERE o_day > 1995",
                    schema_error_code::type_mismatch, "1995"));
static_assert(fails("SELECT SUM(o_day) FROM orders", schema_error_code::type_mismatch, "SUM"));
static_assert(fails("SELECT COUNT(*) FROM orders WHERE o_id LIKE '1%'",
                    schema_error_code::type_mismatch, "LIKE"));
static_assert(fails("SELECT i_tag * 2 FROM items", schema_error_code::type_mismatch, "* 2"));
static_assert(fails("SELECT EXTRACT(YEAR FROM o_total) FROM orders",
                    schema_error_code::type_mismatch, "EXTRACT"));
static_assert(fails("SELECT COUNT(*) FROM orders WHERE o_day IN (DATE '1995-01-01', 3)",
                    schema_error_code::type_mismatch, "3)"));

rel::table orders_table() {
  return rel::read_csv_text(
      "o_id,o_customer,o_day,o_total\n1,7,1994-03-01,10.5\n2,8,1995-06-30,20\n3,7,1996-01-02,4."
      "25\n",
      "orders",
      {{"o_id", column_type::int64},
       {"o_customer", column_type::int64},
       {"o_day", column_type::date},
       {"o_total", column_type::fixed, 2}});  // DECIMAL(15,2) in shop_schema: exact, scale 2
}
rel::table items_table(column_type tag_type = column_type::string) {
  return rel::read_csv_text(
      tag_type == column_type::string
          ? "i_order,i_price,i_tag,i_note\n1,2.5,a,x\n1,3,b,y\n2,7,a,z\n3,1,c,x\n"
          : "i_order,i_price,i_tag,i_note\n1,2.5,1,x\n1,3,2,y\n2,7,1,z\n3,1,3,x\n",
      "items",
      {{"i_order", column_type::int64},
       {"i_price", column_type::decimal},
       {"i_tag", tag_type},
       {"i_note", column_type::string}});
}
}  // namespace

TEST_CASE("a query checked against its schema gives the unchecked query's result") {
  const rel::table orders = orders_table(), items = items_table();
  loom::sql_database db;
  db.add("orders", orders).add("items", items);
  constexpr loom::fixed_string text =
      "SELECT o_customer, SUM(i_price) AS spent, COUNT(*) AS n FROM orders, items "
      "WHERE o_id = i_order AND i_tag <> 'c' GROUP BY o_customer ORDER BY o_customer";
  const rel::table checked = loom::sql<text, shop_schema>(db);
  const rel::table unchecked = loom::sql<text>(db);
  REQUIRE(checked.rows() == 2);
  REQUIRE(unchecked.rows() == 2);
  for (std::size_t r = 0; r < 2; ++r) {
    CHECK(checked.ints("o_customer")[r] == unchecked.ints("o_customer")[r]);
    CHECK(checked.reals("spent")[r] == unchecked.reals("spent")[r]);
    CHECK(checked.ints("n")[r] == unchecked.ints("n")[r]);
  }
  CHECK(checked.ints("o_customer")[0] == 7);
  CHECK(checked.reals("spent")[0] == 5.5);  // order 1's a and b; order 3's c is filtered
  CHECK(checked.reals("spent")[1] == 7);
}

TEST_CASE("the tables must hold the schema's columns with its types") {
  const rel::table orders = orders_table();
  const rel::table items = items_table(column_type::int64);  // i_tag as numbers
  const rel::table bare = rel::read_csv_text("o_id\n1\n", "orders", {{"o_id", column_type::int64}});
  loom::sql_database db;
  db.add("orders", orders).add("items", items);
  CHECK_THROWS_WITH_AS(
      (loom::sql<"SELECT COUNT(*) FROM items WHERE i_tag = 'a'", shop_schema>(db)),
      "loom::sql: column i_tag of table items holds int64 values; the query's schema declares "
      "string",
      rel::column_error);
  // DECIMAL(15,2) is a fixed decimal of scale 2: a double column, or another scale, is refused
  rel::table double_total("orders");
  double_total.add(rel::column("o_id", std::vector<std::int64_t>{1}))
      .add(rel::column("o_customer", std::vector<std::int64_t>{7}))
      .add(rel::column("o_day", std::vector<std::int64_t>{0}, column_type::date))
      .add(rel::column("o_total", std::vector<double>{1.5}));
  loom::sql_database doubles;
  doubles.add("orders", double_total);
  CHECK_THROWS_WITH_AS((loom::sql<"SELECT COUNT(*) FROM orders", shop_schema>(doubles)),
                       "loom::sql: column o_total of table orders holds decimal values; the "
                       "query's schema declares DECIMAL(p,2), exact (fixed, scale 2)",
                       rel::column_error);
  // a table the query does not name is not checked
  CHECK((loom::sql<"SELECT COUNT(*) AS n FROM orders", shop_schema>(db)).ints("n")[0] == 3);
  loom::sql_database partial;
  partial.add("orders", bare);
  CHECK_THROWS_WITH_AS((loom::sql<"SELECT COUNT(*) FROM orders", shop_schema>(partial)),
                       "loom::sql: table orders has no column o_customer, which the query's "
                       "schema declares",
                       rel::column_error);
}

TEST_CASE("sql_csv_columns reads a table's CSV with the schema's types") {
  const std::vector<rel::column_spec> columns = loom::sql_csv_columns<shop_schema>("ORDERS");
  REQUIRE(columns.size() == 4);
  CHECK(columns[0].name == "o_id");
  CHECK(columns[0].type == column_type::int64);
  CHECK(columns[2].type == column_type::date);
  CHECK(columns[3].type == column_type::fixed);
  CHECK(columns[3].scale == 2);
  const std::vector<rel::column_spec> items = loom::sql_csv_columns<shop_schema>("items");
  REQUIRE(items.size() == 4);
  CHECK(items[1].type == column_type::decimal);  // bare NUMERIC: a double
  CHECK(items[2].type == column_type::string);
  const rel::table orders = rel::read_csv_text(
      "o_id,o_customer,o_day,o_total\n1,7,1995-03-15,12.30\n2,8,1996-01-02,-0.05\n", "orders",
      loom::sql_csv_columns<shop_schema>("orders"));
  CHECK(orders["o_total"].type() == column_type::fixed);
  CHECK(orders.ints("o_total")[0] == 1230);
  CHECK(orders.ints("o_total")[1] == -5);
  loom::sql_database db;
  db.add("orders", orders);
  // the table fits its schema: the checked query runs
  CHECK((loom::sql<"SELECT SUM(o_total) AS t FROM orders", shop_schema>(db)).ints("t")[0] == 1225);
  CHECK_THROWS_WITH_AS((void)loom::sql_csv_columns<shop_schema>("lineitem"),
                       "loom::sql_csv_columns: the schema has no table lineitem (tables: orders, "
                       "items)",
                       rel::column_error);
}
