// SQL parsed at compile time: `loom::sql<"SELECT ...">(table)` parses the text with constexpr
// code and compiles the query into loops over the table's columns (sql/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_HPP
#define LOOM_SQL_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/relational/table.hpp>
#include <loom/sql/ast.hpp>
#include <loom/sql/execute.hpp>
#include <loom/sql/explain.hpp>
#include <loom/sql/parser.hpp>

#include <cstddef>
#include <string>

namespace loom {

namespace sql_compiler::detail {

/// The tree of a query text, a constant of static storage that templates can refer to.
template <fixed_string Text> inline constexpr query parsed = parse(Text.view());

/// Instantiated for a text that does not parse: the compiler's message names this template
/// with the line, the column and the reason, e.g.
/// `sql_syntax_error<1, 18, loom::sql_compiler::error_code::expected_from>`.
template <std::size_t Line, std::size_t Column, error_code Reason> struct sql_syntax_error {
  static_assert(Line == 0 && Column == 0,
                "loom::sql: the query text does not parse; the line, the column and the reason "
                "are the arguments of the sql_syntax_error<Line, Column, Reason> named here");
  static constexpr bool ok = false;
};

/// True for a text that parses; otherwise a compile error through sql_syntax_error.
template <fixed_string Text> constexpr bool parses() {
  if constexpr (parsed<Text>.ok()) {
    return true;
  } else {
    constexpr text_position at = position_of(Text.view(), parsed<Text>.error_offset);
    return sql_syntax_error<static_cast<std::size_t>(at.line), static_cast<std::size_t>(at.column),
                            parsed<Text>.error>::ok;
  }
}

}  // namespace sql_compiler::detail

/// The tables a query's FROM may name (`db.add("lineitem", lineitem)`).
using sql_database = sql_compiler::database;

/// Runs the SQL `Text` over `t`, whatever FROM calls it. The text is parsed at compile time: a
/// syntax error is a compile error naming its line and column; the query compiles into a loop
/// over the rows. The result is a table with one column per select item.
/// **Example**: `auto r = loom::sql<"SELECT SUM(l_quantity) AS q FROM lineitem">(lineitem);`
template <fixed_string Text> relational::table sql(const relational::table& t) {
  if constexpr (sql_compiler::detail::parses<Text>())
    return sql_compiler::run<sql_compiler::detail::parsed<Text>>(t);
  else
    return {};
}

/// Runs the SQL `Text` over the table of `db` that its FROM clause names.
template <fixed_string Text> relational::table sql(const sql_database& db) {
  if constexpr (sql_compiler::detail::parses<Text>())
    return sql_compiler::run<sql_compiler::detail::parsed<Text>>(db);
  else
    return {};
}

/// The plan `loom::sql<Text>(t)` runs, as text in the query's own names: the scan and its
/// filter, the grouping, the aggregates, the order. **Example**:
/// `std::cout << loom::sql_explain<"SELECT SUM(l_quantity) FROM lineitem">(lineitem);`
template <fixed_string Text> std::string sql_explain(const relational::table& t) {
  if constexpr (sql_compiler::detail::parses<Text>())
    return sql_compiler::explain<sql_compiler::detail::parsed<Text>>(t);
  else
    return {};
}

/// The plan `loom::sql<Text>(db)` runs over the tables of `db`: the scanned table, then each
/// joined table in order with its key columns (array-indexed or hashed) and its filters, the
/// terms tested on joined rows, the grouping keys and aggregates, the order and the limit.
template <fixed_string Text> std::string sql_explain(const sql_database& db) {
  if constexpr (sql_compiler::detail::parses<Text>())
    return sql_compiler::explain<sql_compiler::detail::parsed<Text>>(db);
  else
    return {};
}

}  // namespace loom

#endif  // LOOM_SQL_HPP
