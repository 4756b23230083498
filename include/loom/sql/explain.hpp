// Defines loom::sql_compiler::explain: the plan a parsed query runs, as text in the query's own
// table and column names (the scanned table and its filters, each joined table with its keys
// and filters, the grouping, the aggregates, the order), and to_sql, a node as SQL text (sql/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_EXPLAIN_HPP
#define LOOM_SQL_EXPLAIN_HPP

#include <loom/relational/date.hpp>
#include <loom/relational/table.hpp>
#include <loom/sql/ast.hpp>
#include <loom/sql/execute.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace loom::sql_compiler {

namespace detail {

/// How tightly a node binds, for parentheses: OR < AND < NOT < comparisons < + - < * / < the
/// rest.
constexpr int precedence(node_kind k) {
  switch (k) {
    case node_kind::logical_or:
      return 1;
    case node_kind::logical_and:
      return 2;
    case node_kind::logical_not:
      return 3;
    case node_kind::add:
    case node_kind::subtract:
      return 5;
    case node_kind::multiply:
    case node_kind::divide:
      return 6;
    case node_kind::negate:
      return 7;
    default:
      return is_condition(k) ? 4 : 8;
  }
}

inline std::string number_text(double v, bool integer) {
  if (integer && std::abs(v) < 9.0e15) return std::to_string(static_cast<std::int64_t>(v));
  std::ostringstream s;
  s.precision(15);
  s << v;
  std::string text = s.str();
  if (text.find_first_of(".e") == std::string::npos) text += ".0";  // still a decimal
  return text;
}

inline std::string date_text(std::int64_t day) {
  const relational::civil_date d = relational::civil_from_days(day);
  std::string text = "DATE '" + std::to_string(d.year) + "-";
  text += (d.month < 10 ? "0" : "") + std::to_string(d.month) + "-";
  text += (d.day < 10 ? "0" : "") + std::to_string(d.day) + "'";
  return text;
}

}  // namespace detail

/// The SQL text of node `id` of `q` (spacing and case normalised, parentheses where needed,
/// dates with their intervals folded in: `DATE '1995-01-01'`).
inline std::string to_sql(const query& q, int id) {
  if (id < 0) return "";
  const node& n = q.nodes[id];
  const int own = detail::precedence(n.kind);
  // A child in parentheses when it binds more loosely than its parent (or as loosely, on the
  // right of a - or a /), and an AND under an OR, for the reader.
  auto child = [&](int c, bool right = false) {
    const int inner = detail::precedence(q.nodes[c].kind);
    const bool wrap =
        inner < own || (right && inner == own && own >= 5) || (own == 1 && inner == 2);
    return wrap ? "(" + to_sql(q, c) + ")" : to_sql(q, c);
  };
  auto binary = [&](std::string_view op) {
    return child(n.a) + " " + std::string(op) + " " + child(n.b, true);
  };
  auto call = [&](std::string_view name) { return std::string(name) + "(" + to_sql(q, n.a) + ")"; };
  switch (n.kind) {
    case node_kind::column:
      return n.qualifier.empty() ? std::string(n.text)
                                 : std::string(n.qualifier) + "." + std::string(n.text);
    case node_kind::number:
      return detail::number_text(n.number, n.integer);
    case node_kind::string:
      return "'" + std::string(n.text) + "'";
    case node_kind::date:
      return detail::date_text(static_cast<std::int64_t>(n.number));
    case node_kind::negate:
      return "-" + child(n.a);
    case node_kind::add:
      return binary("+");
    case node_kind::subtract:
      return binary("-");
    case node_kind::multiply:
      return binary("*");
    case node_kind::divide:
      return binary("/");
    case node_kind::sum:
      return call("SUM");
    case node_kind::count_star:
      return "COUNT(*)";
    case node_kind::count:
      return call("COUNT");
    case node_kind::count_distinct:
      return "COUNT(DISTINCT " + to_sql(q, n.a) + ")";
    case node_kind::min:
      return call("MIN");
    case node_kind::max:
      return call("MAX");
    case node_kind::avg:
      return call("AVG");
    case node_kind::case_when: {
      std::string text = "CASE";
      int k = id;
      for (; k >= 0 && q.nodes[k].kind == node_kind::case_when; k = q.nodes[k].c)
        text += " WHEN " + to_sql(q, q.nodes[k].a) + " THEN " + to_sql(q, q.nodes[k].b);
      if (k >= 0) text += " ELSE " + to_sql(q, k);
      return text + " END";
    }
    case node_kind::extract: {
      constexpr std::string_view fields[] = {"YEAR", "MONTH", "DAY"};
      return "EXTRACT(" + std::string(fields[static_cast<int>(n.number)]) + " FROM " +
             to_sql(q, n.a) + ")";
    }
    case node_kind::eq:
      return binary("=");
    case node_kind::ne:
      return binary("<>");
    case node_kind::lt:
      return binary("<");
    case node_kind::le:
      return binary("<=");
    case node_kind::gt:
      return binary(">");
    case node_kind::ge:
      return binary(">=");
    case node_kind::logical_and:
      return binary("AND");
    case node_kind::logical_or:
      return binary("OR");
    case node_kind::logical_not:
      return "NOT " + child(n.a);
    case node_kind::between:
      return child(n.a) + " BETWEEN " + child(n.b) + " AND " + child(n.c);
    case node_kind::in_list: {
      std::string text = child(n.a) + " IN (";
      for (int item = n.b; item >= 0; item = q.nodes[item].next)
        text += (item == n.b ? "" : ", ") + to_sql(q, item);
      return text + ")";
    }
    case node_kind::like:
      return child(n.a) + " LIKE '" + std::string(n.text) + "'";
  }
  return "?";
}

namespace detail {

/// A FROM entry as the query names it: `nation n1`, `lineitem`.
inline std::string table_text(const query& q, std::size_t t) {
  const table_ref& ref = q.tables[t];
  return ref.alias.empty() ? std::string(ref.name)
                           : std::string(ref.name) + " " + std::string(ref.alias);
}

/// The terms of `ids` joined by AND, or "" for none.
inline std::string terms_text(const query& q, const std::vector<int>& ids) {
  std::string text;
  for (int id : ids) text += (text.empty() ? "" : " AND ") + to_sql(q, id);
  return text;
}

/// The scanned table's column bounds that select its rows a block at a time (active_bounds), as
/// a line of the plan; empty when there are none.
template <const query& Q> std::string bounds_text(const binding& b, std::ptrdiff_t table) {
  constexpr bound_list list = column_bounds<Q>;
  std::vector<int> ids;
  for (int k = 0; k < list.count; ++k) {
    const auto column = static_cast<std::size_t>(Q.nodes[list.ids[k]].a);
    if (b.narrow[static_cast<std::size_t>(list.ids[k])] &&
        (table < 0 || b.table_of[column] == static_cast<std::size_t>(table)))
      ids.push_back(list.ids[k]);
  }
  return ids.empty() ? "" : "  rows selected a block at a time by: " + terms_text(Q, ids) + "\n";
}

/// An estimate of work (rows scanned, probes, chain entries, index rows built) in three
/// significant digits: "4.31e+06".
inline std::string work_text(double work) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", work);
  return text;
}

/// The lines after the scan and the joins: grouping, aggregates, HAVING, order, limit.
inline std::string tail_text(const query& q) {
  std::string text;
  if (q.group_count > 0) {
    text += "group by ";
    for (int k = 0; k < q.group_count; ++k) text += (k ? ", " : "") + to_sql(q, q.group_by[k]);
    text += "\n";
  }
  if (q.aggregate_count > 0) {
    text += q.group_count > 0 ? "aggregates per group: " : "aggregates over all rows: ";
    for (int a = 0; a < q.aggregate_count; ++a)
      text += (a ? ", " : "") + to_sql(q, q.aggregates[a]);
    text += "\n";
  }
  if (q.having >= 0) text += "having " + to_sql(q, q.having) + "\n";
  text += "result: ";
  for (int s = 0; s < q.select_count; ++s) {
    const select_item& item = q.select[s];
    const node& n = q.nodes[item.expr];
    const std::string expr = to_sql(q, item.expr);
    text += (s ? ", " : "") + expr;
    // `AS name` when the name is not plain from the expression (`m.name` is called name)
    if (expr != item.name && !(n.kind == node_kind::column && n.text == item.name))
      text += " AS " + std::string(item.name);
  }
  text += "\n";
  if (q.order_count > 0) {
    text += "order by ";
    for (int k = 0; k < q.order_count; ++k)
      text += (k ? ", " : "") + std::string(q.select[q.order_by[k].output].name) +
              (q.order_by[k].descending ? " DESC" : "");
    text += "\n";
  }
  if (q.limit >= 0) text += "limit " + std::to_string(q.limit) + "\n";
  return text;
}

}  // namespace detail

/// The plan that `run<Q>` follows over `tables` (the FROM entries in order), one step a line:
/// the scanned table with its filters and the column bounds that select its rows a block at a
/// time; each joined table in join order with its key equalities
/// (an array indexed by a dense integer key, or a hash map; further key columns compared), the
/// terms that filter it before the join and those tested once its rows are joined; then the
/// grouping keys, the aggregates, HAVING, the result columns, ORDER BY and LIMIT. Expressions
/// are printed as SQL in the query's names (a derived table's columns as their expressions).
/// The plan is the one chosen for these tables: the join order and the keys depend on their
/// sizes and key ranges. Throws as `run` does for an unknown column.
template <const query& Q>
std::string explain(const std::vector<const relational::table*>& tables,
                    const database* db = nullptr) {
  static_assert(Q.ok(), "loom::sql: the query does not parse (loom::sql reports where)");
  if (tables.size() != static_cast<std::size_t>(Q.table_count))
    throw relational::column_error("loom::sql: the query reads " + std::to_string(Q.table_count) +
                                   " tables, but " + std::to_string(tables.size()) + " were given");
  const auto b = detail::bind(Q, tables);
  std::string text;
  auto rows = [&](std::size_t t) { return " (" + std::to_string(tables[t]->rows()) + " rows)"; };
  if constexpr (Q.table_count == 1) {
    (void)db;
    text += "scan " + detail::table_text(Q, 0) + rows(0) + "\n";
    if (Q.where >= 0) text += "  filter: " + to_sql(Q, Q.where) + "\n";
    text += detail::bounds_text<Q>(*b, -1);
  } else {
    const detail::join_scan<Q> scan(*b, tables, db);
    constexpr auto& terms = detail::conjuncts<Q>;
    constexpr std::size_t T = static_cast<std::size_t>(Q.table_count);
    auto stage_terms = [&](int stage) {
      std::vector<int> ids;
      for (int k = 0; k < terms.count; ++k)
        if (scan.stage_of[static_cast<std::size_t>(k)] == stage) ids.push_back(terms.ids[k]);
      return ids;
    };
    const std::size_t start = scan.order[0];
    detail::join_context c{*b, {}};
    const auto probes_at = scan.probes_reaching(c);
    text += "scan " + detail::table_text(Q, start) + rows(start) + "\n";
    if (const auto own = stage_terms(0); !own.empty())
      text += "  filter: " + detail::terms_text(Q, own) + "\n";
    text += detail::bounds_text<Q>(*b, static_cast<std::ptrdiff_t>(start));
    for (std::size_t s = 1; s < T; ++s) {
      const std::size_t t = scan.order[s];
      const auto& key = scan.keys[s];
      text += "join " + detail::table_text(Q, t) + rows(t) + " on ";
      for (int j = 0; j < key.count; ++j) {
        const auto at = static_cast<std::size_t>(j);
        text += (j ? ", " : "") + to_sql(Q, key.build[at]) + " = " + to_sql(Q, key.probe[at]);
      }
      text += scan.merges(s)   ? " (merged: both ascend)\n"
              : !key.dense     ? " (hashed)\n"
              : key.count == 1 ? " (array-indexed)\n"
                               : " (array-indexed by the first, the others compared)\n";
      if (scan.first_asks(s, scan.uses_kept_index(s, c, probes_at[s]), probes_at[s], false))
        text += scan.searches(s, probes_at[s])
                    ? "  first run: searches the ascending key column for each probe (no "
                      "index built); a query that asks again builds the kept index\n"
                    : "  first run: indexes only the rows whose key the scan probes (a "
                      "semi-join); a query that asks again builds the kept index\n";
      if (const auto own = stage_terms(static_cast<int>(T + t)); !own.empty())
        text += "  filter " + detail::table_text(Q, t) + ": " + detail::terms_text(Q, own) + "\n";
      if (const auto joined = stage_terms(static_cast<int>(s)); !joined.empty())
        text += "  test joined rows: " + detail::terms_text(Q, joined) + "\n";
      if (scan.may_narrow(s, probes_at))
        text += "  semi-join: indexes only the rows with a partner in " +
                detail::table_text(Q, scan.order[s + 1]) + " (when a quarter or more have none)\n";
    }
    if (!std::isnan(scan.estimated_work)) {
      text += "estimated work " + detail::work_text(scan.estimated_work);
      if (scan.runner_up < T)
        text += "; scanning " + detail::table_text(Q, scan.runner_up) +
                " first instead: " + detail::work_text(scan.runner_up_work);
      text += "\n";
    }
  }
  return text + detail::tail_text(Q);
}

/// The plan of Q over table `t`, whatever FROM calls it (one table in FROM).
template <const query& Q> std::string explain(const relational::table& t) {
  static_assert(Q.table_count == 1,
                "loom::sql: the query joins tables; pass a sql_database that holds them");
  return explain<Q>(std::vector<const relational::table*>{&t});
}

/// The plan of Q over the tables its FROM clause names in `db`.
template <const query& Q> std::string explain(const database& db) {
  std::vector<const relational::table*> tables;
  for (int t = 0; t < Q.table_count; ++t) tables.push_back(&db[Q.tables[t].name]);
  return explain<Q>(tables, &db);
}

}  // namespace loom::sql_compiler

#endif  // LOOM_SQL_EXPLAIN_HPP
