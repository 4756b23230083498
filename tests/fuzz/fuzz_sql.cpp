// libFuzzer target of the SQL parser (loom::sql_compiler::parse), the constexpr code that
// loom::sql runs at compile time, here run on any bytes at run time.
// SPDX-License-Identifier: BSL-1.0
//
// Build and run it with clang (tests/fuzz/CMakeLists.txt, docs/testing.md "Fuzzing"):
//   ./fuzz_sql -max_total_time=120 -max_len=4096 -dict=tests/fuzz/sql.dict
//           corpus/ tests/fuzz/corpus/sql
// The bytes are the query text. A rejected text must carry a reason and an offset inside the
// text, leave no nodes, and make parse_or_throw throw a parse_error that starts with
// `loom::sql: line L, column C:` for that offset. An accepted tree must be one the executor's
// templates can expand: every child index before its parent (so the expansion ends), every
// string_view inside the text, conditions where conditions are read and values elsewhere,
// aggregates in their slots, GROUP BY keys that are values, ORDER BY keys naming result
// columns. Parsing twice must give the same answer. The same bytes are also read as a schema
// text (parse_schema), and an accepted query is checked against a fixed schema and against
// its own text's schema, each rejection inside the text. Any failed check aborts. Without
// LOOM_FUZZ_LIBFUZZER, a doctest of tests.fuzz replays tests/fuzz/corpus/sql.
#include <loom/core/error.hpp>
#include <loom/sql/ast.hpp>
#include <loom/sql/parser.hpp>
#include <loom/sql/schema.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"

namespace {

namespace sc = loom::sql_compiler;

void require(bool ok) {
  if (!ok) std::abort();
}

bool inside(std::string_view part, std::string_view text) {
  return part.empty() ||
         (part.data() >= text.data() && part.data() + part.size() <= text.data() + text.size());
}

bool child_ok(const sc::query& q, int parent, int child) {
  return child >= 0 && child < parent && child < q.node_count;
}

void check_rejected(std::string_view text, const sc::query& q) {
  require(q.error != sc::error_code::none);
  require(q.error_offset >= 0 && static_cast<std::size_t>(q.error_offset) <= text.size());
  require(q.node_count == 0 && q.select_count == 0);
  const sc::text_position p = sc::position_of(text, q.error_offset);
  const std::string head =
      "loom::sql: line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": ";
  try {
    (void)sc::parse_or_throw(text);
    std::abort();  // rejected once, accepted the second time
  } catch (const loom::parse_error& e) {
    require(std::string(e.what()).starts_with(head + std::string(sc::to_string(q.error))));
  }
}

void check_accepted(std::string_view text, const sc::query& q) {
  require(q.node_count > 0 && q.node_count <= sc::max_nodes);
  require(q.select_count > 0 && q.table_count > 0);
  for (int id = 0; id < q.node_count; ++id) {
    const sc::node& n = q.nodes[id];
    require(inside(n.text, text) && inside(n.qualifier, text));
    require(n.offset >= 0 && static_cast<std::size_t>(n.offset) < text.size());
    switch (n.kind) {
      case sc::node_kind::column:
        require(!n.text.empty());
        break;
      case sc::node_kind::number:
      case sc::node_kind::string:
      case sc::node_kind::date:
        break;
      case sc::node_kind::count_star:
        require(n.slot >= 0 && n.slot < q.aggregate_count && q.aggregates[n.slot] == id);
        break;
      case sc::node_kind::case_when:
        require(child_ok(q, id, n.a) && sc::is_condition(q.nodes[n.a].kind));
        require(child_ok(q, id, n.b) && !sc::is_condition(q.nodes[n.b].kind));
        require(n.c == -1 || (child_ok(q, id, n.c) && !sc::is_condition(q.nodes[n.c].kind)));
        break;
      case sc::node_kind::logical_and:
      case sc::node_kind::logical_or:
        require(child_ok(q, id, n.b) && sc::is_condition(q.nodes[n.b].kind));
        [[fallthrough]];
      case sc::node_kind::logical_not:
        require(child_ok(q, id, n.a) && sc::is_condition(q.nodes[n.a].kind));
        break;
      case sc::node_kind::like:
        require(child_ok(q, id, n.a) && q.nodes[n.a].kind == sc::node_kind::column);
        require(inside(n.text, text));
        break;
      case sc::node_kind::in_list:
        require(child_ok(q, id, n.a) && child_ok(q, id, n.b));
        for (int item = n.b; item >= 0; item = q.nodes[item].next)
          require(child_ok(q, id, item) && (q.nodes[item].next == -1 || q.nodes[item].next > item));
        break;
      case sc::node_kind::between:
        require(child_ok(q, id, n.c) && !sc::is_condition(q.nodes[n.c].kind));
        [[fallthrough]];
      default:  // arithmetic, comparisons, aggregates
        require(child_ok(q, id, n.a) && !sc::is_condition(q.nodes[n.a].kind));
        if (n.kind != sc::node_kind::negate && n.kind != sc::node_kind::extract &&
            !sc::is_aggregate(n.kind))
          require(child_ok(q, id, n.b) && !sc::is_condition(q.nodes[n.b].kind));
        if (sc::is_aggregate(n.kind))  // only SELECT and HAVING keep aggregates: all have slots
          require(n.slot >= 0 && n.slot < q.aggregate_count && q.aggregates[n.slot] == id);
        break;
    }
  }
  for (int s = 0; s < q.select_count; ++s) {
    const sc::select_item& item = q.select[s];
    require(item.expr >= 0 && item.expr < q.node_count);
    require(!sc::is_condition(q.nodes[item.expr].kind));
    require(!item.name.empty() && inside(item.name, text) && inside(item.source, text));
  }
  require(q.where == -1 || (q.where < q.node_count && sc::is_condition(q.nodes[q.where].kind)));
  require(q.having == -1 || (q.having < q.node_count && sc::is_condition(q.nodes[q.having].kind)));
  for (int k = 0; k < q.group_count; ++k)  // a column, or a derived table's expression
    require(q.group_by[k] >= 0 && q.group_by[k] < q.node_count &&
            !sc::is_condition(q.nodes[q.group_by[k]].kind) &&
            !sc::is_aggregate(q.nodes[q.group_by[k]].kind));
  for (int k = 0; k < q.order_count; ++k)
    require(q.order_by[k].output >= 0 && q.order_by[k].output < q.select_count);
  for (int a = 0; a < q.aggregate_count; ++a) require(q.nodes[q.aggregates[a]].slot == a);
  for (int t = 0; t < q.table_count; ++t)
    require(!q.tables[t].name.empty() && inside(q.tables[t].name, text));
  require(q.limit >= -1);
}

// The same bytes as a schema text (sql/schema.hpp): a rejection carries a reason and an offset
// inside the text; an accepted schema's names are inside the text and its counts in bounds.
sc::schema check_schema(std::string_view text) {
  const sc::schema s = sc::parse_schema(text);
  if (!s.ok()) {
    require(s.error_offset >= 0 && static_cast<std::size_t>(s.error_offset) <= text.size());
    return s;
  }
  require(s.table_count >= 0 && s.table_count <= sc::max_schema_tables);
  require(s.column_count >= 0 && s.column_count <= sc::max_schema_columns);
  int columns = 0;
  for (int t = 0; t < s.table_count; ++t) {
    require(!s.tables[t].name.empty() && inside(s.tables[t].name, text));
    require(s.tables[t].first_column == columns && s.tables[t].column_count > 0);
    columns += s.tables[t].column_count;
  }
  require(columns == s.column_count);
  for (int c = 0; c < s.column_count; ++c)
    require(!s.columns[c].name.empty() && inside(s.columns[c].name, text));
  return s;
}

// An accepted query checked against a schema: the first error, if any, is inside the text.
void check_against(std::string_view text, const sc::query& q, const sc::schema& s) {
  const sc::schema_check c = sc::check_against(q, s);
  if (!c.ok())
    require(c.error_offset >= 0 && static_cast<std::size_t>(c.error_offset) <= text.size());
}

constexpr sc::schema tpch_like = sc::parse_schema(
    "lineitem(l_orderkey INT, l_quantity DECIMAL, l_extendedprice DECIMAL, l_discount DECIMAL, "
    "l_shipdate DATE, l_returnflag TEXT) orders(o_orderkey INT, o_orderdate DATE, "
    "o_orderpriority TEXT) sales(k INT, price DECIMAL, qty INT, day DATE, flag TEXT, city TEXT)");
static_assert(tpch_like.ok());

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string_view text = bytes;
  const sc::query q = sc::parse(text);
  if (q.ok())
    check_accepted(text, q);
  else
    check_rejected(text, q);
  const sc::schema own = check_schema(text);
  if (q.ok()) {
    check_against(text, q, tpch_like);
    if (own.ok()) check_against(text, q, own);
  }
  const sc::query again = sc::parse(text);
  require(again.error == q.error && again.error_offset == q.error_offset &&
          again.node_count == q.node_count);
  return 0;
}

}  // namespace

LOOM_FUZZ_ENTRY("sql", fuzz_one)
