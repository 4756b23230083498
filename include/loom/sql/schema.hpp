// Defines the schema a query may be checked against while it compiles (sql/): table names, their
// columns and the columns' types, parsed by constexpr code from a text such as
// "lineitem(l_orderkey INT, l_extendedprice DECIMAL, l_shipdate DATE, l_returnflag TEXT)".
// With it, an unknown table or column, a column several tables have, and a comparison or
// arithmetic of mismatched types are compile errors at their place in the query.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_SCHEMA_HPP
#define LOOM_SQL_SCHEMA_HPP

#include <loom/sql/ast.hpp>

#include <cstddef>
#include <string_view>

namespace loom::sql_compiler {

inline constexpr int max_schema_tables = 16;
inline constexpr int max_schema_columns = 192;

/// A column's type in a schema: INT (INTEGER, BIGINT), DECIMAL (NUMERIC, DOUBLE, REAL, FLOAT),
/// DATE, TEXT (VARCHAR, CHAR, STRING). `DECIMAL(p,s)` and `NUMERIC(p,s)` are decimals with a
/// scale (`schema_column::scale`): exact, a fixed column; bare DECIMAL is a double.
enum class column_kind : unsigned char { integer, decimal, date, text };

/// Why a schema text or a query checked against it was rejected.
enum class schema_error_code : unsigned char {
  none,
  // the schema's text
  expected_table_name,
  expected_opening_parenthesis,
  expected_column_name,
  unknown_column_type,
  expected_comma_or_closing_parenthesis,
  bad_decimal_precision,
  duplicate_table,
  duplicate_column,
  too_many_tables,
  too_many_columns,
  // a query checked against the schema
  unknown_table,
  unknown_column,
  ambiguous_column,
  type_mismatch,
};

constexpr std::string_view to_string(schema_error_code e) {
  switch (e) {
    case schema_error_code::none:
      return "no error";
    case schema_error_code::expected_table_name:
      return "expected a table name";
    case schema_error_code::expected_opening_parenthesis:
      return "expected ( after the table name";
    case schema_error_code::expected_column_name:
      return "expected a column name";
    case schema_error_code::unknown_column_type:
      return "expected a column type: INT, DECIMAL, DATE or TEXT";
    case schema_error_code::expected_comma_or_closing_parenthesis:
      return "expected , or )";
    case schema_error_code::bad_decimal_precision:
      return "DECIMAL(p,s) and NUMERIC(p,s) need whole numbers 1 <= p <= 18 and 0 <= s <= p";
    case schema_error_code::duplicate_table:
      return "a second table of that name";
    case schema_error_code::duplicate_column:
      return "a second column of that name in the table";
    case schema_error_code::too_many_tables:
      return "too many tables in the schema";
    case schema_error_code::too_many_columns:
      return "too many columns in the schema";
    case schema_error_code::unknown_table:
      return "no table of that name in the schema";
    case schema_error_code::unknown_column:
      return "no table of FROM has a column of that name";
    case schema_error_code::ambiguous_column:
      return "several tables of FROM have a column of that name: name its table";
    case schema_error_code::type_mismatch:
      return "the types do not match (a number, a date and a text compare only with their own "
             "kind; arithmetic takes numbers, or a date plus or minus a number)";
  }
  return "?";
}

struct schema_column {
  std::string_view name;
  column_kind kind = column_kind::integer;
  /// A decimal declared DECIMAL(p,s) or NUMERIC(p,s): s, its exact scale; -1 for a double (bare
  /// DECIMAL, DOUBLE, REAL, FLOAT) and for the other kinds.
  int scale = -1;
};
struct schema_table {
  std::string_view name;
  int first_column = 0;  // into schema::columns
  int column_count = 0;
};

/// A parsed schema, or the first error in its text.
struct schema {
  schema_table tables[max_schema_tables]{};
  int table_count = 0;
  schema_column columns[max_schema_columns]{};
  int column_count = 0;
  schema_error_code error = schema_error_code::none;
  int error_offset = 0;

  constexpr bool ok() const { return error == schema_error_code::none; }
  /// The table of that name, or -1.
  constexpr int find_table(std::string_view name) const {
    for (int t = 0; t < table_count; ++t)
      if (equal_names(tables[t].name, name)) return t;
    return -1;
  }
  /// The column of that name in table t, or -1 (an index into `columns`).
  constexpr int find_column(int t, std::string_view name) const {
    for (int c = 0; c < tables[t].column_count; ++c)
      if (equal_names(columns[tables[t].first_column + c].name, name))
        return tables[t].first_column + c;
    return -1;
  }
  // Names compare without regard to case, as SQL's unquoted names do.
  static constexpr bool equal_names(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
      char x = a[k], y = b[k];
      if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
      if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
      if (x != y) return false;
    }
    return true;
  }
};

namespace schema_detail {
constexpr bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
constexpr bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

struct reader {
  std::string_view text;
  std::size_t at = 0;

  constexpr void skip_space() {
    while (at < text.size()) {
      const char c = text[at];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';') {
        ++at;
      } else if (c == '-' && at + 1 < text.size() && text[at + 1] == '-') {
        while (at < text.size() && text[at] != '\n') ++at;  // a -- comment
      } else {
        return;
      }
    }
  }
  constexpr std::string_view name() {
    skip_space();
    const std::size_t start = at;
    if (at < text.size() && is_name_start(text[at]))
      while (at < text.size() && is_name_char(text[at])) ++at;
    return text.substr(start, at - start);
  }
  constexpr bool take(char c) {
    skip_space();
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  }
};

constexpr bool kind_of(std::string_view type, column_kind& kind) {
  constexpr struct {
    std::string_view name;
    column_kind kind;
  } names[] = {{"int", column_kind::integer},     {"integer", column_kind::integer},
               {"bigint", column_kind::integer},  {"decimal", column_kind::decimal},
               {"numeric", column_kind::decimal}, {"double", column_kind::decimal},
               {"real", column_kind::decimal},    {"float", column_kind::decimal},
               {"date", column_kind::date},       {"text", column_kind::text},
               {"varchar", column_kind::text},    {"char", column_kind::text},
               {"string", column_kind::text}};
  for (const auto& n : names)
    if (schema::equal_names(n.name, type)) {
      kind = n.kind;
      return true;
    }
  return false;
}

// DECIMAL(p,s) or NUMERIC(p,s) (s is 0 when left out): sets `scale`; false when p or s is not a
// whole number, p is not 1 to 18 or s is larger than p. No parenthesis: scale stays -1.
constexpr bool decimal_arguments(reader& r, int& scale) {
  r.skip_space();
  if (r.at >= r.text.size() || r.text[r.at] != '(') return true;
  ++r.at;
  auto number = [&](int& out) {
    r.skip_space();
    const std::size_t start = r.at;
    out = 0;
    while (r.at < r.text.size() && r.text[r.at] >= '0' && r.text[r.at] <= '9' && out < 100)
      out = out * 10 + (r.text[r.at++] - '0');
    return r.at > start;
  };
  int p = 0, s = 0;
  if (!number(p)) return false;
  if (r.take(',') && !number(s)) return false;
  if (!r.take(')') || p < 1 || p > 18 || s > p) return false;
  scale = s;
  return true;
}

// A type's optional size or precision, "(15,2)", is read and ignored.
constexpr void skip_type_arguments(reader& r) {
  r.skip_space();
  if (r.at >= r.text.size() || r.text[r.at] != '(') return;
  while (r.at < r.text.size() && r.text[r.at] != ')') ++r.at;
  if (r.at < r.text.size()) ++r.at;
}
}  // namespace schema_detail

/// Parses "table(column TYPE, ...) table(...)" (tables may be separated by ';' and start with
/// CREATE TABLE; `--` starts a comment).
constexpr schema parse_schema(std::string_view text) {
  schema s;
  schema_detail::reader r{text};
  auto fail = [&](schema_error_code e, std::size_t offset) {
    s.error = e;
    s.error_offset = static_cast<int>(offset);
    return s;
  };
  while (true) {
    r.skip_space();
    if (r.at >= text.size()) return s;
    std::size_t start = r.at;
    std::string_view table = r.name();
    if (schema::equal_names(table, "create")) {  // CREATE TABLE name (...)
      const std::string_view word = r.name();
      if (!schema::equal_names(word, "table"))
        return fail(schema_error_code::expected_table_name, start);
      r.skip_space();
      start = r.at;
      table = r.name();
    }
    if (table.empty()) return fail(schema_error_code::expected_table_name, start);
    if (s.find_table(table) >= 0) return fail(schema_error_code::duplicate_table, start);
    if (s.table_count == max_schema_tables) return fail(schema_error_code::too_many_tables, start);
    schema_table& t = s.tables[s.table_count++];
    t.name = table;
    t.first_column = s.column_count;
    if (!r.take('(')) return fail(schema_error_code::expected_opening_parenthesis, r.at);
    while (true) {
      r.skip_space();
      const std::size_t column_start = r.at;
      const std::string_view column = r.name();
      if (column.empty()) return fail(schema_error_code::expected_column_name, column_start);
      if (s.find_column(s.table_count - 1, column) >= 0)
        return fail(schema_error_code::duplicate_column, column_start);
      r.skip_space();
      const std::size_t type_start = r.at;
      column_kind kind = column_kind::integer;
      const std::string_view type = r.name();
      if (!schema_detail::kind_of(type, kind))
        return fail(schema_error_code::unknown_column_type, type_start);
      int scale = -1;
      if (schema::equal_names(type, "decimal") || schema::equal_names(type, "numeric")) {
        r.skip_space();
        const std::size_t arguments_start = r.at;
        if (!schema_detail::decimal_arguments(r, scale))
          return fail(schema_error_code::bad_decimal_precision, arguments_start);
      } else {
        schema_detail::skip_type_arguments(r);
      }
      if (s.column_count == max_schema_columns)
        return fail(schema_error_code::too_many_columns, column_start);
      s.columns[s.column_count++] = {column, kind, scale};
      ++t.column_count;
      if (r.take(')')) break;
      if (!r.take(',')) return fail(schema_error_code::expected_comma_or_closing_parenthesis, r.at);
    }
  }
}

/// What a query checked against a schema found: the first error and where it is in the query.
struct schema_check {
  schema_error_code error = schema_error_code::none;
  int error_offset = 0;
  constexpr bool ok() const { return error == schema_error_code::none; }
};

namespace schema_detail {
// The kind of a value for the checks: a number (integer or decimal), a date, a text; `any` where
// nothing is known (a NULL-free CASE branch never is; kept for robustness).
enum class value_kind : unsigned char { number, date, text, any };

struct checker {
  const query& q;
  const schema& s;
  int from_tables[max_tables]{};  // the schema table of each FROM entry
  schema_check result;

  constexpr bool fail(schema_error_code e, int offset) {
    if (result.ok()) result = {e, offset};
    return false;
  }

  constexpr bool check_from() {
    for (int t = 0; t < q.table_count; ++t) {
      from_tables[t] = s.find_table(q.tables[t].name);
      if (from_tables[t] < 0) return fail(schema_error_code::unknown_table, q.tables[t].offset);
    }
    return true;
  }

  // The schema column a column node names, or -1 after recording the error.
  constexpr int resolve(const node& n) {
    int found = -1, count = 0;
    for (int t = 0; t < q.table_count; ++t) {
      const table_ref& ref = q.tables[t];
      if (!n.qualifier.empty() && !schema::equal_names(n.qualifier, ref.alias) &&
          !(ref.alias.empty() && schema::equal_names(n.qualifier, ref.name)))
        continue;
      const int c = s.find_column(from_tables[t], n.text);
      if (c >= 0) {
        found = c;
        ++count;
      }
    }
    if (count == 0) return fail(schema_error_code::unknown_column, n.offset), -1;
    if (count > 1) return fail(schema_error_code::ambiguous_column, n.offset), -1;
    return found;
  }

  static constexpr value_kind kind_of(column_kind k) {
    return k == column_kind::date   ? value_kind::date
           : k == column_kind::text ? value_kind::text
                                    : value_kind::number;
  }
  static constexpr bool compatible(value_kind a, value_kind b) {
    return a == b || a == value_kind::any || b == value_kind::any;
  }

  // The kind of node i's value; false after an error.
  constexpr bool value(int i, value_kind& out) {
    const node& n = q.nodes[i];
    value_kind a = value_kind::any, b = value_kind::any, c = value_kind::any;
    switch (n.kind) {
      case node_kind::column: {
        const int col = resolve(n);
        if (col < 0) return false;
        out = kind_of(s.columns[col].kind);
        return true;
      }
      case node_kind::number:
        out = value_kind::number;
        return true;
      case node_kind::string:
        out = value_kind::text;
        return true;
      case node_kind::date:
        out = value_kind::date;
        return true;
      case node_kind::negate:
        if (!value(n.a, a)) return false;
        if (!compatible(a, value_kind::number))
          return fail(schema_error_code::type_mismatch, n.offset);
        out = value_kind::number;
        return true;
      case node_kind::add:
      case node_kind::subtract:
      case node_kind::multiply:
      case node_kind::divide: {
        if (!value(n.a, a) || !value(n.b, b)) return false;
        const bool additive = n.kind == node_kind::add || n.kind == node_kind::subtract;
        if (a == value_kind::text || b == value_kind::text)
          return fail(schema_error_code::type_mismatch, n.offset);
        if (a == value_kind::date || b == value_kind::date) {
          if (!additive) return fail(schema_error_code::type_mismatch, n.offset);
          if (a == value_kind::date && b == value_kind::date) {
            if (n.kind == node_kind::add) return fail(schema_error_code::type_mismatch, n.offset);
            out = value_kind::number;  // days between two dates
          } else {
            out = value_kind::date;
          }
          return true;
        }
        out = value_kind::number;
        return true;
      }
      case node_kind::sum:
      case node_kind::avg:
        if (!value(n.a, a)) return false;
        if (!compatible(a, value_kind::number))
          return fail(schema_error_code::type_mismatch, n.offset);
        out = value_kind::number;
        return true;
      case node_kind::count_star:
        out = value_kind::number;
        return true;
      case node_kind::count:
      case node_kind::count_distinct:
        if (!value(n.a, a)) return false;
        out = value_kind::number;
        return true;
      case node_kind::min:
      case node_kind::max:
        return value(n.a, out);
      case node_kind::case_when:
        if (!condition(n.a) || !value(n.b, b)) return false;
        if (n.c >= 0) {
          if (!value(n.c, c)) return false;
          if (!compatible(b, c)) return fail(schema_error_code::type_mismatch, q.nodes[n.c].offset);
        }
        out = b == value_kind::any ? c : b;
        return true;
      case node_kind::extract:
        if (!value(n.a, a)) return false;
        if (!compatible(a, value_kind::date))
          return fail(schema_error_code::type_mismatch, n.offset);
        out = value_kind::number;
        return true;
      default:
        return condition(i) && ((out = value_kind::number), true);  // a condition as 0/1
    }
  }

  // Checks condition node i: its operands' kinds agree.
  constexpr bool condition(int i) {
    const node& n = q.nodes[i];
    value_kind a = value_kind::any, b = value_kind::any, c = value_kind::any;
    switch (n.kind) {
      case node_kind::logical_and:
      case node_kind::logical_or:
        return condition(n.a) && condition(n.b);
      case node_kind::logical_not:
        return condition(n.a);
      case node_kind::like:
        if (!value(n.a, a)) return false;
        if (!compatible(a, value_kind::text))
          return fail(schema_error_code::type_mismatch, n.offset);
        return true;
      case node_kind::between:
        if (!value(n.a, a) || !value(n.b, b) || !value(n.c, c)) return false;
        if (!compatible(a, b)) return fail(schema_error_code::type_mismatch, q.nodes[n.b].offset);
        if (!compatible(a, c)) return fail(schema_error_code::type_mismatch, q.nodes[n.c].offset);
        return true;
      case node_kind::in_list:
        if (!value(n.a, a)) return false;
        for (int item = n.b; item >= 0; item = q.nodes[item].next) {
          if (!value(item, b)) return false;
          if (!compatible(a, b))
            return fail(schema_error_code::type_mismatch, q.nodes[item].offset);
        }
        return true;
      default:
        if (is_comparison(n.kind)) {
          if (!value(n.a, a) || !value(n.b, b)) return false;
          if (!compatible(a, b)) return fail(schema_error_code::type_mismatch, q.nodes[n.b].offset);
          return true;
        }
        return value(i, a);  // a value used as a condition
    }
  }

  constexpr schema_check run() {
    if (!check_from()) return result;
    value_kind k = value_kind::any;
    for (int i = 0; i < q.select_count; ++i)
      if (!value(q.select[i].expr, k)) return result;
    if (q.where >= 0 && !condition(q.where)) return result;
    if (q.having >= 0 && !condition(q.having)) return result;
    for (int g = 0; g < q.group_count; ++g)
      if (q.group_by[g] >= 0 && !value(q.group_by[g], k)) return result;
    return result;
  }
};
}  // namespace schema_detail

/// Checks a parsed query against a schema: FROM's tables exist, every column names exactly one
/// column of them, and comparisons, arithmetic and aggregates get values of the kinds they take.
constexpr schema_check check_against(const query& q, const schema& s) {
  schema_detail::checker c{q, s, {}, {}};
  return c.run();
}

}  // namespace loom::sql_compiler

#endif  // LOOM_SQL_SCHEMA_HPP
