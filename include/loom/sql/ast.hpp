// Defines the syntax tree of a parsed SQL SELECT statement: fixed-capacity node arrays and
// string_views into the query text, so that a tree built by constexpr code is itself a constant
// (sql/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_AST_HPP
#define LOOM_SQL_AST_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace loom::sql_compiler {

/// Capacities of one query: a constant tree has a fixed size (checked by the parser, which
/// answers `too_many_*` rather than writing past them).
inline constexpr int max_nodes = 192;
inline constexpr int max_select_items = 24;
inline constexpr int max_tables = 8;
inline constexpr int max_group_keys = 8;
inline constexpr int max_order_keys = 8;
inline constexpr int max_aggregates = 24;
/// Nesting of parentheses, NOT, CASE and unary minus: bounds the parser's recursion (also in
/// constant evaluation, whose depth compilers limit).
inline constexpr int max_depth = 24;

/// Why a text was rejected. The enumerator's name is what a compile error shows.
enum class error_code : unsigned char {
  none,
  unexpected_character,
  unterminated_string,
  unterminated_comment,
  malformed_number,
  expected_select,
  expected_from,
  expected_expression,
  expected_condition,
  expected_value_not_condition,
  expected_closing_parenthesis,
  expected_opening_parenthesis,
  expected_table_name,
  expected_alias,
  expected_column_after_dot,
  expected_by,
  expected_then,
  expected_when,
  expected_end,
  expected_and_of_between,
  expected_string_pattern_after_like,
  expected_date_string,
  invalid_date,
  expected_interval_string,
  expected_interval_unit,
  interval_needs_date_literal,
  expected_star_or_expression_in_count,
  expected_limit_count,
  expected_end_of_query,
  case_without_else_outside_aggregate,
  aggregate_inside_aggregate,
  aggregate_in_where,
  aggregate_in_group_by,
  column_not_in_group_by,
  unknown_table_alias,
  duplicate_output_name,
  order_by_not_in_select_list,
  order_by_position_out_of_range,
  string_outside_comparison,
  string_needs_column,
  group_by_takes_columns,
  table_not_joined,
  expected_on,
  join_kind_not_supported,
  expected_extract_field,
  aggregate_in_derived_table,
  derived_table_not_alone,
  column_not_in_derived_table,
  too_many_nodes,
  too_many_select_items,
  too_many_tables,
  too_many_group_keys,
  too_many_order_keys,
  too_many_aggregates,
  nesting_too_deep,
};

/// The text of an error code, for run-time messages.
constexpr std::string_view to_string(error_code e) {
  switch (e) {
    case error_code::none:
      return "no error";
    case error_code::unexpected_character:
      return "unexpected character";
    case error_code::unterminated_string:
      return "unterminated string literal";
    case error_code::unterminated_comment:
      return "unterminated /* comment";
    case error_code::malformed_number:
      return "malformed number";
    case error_code::expected_select:
      return "expected SELECT";
    case error_code::expected_from:
      return "expected FROM after the select list";
    case error_code::expected_expression:
      return "expected an expression";
    case error_code::expected_condition:
      return "expected a condition (a comparison, AND, OR, NOT, ...)";
    case error_code::expected_value_not_condition:
      return "expected a value, not a condition";
    case error_code::expected_closing_parenthesis:
      return "expected )";
    case error_code::expected_opening_parenthesis:
      return "expected (";
    case error_code::expected_table_name:
      return "expected a table name";
    case error_code::expected_alias:
      return "expected a name after AS";
    case error_code::expected_column_after_dot:
      return "expected a column name after '.'";
    case error_code::expected_by:
      return "expected BY";
    case error_code::expected_then:
      return "expected THEN";
    case error_code::expected_when:
      return "expected WHEN after CASE";
    case error_code::expected_end:
      return "expected WHEN, ELSE or END";
    case error_code::expected_and_of_between:
      return "expected AND of BETWEEN";
    case error_code::expected_string_pattern_after_like:
      return "expected a 'pattern' after LIKE";
    case error_code::expected_date_string:
      return "expected 'YYYY-MM-DD' after DATE";
    case error_code::invalid_date:
      return "not a valid YYYY-MM-DD date";
    case error_code::expected_interval_string:
      return "expected 'n' after INTERVAL";
    case error_code::expected_interval_unit:
      return "expected DAY, MONTH or YEAR";
    case error_code::interval_needs_date_literal:
      return "an INTERVAL is added to or subtracted from a DATE literal";
    case error_code::expected_star_or_expression_in_count:
      return "expected * or an expression";
    case error_code::expected_limit_count:
      return "expected a row count after LIMIT";
    case error_code::expected_end_of_query:
      return "expected the end of the query";
    case error_code::case_without_else_outside_aggregate:
      return "CASE without ELSE is only supported as an aggregate's argument";
    case error_code::aggregate_inside_aggregate:
      return "an aggregate inside an aggregate";
    case error_code::aggregate_in_where:
      return "an aggregate in WHERE";
    case error_code::aggregate_in_group_by:
      return "an aggregate in GROUP BY";
    case error_code::column_not_in_group_by:
      return "a column outside aggregates must be in GROUP BY";
    case error_code::unknown_table_alias:
      return "no table or alias of that name in FROM";
    case error_code::duplicate_output_name:
      return "two result columns of the same name";
    case error_code::order_by_not_in_select_list:
      return "ORDER BY takes a result column: an alias, a selected column or expression, a "
             "position";
    case error_code::order_by_position_out_of_range:
      return "ORDER BY position out of range";
    case error_code::string_outside_comparison:
      return "a string literal is only compared (=, <>, <, IN, LIKE)";
    case error_code::string_needs_column:
      return "a string literal is compared with a column";
    case error_code::group_by_takes_columns:
      return "GROUP BY takes columns";
    case error_code::table_not_joined:
      return "no equality of columns in WHERE or ON joins this table to the others (a cross "
             "product)";
    case error_code::expected_on:
      return "expected ON and a condition after the table of [INNER] JOIN";
    case error_code::join_kind_not_supported:
      return "only inner joins (JOIN ... ON, INNER JOIN, CROSS JOIN, commas): no LEFT, RIGHT, "
             "FULL or NATURAL join";
    case error_code::expected_extract_field:
      return "expected YEAR, MONTH or DAY after EXTRACT(";
    case error_code::aggregate_in_derived_table:
      return "an aggregate in a derived table (FROM (SELECT ...)), which is inlined";
    case error_code::derived_table_not_alone:
      return "a derived table (FROM (SELECT ...)) is the only entry of FROM";
    case error_code::column_not_in_derived_table:
      return "no column of that name in the derived table of FROM";
    case error_code::too_many_nodes:
      return "query too long (too many expression nodes)";
    case error_code::too_many_select_items:
      return "too many select items";
    case error_code::too_many_tables:
      return "too many tables in FROM";
    case error_code::too_many_group_keys:
      return "too many GROUP BY keys";
    case error_code::too_many_order_keys:
      return "too many ORDER BY keys";
    case error_code::too_many_aggregates:
      return "too many aggregates";
    case error_code::nesting_too_deep:
      return "nesting too deep";
  }
  return "?";
}

/// What a node computes. Values: column .. extract; conditions: eq .. like.
enum class node_kind : unsigned char {
  column,          // text = name, qualifier = table or alias ("" when none)
  number,          // number (integer says whether it was written without . or exponent)
  string,          // text = the characters between the quotes, '' still doubled
  date,            // number = days since 1970-01-01 (DATE '...' +/- INTERVAL folded in)
  negate,          // -a
  add,             // a + b
  subtract,        // a - b
  multiply,        // a * b
  divide,          // a / b
  sum,             // SUM(a)
  count_star,      // COUNT(*)
  count,           // COUNT(a)
  count_distinct,  // COUNT(DISTINCT a)
  min,             // MIN(a)
  max,             // MAX(a)
  avg,             // AVG(a)
  case_when,       // CASE WHEN a THEN b ELSE c END (c = -1 without ELSE; more WHENs nest in c)
  extract,         // EXTRACT(field FROM a): number = 0 YEAR, 1 MONTH, 2 DAY
  eq,              // a = b
  ne,              // a <> b
  lt,              // a < b
  le,              // a <= b
  gt,              // a > b
  ge,              // a >= b
  logical_and,     // a AND b
  logical_or,      // a OR b
  logical_not,     // NOT a
  between,         // a BETWEEN b AND c
  in_list,         // a IN (b, ...): the items are b and its `next` chain
  like,            // a LIKE 'text'
};

constexpr bool is_aggregate(node_kind k) {
  return k == node_kind::sum || k == node_kind::count_star || k == node_kind::count ||
         k == node_kind::count_distinct || k == node_kind::min || k == node_kind::max ||
         k == node_kind::avg;
}
constexpr bool is_condition(node_kind k) { return k >= node_kind::eq; }
constexpr bool is_comparison(node_kind k) { return k >= node_kind::eq && k <= node_kind::ge; }

/// One node of the tree; children are indices into `query::nodes` (-1: none).
struct node {
  node_kind kind = node_kind::number;
  int a = -1, b = -1, c = -1;
  int next = -1;          // the next item of an IN list
  std::string_view text;  // column name, string literal
  std::string_view qualifier;
  double number = 0;
  bool integer = false;
  /// A number written with at most 18 significant digits is exactly mantissa * 10^exponent:
  /// constant arithmetic on such numbers is folded exactly, as SQL's DECIMAL literals are.
  bool exact = false;
  std::int64_t mantissa = 0;
  int exponent = 0;
  int offset = 0;  // where the node starts in the text
  /// An aggregate's accumulator; when grouped, the GROUP BY key a selected column (or an
  /// expression of a derived table) reads.
  int slot = -1;
};

struct select_item {
  int expr = -1;
  std::string_view alias;   // "" when none
  std::string_view source;  // the expression's text, the result column's name without an alias
  /// The result column's name: the alias, else a column's name, else the expression's text.
  std::string_view name;
};

struct table_ref {
  std::string_view name;
  std::string_view alias;  // "" when none
  int offset = 0;
};

struct order_key {
  int output = -1;  // the result column it sorts by
  bool descending = false;
};

/// A parsed SELECT statement, or the first error found in its text.
struct query {
  node nodes[max_nodes]{};
  int node_count = 0;
  select_item select[max_select_items]{};
  int select_count = 0;
  table_ref tables[max_tables]{};
  int table_count = 0;
  int where = -1;
  int having = -1;  // a condition on the groups (their keys and aggregates)
  int group_by[max_group_keys]{};
  int group_count = 0;
  order_key order_by[max_order_keys]{};
  int order_count = 0;
  std::int64_t limit = -1;  // -1: no LIMIT
  /// The aggregate nodes, in slot order.
  int aggregates[max_aggregates]{};
  int aggregate_count = 0;

  error_code error = error_code::none;
  int error_offset = 0;  // byte offset of the error in the text

  constexpr bool ok() const { return error == error_code::none; }
  /// Grouped: GROUP BY, or an aggregate anywhere (one group of all rows).
  constexpr bool grouped() const { return group_count > 0 || aggregate_count > 0; }
};

/// 1-based line and column of a byte offset, for messages.
struct text_position {
  int line = 1;
  int column = 1;
};
constexpr text_position position_of(std::string_view text, int offset) {
  text_position p;
  for (int k = 0; k < offset && k < static_cast<int>(text.size()); ++k) {
    if (text[static_cast<std::size_t>(k)] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

}  // namespace loom::sql_compiler

#endif  // LOOM_SQL_AST_HPP
