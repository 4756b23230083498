// SQL parsed at compile time: `loom::sql<"SELECT ...">(table)` parses the text with constexpr
// code and compiles the query into loops over the table's columns (sql/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_HPP
#define LOOM_SQL_HPP

#include <loom/core/fixed_string.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/csv.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/table.hpp>
#include <loom/sql/ast.hpp>
#include <loom/sql/database.hpp>
#include <loom/sql/execute.hpp>
#include <loom/sql/explain.hpp>
#include <loom/sql/parser.hpp>
#include <loom/sql/schema.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

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

/// The schema of a text, a constant.
template <fixed_string Schema> inline constexpr schema parsed_schema = parse_schema(Schema.view());

/// Instantiated for a query the schema rejects: the compiler's message names this template with
/// the query's line and column and the reason, e.g.
/// `sql_schema_error<2, 10, loom::sql_compiler::schema_error_code::unknown_column>`.
template <std::size_t Line, std::size_t Column, schema_error_code Reason> struct sql_schema_error {
  static_assert(Line == 0 && Column == 0,
                "loom::sql: the query does not fit its schema; the line and the column in the "
                "query and the reason are the arguments of the sql_schema_error named here");
  static constexpr bool ok = false;
};
/// Instantiated for a schema text that does not parse: the line and column are the schema's.
template <std::size_t Line, std::size_t Column, schema_error_code Reason>
struct sql_schema_syntax_error {
  static_assert(Line == 0 && Column == 0,
                "loom::sql: the schema text does not parse; the line, the column and the reason "
                "are the arguments of the sql_schema_syntax_error named here");
  static constexpr bool ok = false;
};

/// True for a query that parses and fits the schema; otherwise a compile error.
template <fixed_string Text, fixed_string Schema> constexpr bool fits_schema() {
  if constexpr (!parses<Text>()) {
    return false;
  } else if constexpr (!parsed_schema<Schema>.ok()) {
    constexpr text_position at = position_of(Schema.view(), parsed_schema<Schema>.error_offset);
    return sql_schema_syntax_error<static_cast<std::size_t>(at.line),
                                   static_cast<std::size_t>(at.column),
                                   parsed_schema<Schema>.error>::ok;
  } else {
    constexpr schema_check c = check_against(parsed<Text>, parsed_schema<Schema>);
    if constexpr (c.ok()) {
      return true;
    } else {
      constexpr text_position at = position_of(Text.view(), c.error_offset);
      return sql_schema_error<static_cast<std::size_t>(at.line),
                              static_cast<std::size_t>(at.column), c.error>::ok;
    }
  }
}

/// Throws relational::column_error when a table FROM names lacks a column of the schema or
/// holds it with another type: the compile-time checks assumed the schema's types.
void check_tables(const schema& s, const query& q, const database& db);

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

/// Runs the SQL `Text` over the tables of `db`, checked while compiling against `Schema`, a text
/// such as "lineitem(l_orderkey INT, l_extendedprice DECIMAL, l_shipdate DATE) orders(...)":
/// an unknown table or column, a column several tables of FROM have, and values of mismatched
/// types (a text compared with a number, a SUM of dates) are compile errors at their line and
/// column in the query. At run time, the tables FROM names must hold the schema's columns with
/// its types (else `relational::column_error`).
/// **Example**: `loom::sql<"SELECT SUM(l_quantity) FROM lineitem", tpch_schema>(db)`.
template <fixed_string Text, fixed_string Schema> relational::table sql(const sql_database& db) {
  if constexpr (sql_compiler::detail::fits_schema<Text, Schema>()) {
    sql_compiler::detail::check_tables(sql_compiler::detail::parsed_schema<Schema>,
                                       sql_compiler::detail::parsed<Text>, db);
    return sql_compiler::run<sql_compiler::detail::parsed<Text>>(db);
  } else {
    return {};
  }
}

/// The CSV columns of table `table` of `Schema`, in the schema's order, for `rel::read_csv`:
/// INT as `int64`, DECIMAL(p,s) and NUMERIC(p,s) as `fixed` of scale s, bare DECIMAL, DOUBLE,
/// REAL and FLOAT as `decimal`, DATE as `date`, TEXT as `string`. A schema text that does not
/// parse is a compile error (`sql_schema_syntax_error`); a table it lacks throws
/// `relational::column_error` naming the table and the schema's tables.
/// **Example**: `rel::read_csv("lineitem.csv", loom::sql_csv_columns<tpch_schema>("lineitem"))`.
template <fixed_string Schema>
std::vector<relational::column_spec> sql_csv_columns(std::string_view table) {
  namespace sc = sql_compiler;
  if constexpr (!sc::detail::parsed_schema<Schema>.ok()) {
    constexpr sc::text_position at =
        sc::position_of(Schema.view(), sc::detail::parsed_schema<Schema>.error_offset);
    constexpr bool ok =
        sc::detail::sql_schema_syntax_error<static_cast<std::size_t>(at.line),
                                            static_cast<std::size_t>(at.column),
                                            sc::detail::parsed_schema<Schema>.error>::ok;
    (void)ok;
    (void)table;
    return {};
  } else {
    constexpr const sc::schema& s = sc::detail::parsed_schema<Schema>;
    const int t = s.find_table(table);
    if (t < 0) {
      std::string known;
      for (int k = 0; k < s.table_count; ++k)
        known += (k ? ", " : "") + std::string(s.tables[k].name);
      throw relational::column_error("loom::sql_csv_columns: the schema has no table " +
                                     std::string(table) + " (tables: " + known + ")");
    }
    std::vector<relational::column_spec> columns;
    for (int c = 0; c < s.tables[t].column_count; ++c) {
      const sc::schema_column& col = s.columns[s.tables[t].first_column + c];
      const relational::column_type type =
          col.kind == sc::column_kind::integer ? relational::column_type::int64
          : col.kind == sc::column_kind::decimal
              ? (col.scale >= 0 ? relational::column_type::fixed : relational::column_type::decimal)
          : col.kind == sc::column_kind::date ? relational::column_type::date
                                              : relational::column_type::string;
      columns.push_back({std::string(col.name), type, col.scale >= 0 ? col.scale : 0});
    }
    return columns;
  }
}

}  // namespace loom

namespace loom::sql_compiler::detail {
inline void check_tables(const schema& s, const query& q, const database& db) {
  for (int t = 0; t < q.table_count; ++t) {
    const schema_table& st = s.tables[s.find_table(q.tables[t].name)];
    const relational::table& table = db[q.tables[t].name];
    for (int c = 0; c < st.column_count; ++c) {
      const schema_column& want = s.columns[st.first_column + c];
      const relational::column* found = nullptr;
      for (const auto& col : table.columns())
        if (schema::equal_names(col.name(), want.name)) found = &col;
      const relational::column_type type =
          want.kind == column_kind::integer   ? relational::column_type::int64
          : want.kind == column_kind::decimal ? relational::column_type::decimal
          : want.kind == column_kind::date    ? relational::column_type::date
                                              : relational::column_type::string;
      if (found == nullptr)
        throw relational::column_error("loom::sql: table " + std::string(q.tables[t].name) +
                                       " has no column " + std::string(want.name) +
                                       ", which the query's schema declares");
      // DECIMAL(p,s) is a fixed column of scale s; bare DECIMAL a double
      const bool fixed = want.kind == column_kind::decimal && want.scale >= 0;
      if (fixed ? found->type() != relational::column_type::fixed || found->scale() != want.scale
                : found->type() != type)
        throw relational::column_error(
            "loom::sql: column " + std::string(want.name) + " of table " +
            std::string(q.tables[t].name) + " holds " + std::string(to_string(found->type())) +
            (found->type() == relational::column_type::fixed
                 ? " (scale " + std::to_string(found->scale()) + ")"
                 : std::string()) +
            " values; the query's schema declares " +
            (fixed ? "DECIMAL(p," + std::to_string(want.scale) + "), exact (fixed, scale " +
                         std::to_string(want.scale) + ")"
                   : std::string(to_string(type))));
    }
  }
}
}  // namespace loom::sql_compiler::detail

#endif  // LOOM_SQL_HPP
