// Defines loom::sql_compiler::parse: a constexpr lexer and recursive-descent parser of SQL
// SELECT statements into a sql_compiler::query, usable in constant expressions (loom::sql) and
// at run time alike (sql/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_SQL_PARSER_HPP
#define LOOM_SQL_PARSER_HPP

#include <loom/core/error.hpp>
#include <loom/relational/date.hpp>
#include <loom/sql/ast.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace loom::sql_compiler {

namespace detail {

constexpr char lower(char ch) { return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch; }
constexpr bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
constexpr bool is_word_start(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
constexpr bool is_word(char ch) { return is_word_start(ch) || is_digit(ch); }
constexpr bool is_space(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}
/// Case-insensitive equality with a lower-case keyword.
constexpr bool same_word(std::string_view text, std::string_view keyword) {
  if (text.size() != keyword.size()) return false;
  for (std::size_t k = 0; k < text.size(); ++k)
    if (lower(text[k]) != keyword[k]) return false;
  return true;
}

// Words that never name a column or table, so that `SELECT a FROM t` cannot read FROM as an
// alias of a.
inline constexpr std::string_view reserved_words[] = {
    "select", "from",    "where",    "group", "by",   "order",    "limit",  "and",  "or",
    "not",    "between", "in",       "like",  "as",   "case",     "when",   "then", "else",
    "end",    "date",    "interval", "asc",   "desc", "distinct", "having", "join", "on"};
constexpr bool is_reserved(std::string_view word) {
  for (std::string_view r : reserved_words)
    if (same_word(word, r)) return true;
  return false;
}

/// 10^k as a double; exact up to 10^22, so literals of up to 15 significant digits are
/// correctly rounded (m / 10^k with both exact).
constexpr double power_of_ten(int k) {
  double p = 1;
  for (int i = 0; i < k && i < 400; ++i) p *= 10;
  return p;
}

enum class token_kind : unsigned char {
  end,
  word,
  number,
  string,
  comma,
  dot,
  open,
  close,
  plus,
  minus,
  star,
  slash,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  semicolon,
  invalid
};

struct token {
  token_kind kind = token_kind::end;
  int offset = 0;
  int length = 0;
  std::string_view text;  // a word; a string's characters between the quotes
  double number = 0;
  bool integer = false;
  bool exact = false;  // number == mantissa * 10^exponent exactly (no digit dropped)
  std::int64_t mantissa = 0;
  int exponent = 0;
};

/// Splits the text into tokens; skips blanks, `-- line` and `/* block */` comments.
class lexer {
 public:
  constexpr explicit lexer(std::string_view text) : text_(text) {}

  /// The next token; an invalid one sets `error` and `error_offset`.
  constexpr token next() {
    token t = scan();
    t.length = static_cast<int>(pos_) - t.offset;
    return t;
  }

  error_code error = error_code::none;
  int error_offset = 0;

 private:
  constexpr token scan() {
    skip_blanks();
    token t;
    t.offset = static_cast<int>(pos_);
    if (error != error_code::none) return invalid(t);
    if (pos_ >= text_.size()) return t;
    const char ch = text_[pos_];
    if (is_word_start(ch)) {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && is_word(text_[pos_])) ++pos_;
      t.kind = token_kind::word;
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
    if (is_digit(ch) || (ch == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1])))
      return number(t);
    if (ch == '\'') return string(t);
    ++pos_;
    const char two = pos_ < text_.size() ? text_[pos_] : '\0';
    switch (ch) {
      case ',':
        t.kind = token_kind::comma;
        return t;
      case '.':
        t.kind = token_kind::dot;
        return t;
      case '(':
        t.kind = token_kind::open;
        return t;
      case ')':
        t.kind = token_kind::close;
        return t;
      case '+':
        t.kind = token_kind::plus;
        return t;
      case '-':
        t.kind = token_kind::minus;
        return t;
      case '*':
        t.kind = token_kind::star;
        return t;
      case '/':
        t.kind = token_kind::slash;
        return t;
      case ';':
        t.kind = token_kind::semicolon;
        return t;
      case '=':
        t.kind = token_kind::eq;
        return t;
      case '!':
        if (two == '=') {
          ++pos_;
          t.kind = token_kind::ne;
          return t;
        }
        break;
      case '<':
        if (two == '=' || two == '>') {
          ++pos_;
          t.kind = two == '=' ? token_kind::le : token_kind::ne;
          return t;
        }
        t.kind = token_kind::lt;
        return t;
      case '>':
        if (two == '=') {
          ++pos_;
          t.kind = token_kind::ge;
          return t;
        }
        t.kind = token_kind::gt;
        return t;
      default:
        break;
    }
    return fail(t, error_code::unexpected_character, t.offset);
  }

  constexpr token invalid(token t) {
    t.kind = token_kind::invalid;
    return t;
  }
  constexpr token fail(token t, error_code e, int offset) {
    if (error == error_code::none) {
      error = e;
      error_offset = offset;
    }
    pos_ = text_.size();
    return invalid(t);
  }

  constexpr void skip_blanks() {
    while (pos_ < text_.size()) {
      if (is_space(text_[pos_])) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "--") {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        const std::size_t close = text_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) {
          if (error == error_code::none) {
            error = error_code::unterminated_comment;
            error_offset = static_cast<int>(pos_);
          }
          pos_ = text_.size();
          return;
        }
        pos_ = close + 2;
      } else {
        return;
      }
    }
  }

  constexpr token number(token t) {
    std::uint64_t mantissa = 0;
    int digits = 0, exponent = 0;
    bool integer = true, dropped = false;
    auto take_digit = [&](char ch, bool fraction) {
      if (digits < 18) {
        mantissa = mantissa * 10 + static_cast<std::uint64_t>(ch - '0');
        if (mantissa != 0) ++digits;
        if (fraction) --exponent;
      } else {
        dropped = dropped || ch != '0';
        if (!fraction) ++exponent;  // digits past 18 only scale the value
      }
    };
    while (pos_ < text_.size() && is_digit(text_[pos_])) take_digit(text_[pos_++], false);
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integer = false;
      ++pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) take_digit(text_[pos_++], true);
    }
    if (pos_ < text_.size() && lower(text_[pos_]) == 'e') {
      integer = false;
      ++pos_;
      bool negative = false;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        negative = text_[pos_++] == '-';
      if (pos_ >= text_.size() || !is_digit(text_[pos_]))
        return fail(t, error_code::malformed_number, t.offset);
      int e = 0;
      while (pos_ < text_.size() && is_digit(text_[pos_])) {
        if (e < 10000) e = e * 10 + (text_[pos_] - '0');
        ++pos_;
      }
      exponent += negative ? -e : e;
    }
    if (pos_ < text_.size() && (is_word(text_[pos_]) || text_[pos_] == '.'))
      return fail(t, error_code::malformed_number, t.offset);
    const double m = static_cast<double>(mantissa);
    t.kind = token_kind::number;
    t.integer = integer;
    t.number = mantissa == 0   ? 0.0
               : exponent >= 0 ? m * power_of_ten(exponent)
                               : m / power_of_ten(-exponent);
    t.exact = !dropped && exponent >= -18 && exponent <= 18;
    t.mantissa = static_cast<std::int64_t>(mantissa);
    t.exponent = exponent;
    return t;
  }

  constexpr token string(token t) {
    const std::size_t start = ++pos_;
    while (pos_ < text_.size()) {
      if (text_[pos_] == '\'') {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '\'') {
          pos_ += 2;  // '' is a quote inside the string
          continue;
        }
        t.kind = token_kind::string;
        t.text = text_.substr(start, pos_ - start);
        ++pos_;
        return t;
      }
      ++pos_;
    }
    return fail(t, error_code::unterminated_string, t.offset);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

/// The day `months` months after `day`, the day of the month clamped to the month's last.
constexpr std::int64_t add_months(std::int64_t day, std::int64_t months) {
  const relational::civil_date c = relational::civil_from_days(day);
  std::int64_t m = c.month - 1 + months;
  std::int64_t y = c.year + (m >= 0 ? m / 12 : -((11 - m) / 12));
  m -= (y - c.year) * 12;
  constexpr int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int last = month_days[m] + (m == 1 && relational::is_leap_year(y) ? 1 : 0);
  return relational::days_from_civil(y, static_cast<int>(m + 1), c.day < last ? c.day : last);
}

// `derived`: the select list and WHERE of a derived table in FROM.
enum class clause : unsigned char { select, from, where, group_by, having, order_by, derived };

class parser {
 public:
  constexpr explicit parser(std::string_view text) : text_(text), lexer_(text) { advance(); }

  constexpr query run() {
    parse_query();
    if (lexer_.error != error_code::none &&
        (q_.error == error_code::none || lexer_.error_offset <= q_.error_offset)) {
      q_.error = lexer_.error;
      q_.error_offset = lexer_.error_offset;
    }
    if (q_.error != error_code::none) {
      const error_code e = q_.error;
      const int at = q_.error_offset;
      q_ = query{};  // a rejected text leaves no half-built tree
      q_.error = e;
      q_.error_offset = at;
    }
    return q_;
  }

 private:
  // ---- tokens ---------------------------------------------------------------------------
  constexpr void advance() {
    previous_end_ = tok_.kind == token_kind::end ? previous_end_ : tok_.offset + tok_.length;
    tok_ = lexer_.next();
  }
  constexpr bool keyword(std::string_view kw) const {
    return tok_.kind == token_kind::word && same_word(tok_.text, kw);
  }
  constexpr bool accept_keyword(std::string_view kw) {
    if (!keyword(kw)) return false;
    advance();
    return true;
  }
  constexpr bool accept(token_kind k) {
    if (tok_.kind != k) return false;
    advance();
    return true;
  }
  /// The token after the current one, without consuming anything.
  constexpr token peek() const {
    lexer copy = lexer_;
    return copy.next();
  }
  constexpr bool is_name() const {
    return tok_.kind == token_kind::word && !is_reserved(tok_.text);
  }

  // ---- errors ---------------------------------------------------------------------------
  constexpr bool failed() const { return q_.error != error_code::none; }
  constexpr int fail(error_code e, int offset) {
    if (!failed()) {
      q_.error = e;
      q_.error_offset = offset;
    }
    return -1;
  }
  constexpr int fail_here(error_code e) {
    // A lexer error at this token explains it better than the parser's expectation.
    return fail(tok_.kind == token_kind::invalid ? lexer_.error : e,
                tok_.kind == token_kind::invalid ? lexer_.error_offset : tok_.offset);
  }

  // ---- nodes ----------------------------------------------------------------------------
  constexpr int add(node n) {
    if (failed()) return -1;
    if (q_.node_count == max_nodes) return fail(error_code::too_many_nodes, n.offset);
    const int id = q_.node_count++;
    clause_of_[id] = clause_;
    inside_aggregate_[id] = in_aggregate_;
    q_.nodes[id] = n;
    return id;
  }
  constexpr int binary(node_kind k, int lhs, int rhs, int offset) {
    if (lhs < 0 || rhs < 0) return -1;
    if (node folded; fold_decimal(k, at(lhs), at(rhs), folded)) return add(folded);
    node n;
    n.kind = k;
    n.a = lhs;
    n.b = rhs;
    n.offset = offset;
    return add(n);
  }
  constexpr const node& at(int id) const { return q_.nodes[id]; }

  /// `a + b`, `a - b` or `a * b` of two exact number literals as one number literal, computed
  /// exactly: TPC-H Q6's `0.06 + 0.01` is 0.07, as in SQL's DECIMAL arithmetic, not the double
  /// 0.06999999999999999 (which would leave out the rows whose discount is 0.07). False when a
  /// side is not such a literal or the exact result needs more than 18 digits.
  static constexpr bool fold_decimal(node_kind k, const node& a, const node& b, node& out) {
    if (k != node_kind::add && k != node_kind::subtract && k != node_kind::multiply) return false;
    if (a.kind != node_kind::number || b.kind != node_kind::number || !a.exact || !b.exact)
      return false;
    constexpr std::int64_t limit = 100'000'000'000'000'000;  // 10^17: no overflow below
    std::int64_t ma = a.mantissa, mb = b.mantissa, m = 0;
    int e = 0;
    if (k == node_kind::multiply) {
      if (ma > 999'999'999 || ma < -999'999'999 || mb > 999'999'999 || mb < -999'999'999)
        return false;
      m = ma * mb;
      e = a.exponent + b.exponent;
    } else {
      e = a.exponent < b.exponent ? a.exponent : b.exponent;
      // aligned to the smaller exponent; checked before each step, which would overflow from
      // an 18-digit mantissa
      for (int s = a.exponent; s > e; --s, ma *= 10)
        if (ma >= limit / 10 || ma <= -limit / 10) return false;
      for (int s = b.exponent; s > e; --s, mb *= 10)
        if (mb >= limit / 10 || mb <= -limit / 10) return false;
      m = k == node_kind::add ? ma + mb : ma - mb;
    }
    const std::int64_t magnitude = m < 0 ? -m : m;
    if (magnitude >= (std::int64_t{1} << 53) || e < -22 || e > 22) return false;
    out = node{};
    out.kind = node_kind::number;
    out.integer = a.integer && b.integer;
    out.exact = e >= -18 && e <= 18;
    out.mantissa = m;
    out.exponent = e;
    // one correctly rounded operation on exact doubles: the double nearest the decimal
    const double dm = static_cast<double>(m);
    out.number = e >= 0 ? dm * power_of_ten(e) : dm / power_of_ten(-e);
    out.offset = a.offset;
    return true;
  }

  /// Checks that `id` is a value (not a condition); strings only where `string_ok`.
  constexpr int value(int id, bool string_ok = false) {
    if (id < 0) return -1;
    if (is_condition(at(id).kind))
      return fail(error_code::expected_value_not_condition, at(id).offset);
    if (!string_ok && at(id).kind == node_kind::string)
      return fail(error_code::string_outside_comparison, at(id).offset);
    return id;
  }
  constexpr int condition(int id) {
    if (id < 0) return -1;
    if (!is_condition(at(id).kind)) return fail(error_code::expected_condition, at(id).offset);
    return id;
  }
  /// A comparison with a string literal needs a column on the other side (compared by codes).
  constexpr int string_operands(int lhs, int rhs) {
    if (lhs < 0 || rhs < 0) return -1;
    const bool ls = at(lhs).kind == node_kind::string, rs = at(rhs).kind == node_kind::string;
    if (ls && at(rhs).kind != node_kind::column)
      return fail(error_code::string_needs_column, at(lhs).offset);
    if (rs && at(lhs).kind != node_kind::column)
      return fail(error_code::string_needs_column, at(rhs).offset);
    return 0;
  }

  // ---- statement ------------------------------------------------------------------------
  constexpr void parse_query() {
    if (!accept_keyword("select")) {
      fail_here(error_code::expected_select);
      return;
    }
    clause_ = clause::select;
    do {
      if (q_.select_count == max_select_items) {
        fail_here(error_code::too_many_select_items);
        return;
      }
      select_item& item = q_.select[q_.select_count];
      const int start = tok_.offset;
      item.expr = value(parse_expression());
      if (failed()) return;
      item.source = text_.substr(static_cast<std::size_t>(start),
                                 static_cast<std::size_t>(previous_end_ - start));
      if (accept_keyword("as")) {
        if (!is_name()) {
          fail_here(error_code::expected_alias);
          return;
        }
        item.alias = tok_.text;
        advance();
      } else if (is_name()) {
        item.alias = tok_.text;
        advance();
      }
      item.name = !item.alias.empty()                       ? item.alias
                  : at(item.expr).kind == node_kind::column ? at(item.expr).text
                                                            : item.source;
      ++q_.select_count;
    } while (accept(token_kind::comma));

    if (!accept_keyword("from")) {
      fail_here(error_code::expected_from);
      return;
    }
    clause_ = clause::from;
    int on = -1;
    if (tok_.kind == token_kind::open) {
      parse_derived_table();
      if (failed()) return;
      if (tok_.kind == token_kind::comma || keyword("join") || joins_with("inner") ||
          joins_with("cross")) {
        fail_here(error_code::derived_table_not_alone);
        return;
      }
    } else {
      on = parse_tables();
      if (failed()) return;
    }

    if (accept_keyword("where")) {
      clause_ = clause::where;
      q_.where = condition(parse_expression());
      if (failed()) return;
    }
    if (on >= 0)
      q_.where = q_.where < 0 ? on : binary(node_kind::logical_and, on, q_.where, at(on).offset);
    if (accept_keyword("group")) {
      if (!accept_keyword("by")) {
        fail_here(error_code::expected_by);
        return;
      }
      clause_ = clause::group_by;
      do {
        if (q_.group_count == max_group_keys) {
          fail_here(error_code::too_many_group_keys);
          return;
        }
        const int key = value(parse_expression());
        if (failed()) return;
        if (at(key).kind != node_kind::column) {
          fail(error_code::group_by_takes_columns, at(key).offset);
          return;
        }
        q_.group_by[q_.group_count++] = key;
      } while (accept(token_kind::comma));
    }
    if (accept_keyword("having")) {
      clause_ = clause::having;
      q_.having = condition(parse_expression());
      if (failed()) return;
    }
    if (accept_keyword("order")) {
      if (!accept_keyword("by")) {
        fail_here(error_code::expected_by);
        return;
      }
      clause_ = clause::order_by;
      do {
        if (q_.order_count == max_order_keys) {
          fail_here(error_code::too_many_order_keys);
          return;
        }
        const int start = tok_.offset, nodes_before = q_.node_count;
        const int e = value(parse_expression());
        if (failed()) return;
        const std::string_view source = text_.substr(
            static_cast<std::size_t>(start), static_cast<std::size_t>(previous_end_ - start));
        order_key& k = q_.order_by[q_.order_count++];
        k.output = resolve_order(e, source);
        if (failed()) return;
        q_.node_count = nodes_before;  // the key names a result column: its nodes are not run
        if (accept_keyword("desc"))
          k.descending = true;
        else
          accept_keyword("asc");
      } while (accept(token_kind::comma));
    }
    if (accept_keyword("limit")) {
      if (tok_.kind != token_kind::number || !tok_.integer || tok_.number > 9.0e15) {
        fail_here(error_code::expected_limit_count);
        return;
      }
      q_.limit = static_cast<std::int64_t>(tok_.number);
      advance();
    }
    accept(token_kind::semicolon);
    if (tok_.kind != token_kind::end) {
      fail_here(error_code::expected_end_of_query);
      return;
    }
    substitute_derived();
    if (!failed()) factor_where();
    if (!failed()) check();
    if (!failed() && q_.table_count >= 2) check_join_graph();
    if (!failed() && (has_derived_ || rewritten_)) renumber();
  }

  /// The entries of FROM: `name [[AS] alias]`, separated by commas or joined by `[INNER] JOIN
  /// name [[AS] alias] ON condition` and `CROSS JOIN name [[AS] alias]`. An inner join's ON
  /// condition means what it means in WHERE, so the conditions are returned ANDed (-1 when there
  /// is none) for the caller to AND with its WHERE; the join order is still the planner's.
  constexpr int parse_tables() {
    int on = -1;
    do {
      parse_table_ref();
      while (!failed()) {
        const int at_join = tok_.offset;
        const bool cross = joins_with("cross");
        if (!cross && !joins_with("inner") && !keyword("join")) {
          if (joins_with("left") || joins_with("right") || joins_with("full") ||
              joins_with("natural"))
            fail_here(error_code::join_kind_not_supported);
          break;
        }
        if (!keyword("join")) advance();  // CROSS or INNER
        advance();                        // JOIN
        parse_table_ref();
        if (failed() || cross) continue;
        if (!accept_keyword("on")) {
          fail_here(error_code::expected_on);
          break;
        }
        const clause outer = clause_;
        if (clause_ == clause::from) clause_ = clause::where;  // a derived table's stay its own
        const int c = condition(parse_expression());
        clause_ = outer;
        on = on < 0 ? c : binary(node_kind::logical_and, on, c, at_join);
      }
    } while (!failed() && accept(token_kind::comma));
    return failed() ? -1 : on;
  }

  /// Whether the current word, not reserved (it may name a table elsewhere), is followed by
  /// JOIN or OUTER: `LEFT JOIN`, `LEFT OUTER JOIN`.
  constexpr bool joins_with(std::string_view word) const {
    if (!keyword(word)) return false;
    const token next = peek();
    return next.kind == token_kind::word &&
           (same_word(next.text, "join") || same_word(next.text, "outer"));
  }

  /// `name [[AS] alias]`: one table of FROM.
  constexpr void parse_table_ref() {
    if (q_.table_count == max_tables) {
      fail_here(error_code::too_many_tables);
      return;
    }
    if (!is_name()) {
      fail_here(error_code::expected_table_name);
      return;
    }
    table_ref& t = q_.tables[q_.table_count++];
    t.name = tok_.text;
    t.offset = tok_.offset;
    advance();
    if (accept_keyword("as")) {
      if (!is_name()) {
        fail_here(error_code::expected_alias);
        return;
      }
      t.alias = tok_.text;
      advance();
    } else if (is_name() && !joins_with("cross") && !joins_with("inner") && !joins_with("left") &&
               !joins_with("right") && !joins_with("full") && !joins_with("natural")) {
      t.alias = tok_.text;
      advance();
    }
  }

  /// `(SELECT expr [AS] name, ... FROM tables [WHERE condition]) [AS] alias`: a derived table
  /// without aggregates, inlined. Its tables become the query's, its WHERE is ANDed with the
  /// outer one, and the outer query's references to its columns become its expressions
  /// (`substitute_derived`), so nothing is materialised.
  constexpr void parse_derived_table() {
    const int at_open = tok_.offset;
    advance();
    if (++depth_ > max_depth) {
      fail(error_code::nesting_too_deep, at_open);
      return;
    }
    if (!accept_keyword("select")) {
      fail_here(error_code::expected_select);
      return;
    }
    clause_ = clause::derived;
    do {
      if (derived_count_ == max_select_items) {
        fail_here(error_code::too_many_select_items);
        return;
      }
      const int start = tok_.offset;
      const int expr = value(parse_expression());
      if (failed()) return;
      std::string_view name = text_.substr(static_cast<std::size_t>(start),
                                           static_cast<std::size_t>(previous_end_ - start));
      if (accept_keyword("as")) {
        if (!is_name()) {
          fail_here(error_code::expected_alias);
          return;
        }
        name = tok_.text;
        advance();
      } else if (is_name()) {
        name = tok_.text;
        advance();
      } else if (at(expr).kind == node_kind::column) {
        name = at(expr).text;
      }
      for (int d = 0; d < derived_count_; ++d)
        if (derived_name_[d] == name) {
          fail(error_code::duplicate_output_name, at(expr).offset);
          return;
        }
      derived_name_[derived_count_] = name;
      derived_expr_[derived_count_++] = expr;
    } while (accept(token_kind::comma));
    if (!accept_keyword("from")) {
      fail_here(error_code::expected_from);
      return;
    }
    const int on = parse_tables();
    if (failed()) return;
    derived_where_ = on;
    if (accept_keyword("where")) {
      const int where = condition(parse_expression());
      if (failed()) return;
      derived_where_ = on < 0 ? where : binary(node_kind::logical_and, on, where, at(on).offset);
    }
    if (!accept(token_kind::close)) {
      fail_here(error_code::expected_closing_parenthesis);
      return;
    }
    --depth_;
    clause_ = clause::from;
    has_derived_ = true;
    if (accept_keyword("as")) {
      if (!is_name()) {
        fail_here(error_code::expected_alias);
        return;
      }
      derived_alias_ = tok_.text;
      advance();
    } else if (is_name()) {
      derived_alias_ = tok_.text;
      advance();
    }
  }

  /// Replaces each outer reference to a derived table's column by a copy of its expression
  /// (the copy's children are the derived table's nodes, shared), and ANDs the derived WHERE
  /// with the outer one.
  constexpr void substitute_derived() {
    if (!has_derived_) return;
    for (int id = 0; id < q_.node_count && !failed(); ++id) {
      const node n = at(id);
      if (n.kind != node_kind::column || clause_of_[id] == clause::derived) continue;
      if (!n.qualifier.empty() && n.qualifier != derived_alias_) {
        fail(error_code::unknown_table_alias, n.offset);
        return;
      }
      int d = 0;
      while (d < derived_count_ && derived_name_[d] != n.text) ++d;
      if (d == derived_count_) {
        fail(error_code::column_not_in_derived_table, n.offset);
        return;
      }
      node copy = at(derived_expr_[d]);
      copy.offset = n.offset;
      copy.next = n.next;  // an IN list's item keeps its place in the list
      copy.slot = n.slot;
      q_.nodes[id] = copy;
      derived_of_[id] = d + 1;
    }
    // A string literal is compared with a column: the reference must have become one.
    for (int id = 0; id < q_.node_count && !failed(); ++id) {
      const node& n = at(id);
      if (is_comparison(n.kind))
        string_operands(n.a, n.b);
      else if ((n.kind == node_kind::like ||
                (n.kind == node_kind::in_list && at(n.b).kind == node_kind::string)) &&
               at(n.a).kind != node_kind::column)
        fail(error_code::string_needs_column, at(n.a).offset);
    }
    if (derived_where_ >= 0)
      q_.where = q_.where < 0 ? derived_where_
                              : binary(node_kind::logical_and, derived_where_, q_.where,
                                       at(derived_where_).offset);
  }

  /// Whether the subtrees x and y compute the same thing: the same text up to spacing, or
  /// an equality written the other way round (`a.k = b.k`, `b.k = a.k`).
  constexpr bool same_tree(int x, int y, int depth = 0) const {
    if (x < 0 || y < 0) return x == y;
    if (x == y) return true;
    if (depth > 2 * max_depth + 8) return false;
    const node &m = at(x), &n = at(y);
    if (m.kind != n.kind || m.text != n.text || m.qualifier != n.qualifier ||
        m.number != n.number || m.integer != n.integer || !same_tree(m.c, n.c, depth + 1) ||
        !same_tree(m.next, n.next, depth + 1))
      return false;
    if (same_tree(m.a, n.a, depth + 1) && same_tree(m.b, n.b, depth + 1)) return true;
    return (m.kind == node_kind::eq || m.kind == node_kind::ne) && same_tree(m.a, n.b, depth + 1) &&
           same_tree(m.b, n.a, depth + 1);
  }

  /// The terms of a chain of `kind` (AND or OR) under `id`, left to right, into `out`.
  constexpr int flatten(node_kind kind, int id, int* out, int count) const {
    if (at(id).kind != kind) {
      out[count] = id;
      return count + 1;
    }
    return flatten(kind, at(id).b, out, flatten(kind, at(id).a, out, count));
  }
  /// The AND of `terms[0..count)`, or -1 for none.
  constexpr int conjunction(const int* terms, int count) {
    int id = count > 0 ? terms[0] : -1;
    for (int k = 1; k < count && !failed(); ++k)
      id = binary(node_kind::logical_and, id, terms[k], at(terms[k]).offset);
    return id;
  }

  /// `(a AND x) OR (a AND y)` becomes `a AND (x OR y)`: a term common to every branch of an OR
  /// (TPC-H Q19's `p_partkey = l_partkey`) is a term of WHERE of its own, so an equality of
  /// columns becomes a join key and a filter of one table filters it before the join.
  constexpr int factor_or(int id) {
    int branches[max_nodes]{};
    const int branch_count = flatten(node_kind::logical_or, id, branches, 0);
    int terms[max_nodes]{}, first[max_nodes + 1]{};
    int term_count = 0;
    for (int k = 0; k < branch_count; ++k) {
      first[k] = term_count;
      term_count = flatten(node_kind::logical_and, branches[k], terms, term_count);
    }
    first[branch_count] = term_count;
    auto in_branch = [&](int term, int k) {
      for (int j = first[k]; j < first[k + 1]; ++j)
        if (same_tree(term, terms[j])) return true;
      return false;
    };
    int common[max_nodes]{};
    int common_count = 0;
    for (int j = first[0]; j < first[1]; ++j) {
      bool everywhere = true;
      for (int k = 1; k < branch_count && everywhere; ++k) everywhere = in_branch(terms[j], k);
      for (int c = 0; c < common_count && everywhere; ++c)
        everywhere = !same_tree(common[c], terms[j]);
      if (everywhere) common[common_count++] = terms[j];
    }
    if (common_count == 0) return id;
    int rest = -1;
    bool always = false;  // a branch that is only common terms makes the OR true
    for (int k = 0; k < branch_count && !always && !failed(); ++k) {
      int left[max_nodes]{};
      int left_count = 0;
      for (int j = first[k]; j < first[k + 1]; ++j) {
        bool shared = false;
        for (int c = 0; c < common_count && !shared; ++c) shared = same_tree(common[c], terms[j]);
        if (!shared) left[left_count++] = terms[j];
      }
      always = left_count == 0;
      const int branch = conjunction(left, left_count);
      rest = rest < 0 ? branch : binary(node_kind::logical_or, rest, branch, at(id).offset);
    }
    if (failed()) return -1;  // too many nodes for the factored terms
    if (!always) common[common_count++] = rest;
    return conjunction(common, common_count);
  }

  /// The qualifier every column under `id` is named with: "" when there is no column, "*" when
  /// a column has none or they differ.
  constexpr std::string_view qualifier_of(int id, int depth = 0) const {
    if (id < 0) return "";
    if (depth > 2 * max_depth + 8) return "*";
    const node& n = at(id);
    if (n.kind == node_kind::column) return n.qualifier.empty() ? "*" : n.qualifier;
    std::string_view q;
    for (const int child : {n.a, n.b, n.c, n.next}) {
      const std::string_view c = qualifier_of(child, depth + 1);
      if (c.empty()) continue;
      if (c == "*" || (!q.empty() && c != q)) return "*";
      q = c;
    }
    return q;
  }

  /// The filters an OR implies for single tables, appended to `out` (from `count` on; the new
  /// count is returned). When every branch has terms that read only the columns of one table
  /// named with its qualifier (TPC-H Q7: `(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR
  /// (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')`), the OR of those terms holds for that
  /// table (`n1.n_name = 'FRANCE' OR n1.n_name = 'GERMANY'`): a term of WHERE of its own, it
  /// filters the table before the join. The OR itself stays, tested on the joined rows.
  constexpr int implied_filters(int id, int* out, int count) {
    int branches[max_nodes]{};
    const int branch_count = flatten(node_kind::logical_or, id, branches, 0);
    int terms[max_nodes]{}, first[max_nodes + 1]{};
    int term_count = 0;
    for (int k = 0; k < branch_count; ++k) {
      first[k] = term_count;
      term_count = flatten(node_kind::logical_and, branches[k], terms, term_count);
    }
    first[branch_count] = term_count;
    for (int j = first[0]; j < first[1] && !failed(); ++j) {
      const std::string_view q = qualifier_of(terms[j]);
      if (q.empty() || q == "*") continue;
      bool seen = false;  // a qualifier handled already, from an earlier term of branch 0
      for (int i = first[0]; i < j && !seen; ++i) seen = qualifier_of(terms[i]) == q;
      bool every_branch = !seen;
      for (int k = 1; k < branch_count && every_branch; ++k) {
        bool found = false;
        for (int i = first[k]; i < first[k + 1] && !found; ++i) found = qualifier_of(terms[i]) == q;
        every_branch = found;
      }
      bool all_of_q = true;  // then the OR itself reads only q: nothing new is implied
      for (int i = first[0]; i < term_count && all_of_q; ++i)
        all_of_q = qualifier_of(terms[i]) == q;
      if (!every_branch || all_of_q) continue;
      int implied = -1;
      for (int k = 0; k < branch_count && !failed(); ++k) {
        int own[max_nodes]{};
        int own_count = 0;
        for (int i = first[k]; i < first[k + 1]; ++i)
          if (qualifier_of(terms[i]) == q) own[own_count++] = terms[i];
        const int branch = conjunction(own, own_count);
        implied =
            implied < 0 ? branch : binary(node_kind::logical_or, implied, branch, at(id).offset);
      }
      if (!failed() && count < max_nodes) out[count++] = implied;
    }
    return count;
  }

  /// Factors every OR that is a term of WHERE (`factor_or`), then adds the filters each OR
  /// implies for single tables (`implied_filters`).
  constexpr void factor_where() {
    if (q_.where < 0) return;
    int terms[max_nodes]{};
    int count = flatten(node_kind::logical_and, q_.where, terms, 0);
    const int nodes_before = q_.node_count;
    bool changed = false;
    for (int k = 0; k < count && !failed(); ++k) {
      if (at(terms[k]).kind != node_kind::logical_or) continue;
      const int factored = factor_or(terms[k]);
      changed = changed || factored != terms[k];
      terms[k] = factored;
    }
    if (!failed()) {
      int all[max_nodes]{};
      int all_count = 0;
      for (int k = 0; k < count; ++k)
        all_count = flatten(node_kind::logical_and, terms[k], all, all_count);
      const int before = all_count;
      for (int k = 0; k < before && !failed(); ++k)
        if (at(all[k]).kind == node_kind::logical_or)
          all_count = implied_filters(all[k], all, all_count);
      if (all_count != before) {
        changed = true;
        for (int k = 0; k < all_count; ++k) terms[k] = all[k];
        count = all_count;
      }
    }
    const int where = changed && !failed() ? conjunction(terms, count) : q_.where;
    if (failed()) {  // no room for the factored terms: WHERE stays as written
      q_.error = error_code::none;
      q_.error_offset = 0;
      q_.node_count = nodes_before;
      return;
    }
    q_.where = where;
    rewritten_ = rewritten_ || changed;
  }

  /// Numbers the nodes again, children before parents (the templates that expand the tree
  /// rely on it to end), dropping those no longer reached: an inlined derived table's nodes
  /// come after the outer ones that now read them, and a factored OR leaves its old terms.
  constexpr void renumber() {
    int new_id[max_nodes];
    for (int& id : new_id) id = -1;
    node out[max_nodes]{};
    int count = 0;
    for (int s = 0; s < q_.select_count; ++s) place(q_.select[s].expr, new_id, out, count);
    place(q_.where, new_id, out, count);
    place(q_.having, new_id, out, count);
    for (int k = 0; k < q_.group_count; ++k) place(q_.group_by[k], new_id, out, count);
    for (int a = 0; a < q_.aggregate_count; ++a) place(q_.aggregates[a], new_id, out, count);
    auto renamed = [&](int id) { return id < 0 ? -1 : new_id[id]; };
    for (int id = 0; id < count; ++id) out[id].next = renamed(out[id].next);
    for (int s = 0; s < q_.select_count; ++s) q_.select[s].expr = renamed(q_.select[s].expr);
    q_.where = renamed(q_.where);
    q_.having = renamed(q_.having);
    for (int k = 0; k < q_.group_count; ++k) q_.group_by[k] = renamed(q_.group_by[k]);
    for (int a = 0; a < q_.aggregate_count; ++a) q_.aggregates[a] = renamed(q_.aggregates[a]);
    for (int id = 0; id < max_nodes; ++id) q_.nodes[id] = id < count ? out[id] : node{};
    q_.node_count = count;
  }
  /// Gives `id` and the nodes under it their new numbers, children first (`next` is renamed
  /// once every node has its number).
  constexpr void place(int id, int* new_id, node* out, int& count) const {
    if (id < 0 || new_id[id] >= 0) return;
    node n = at(id);
    place(n.a, new_id, out, count);
    if (n.kind == node_kind::in_list)
      for (int item = n.b; item >= 0; item = at(item).next) place(item, new_id, out, count);
    else
      place(n.b, new_id, out, count);
    place(n.c, new_id, out, count);
    n.a = n.a < 0 ? -1 : new_id[n.a];
    n.b = n.b < 0 ? -1 : new_id[n.b];
    n.c = n.c < 0 ? -1 : new_id[n.c];
    new_id[id] = count;
    out[count++] = n;
  }

  /// The result column an ORDER BY key names: a position, an alias or column name, or the
  /// same expression text as a select item.
  constexpr int resolve_order(int e, std::string_view source) {
    const node& n = at(e);
    if (n.kind == node_kind::number && n.integer) {
      if (n.number < 1 || n.number > q_.select_count)
        return fail(error_code::order_by_position_out_of_range, n.offset);
      return static_cast<int>(n.number) - 1;
    }
    for (int s = 0; s < q_.select_count; ++s) {
      const select_item& item = q_.select[s];
      if (n.kind == node_kind::column && n.qualifier.empty() && item.name == n.text) return s;
      if (n.kind == node_kind::column && at(item.expr).kind == node_kind::column &&
          at(item.expr).text == n.text &&
          (n.qualifier.empty() || at(item.expr).qualifier == n.qualifier))
        return s;
      if (item.source == source) return s;
    }
    return fail(error_code::order_by_not_in_select_list, n.offset);
  }

  /// The checks that need the whole statement: qualifiers, grouping, CASE without ELSE,
  /// distinct result names.
  constexpr void check() {
    bool else_optional[max_nodes]{};
    for (int a = 0; a < q_.aggregate_count; ++a)
      for (int k = at(q_.aggregates[a]).a; k >= 0 && at(k).kind == node_kind::case_when;
           k = at(k).c)
        else_optional[k] = true;
    const bool grouped = q_.grouped();
    for (int id = 0; id < q_.node_count && !failed(); ++id) {
      node& n = q_.nodes[id];
      if (n.kind == node_kind::case_when && n.c < 0 && !else_optional[id])
        fail(error_code::case_without_else_outside_aggregate, n.offset);
      const bool outside_aggregates =
          grouped && !inside_aggregate_[id] &&
          (clause_of_[id] == clause::select || clause_of_[id] == clause::having);
      if (derived_of_[id] > 0 && n.kind != node_kind::column) {
        // An expression of the derived table: a GROUP BY key of the same derived column.
        for (int k = 0; k < q_.group_count && outside_aggregates && n.slot < 0; ++k)
          if (derived_of_[q_.group_by[k]] == derived_of_[id]) n.slot = k;
        if (outside_aggregates && n.slot < 0) fail(error_code::column_not_in_group_by, n.offset);
        continue;
      }
      if (n.kind != node_kind::column) continue;
      if (!n.qualifier.empty()) {
        bool known = false;
        for (int t = 0; t < q_.table_count; ++t)
          known = known || q_.tables[t].name == n.qualifier || q_.tables[t].alias == n.qualifier;
        if (!known) {
          fail(error_code::unknown_table_alias, n.offset);
          break;
        }
      }
      if (!outside_aggregates) continue;
      for (int k = 0; k < q_.group_count && n.slot < 0; ++k) {
        const node& key = at(q_.group_by[k]);
        if (key.text == n.text &&
            (key.qualifier.empty() || n.qualifier.empty() || key.qualifier == n.qualifier))
          n.slot = k;
      }
      if (n.slot < 0) fail(error_code::column_not_in_group_by, n.offset);
    }
    for (int s = 0; s < q_.select_count && !failed(); ++s)
      for (int t = 0; t < s; ++t)
        if (q_.select[s].name == q_.select[t].name)
          fail(error_code::duplicate_output_name, at(q_.select[s].expr).offset);
  }

  /// The FROM entry a qualifier names, or -1 when none or several do.
  constexpr int table_named(std::string_view qualifier) const {
    int found = -1;
    for (int t = 0; t < q_.table_count; ++t)
      if (q_.tables[t].name == qualifier || q_.tables[t].alias == qualifier) {
        if (found >= 0) return -1;
        found = t;
      }
    return found;
  }

  /// A table that no chain of WHERE equalities `a.x = b.y` links to the first one is rejected
  /// at its place in FROM. Only when every such equality names its tables: an unqualified
  /// column's table is known once the tables are given (the join then checks at run time).
  constexpr void check_join_graph() {
    int component[max_tables]{};
    for (int t = 0; t < q_.table_count; ++t) component[t] = t;
    auto root = [&](int t) {
      while (component[t] != t) t = component[t];
      return t;
    };
    int stack[max_nodes]{};
    int top = 0, equalities = 0;
    if (q_.where >= 0) stack[top++] = q_.where;
    while (top > 0) {
      const node& n = at(stack[--top]);
      if (n.kind == node_kind::logical_and) {
        stack[top++] = n.a;
        stack[top++] = n.b;
        continue;
      }
      if (n.kind != node_kind::eq || at(n.a).kind != node_kind::column ||
          at(n.b).kind != node_kind::column)
        continue;
      const int left = table_named(at(n.a).qualifier), right = table_named(at(n.b).qualifier);
      if (left < 0 || right < 0) return;
      ++equalities;
      component[root(left)] = root(right);
    }
    if (equalities == 0) return;  // no join term at all: the executor's static_assert says so
    // The largest linked group (the first table's on a tie) is the join; the first table
    // outside it is the one named.
    int size[max_tables]{};
    for (int t = 0; t < q_.table_count; ++t) ++size[root(t)];
    int joined = root(0);
    for (int t = 0; t < q_.table_count; ++t)
      if (size[t] > size[joined]) joined = t;
    for (int t = 0; t < q_.table_count; ++t)
      if (root(t) != joined) {
        fail(error_code::table_not_joined, q_.tables[t].offset);
        return;
      }
  }

  // ---- expressions ----------------------------------------------------------------------
  constexpr int parse_expression() { return parse_or(); }

  constexpr int parse_or() {
    int lhs = parse_and();
    while (!failed() && keyword("or")) {
      const int at_op = tok_.offset;
      advance();
      lhs = binary(node_kind::logical_or, condition(lhs), condition(parse_and()), at_op);
    }
    return lhs;
  }

  constexpr int parse_and() {
    int lhs = parse_not();
    while (!failed() && keyword("and")) {
      const int at_op = tok_.offset;
      advance();
      lhs = binary(node_kind::logical_and, condition(lhs), condition(parse_not()), at_op);
    }
    return lhs;
  }

  constexpr int parse_not() {
    if (!keyword("not")) return parse_predicate();
    const int at_op = tok_.offset;
    advance();
    if (++depth_ > max_depth) return fail(error_code::nesting_too_deep, at_op);
    const int operand = condition(parse_not());
    --depth_;
    if (operand < 0) return -1;
    node n;
    n.kind = node_kind::logical_not;
    n.a = operand;
    n.offset = at_op;
    return add(n);
  }

  constexpr int negate(int id, int offset) {
    if (id < 0) return -1;
    node n;
    n.kind = node_kind::logical_not;
    n.a = id;
    n.offset = offset;
    return add(n);
  }

  constexpr int parse_predicate() {
    const int lhs = parse_additive();
    if (failed()) return -1;
    const int at_op = tok_.offset;
    node_kind k = node_kind::column;
    switch (tok_.kind) {
      case token_kind::eq:
        k = node_kind::eq;
        break;
      case token_kind::ne:
        k = node_kind::ne;
        break;
      case token_kind::lt:
        k = node_kind::lt;
        break;
      case token_kind::le:
        k = node_kind::le;
        break;
      case token_kind::gt:
        k = node_kind::gt;
        break;
      case token_kind::ge:
        k = node_kind::ge;
        break;
      default:
        break;
    }
    if (k != node_kind::column) {
      advance();
      const int l = value(lhs, true), r = value(parse_additive(), true);
      if (string_operands(l, r) < 0) return -1;
      return binary(k, l, r, at_op);
    }
    const bool negated = keyword("not") && peek_is_predicate_word();
    if (negated) advance();
    if (accept_keyword("between")) {
      const int low = value(parse_additive());
      if (!failed() && !accept_keyword("and"))
        return fail_here(error_code::expected_and_of_between);
      const int high = value(parse_additive());
      if (value(lhs) < 0 || low < 0 || high < 0) return -1;
      node n;
      n.kind = node_kind::between;
      n.a = lhs;
      n.b = low;
      n.c = high;
      n.offset = at_op;
      const int id = add(n);
      return negated ? negate(id, at_op) : id;
    }
    if (accept_keyword("in")) {
      if (!accept(token_kind::open)) return fail_here(error_code::expected_opening_parenthesis);
      const int first = value(parse_additive(), true);
      int last = first;
      while (!failed() && accept(token_kind::comma)) {
        const int item = value(parse_additive(), true);
        if (item < 0) return -1;
        q_.nodes[last].next = item;
        last = item;
      }
      if (!failed() && !accept(token_kind::close))
        return fail_here(error_code::expected_closing_parenthesis);
      if (value(lhs, true) < 0 || first < 0) return -1;
      for (int item = first; item >= 0; item = at(item).next)
        if ((at(item).kind == node_kind::string) != (at(first).kind == node_kind::string) ||
            string_operands(lhs, item) < 0)
          return fail(error_code::string_needs_column, at(item).offset);
      if (at(lhs).kind == node_kind::string)
        return fail(error_code::string_needs_column, at(lhs).offset);
      node n;
      n.kind = node_kind::in_list;
      n.a = lhs;
      n.b = first;
      n.offset = at_op;
      const int id = add(n);
      return negated ? negate(id, at_op) : id;
    }
    if (accept_keyword("like")) {
      if (tok_.kind != token_kind::string)
        return fail_here(error_code::expected_string_pattern_after_like);
      if (value(lhs, true) < 0) return -1;
      if (at(lhs).kind != node_kind::column)
        return fail(error_code::string_needs_column, at(lhs).offset);
      node n;
      n.kind = node_kind::like;
      n.a = lhs;
      n.text = tok_.text;
      n.offset = at_op;
      advance();
      const int id = add(n);
      return negated ? negate(id, at_op) : id;
    }
    return lhs;
  }
  constexpr bool peek_is_predicate_word() const {
    const token t = peek();
    return t.kind == token_kind::word &&
           (same_word(t.text, "between") || same_word(t.text, "in") || same_word(t.text, "like"));
  }

  constexpr int parse_additive() {
    int lhs = parse_multiplicative();
    while (!failed() && (tok_.kind == token_kind::plus || tok_.kind == token_kind::minus)) {
      const bool plus = tok_.kind == token_kind::plus;
      const int at_op = tok_.offset;
      advance();
      if (keyword("interval")) {
        lhs = add_interval(lhs, plus);
        continue;
      }
      lhs = binary(plus ? node_kind::add : node_kind::subtract, value(lhs),
                   value(parse_multiplicative()), at_op);
    }
    return lhs;
  }

  /// `DATE '...' +/- INTERVAL 'n' DAY|MONTH|YEAR [(precision)]`, folded into the date.
  constexpr int add_interval(int lhs, bool plus) {
    const int at_interval = tok_.offset;
    advance();
    if (lhs < 0) return -1;
    if (at(lhs).kind != node_kind::date)
      return fail(error_code::interval_needs_date_literal, at_interval);
    if (tok_.kind != token_kind::string) return fail_here(error_code::expected_interval_string);
    std::string_view digits = tok_.text;
    bool negative = false;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    std::int64_t amount = 0;
    if (digits.empty() || digits.size() > 6) return fail_here(error_code::expected_interval_string);
    for (char ch : digits) {
      if (!is_digit(ch)) return fail_here(error_code::expected_interval_string);
      amount = amount * 10 + (ch - '0');
    }
    if (negative != !plus) amount = -amount;
    advance();
    const std::int64_t day = static_cast<std::int64_t>(at(lhs).number);
    std::int64_t result = 0;
    if (keyword("day"))
      result = day + amount;
    else if (keyword("month"))
      result = add_months(day, amount);
    else if (keyword("year"))
      result = add_months(day, 12 * amount);
    else
      return fail_here(error_code::expected_interval_unit);
    advance();
    if (tok_.kind == token_kind::open) {  // DAY (3): the field's precision, ignored
      advance();
      if (tok_.kind != token_kind::number || !tok_.integer)
        return fail_here(error_code::expected_interval_unit);
      advance();
      if (!accept(token_kind::close)) return fail_here(error_code::expected_closing_parenthesis);
    }
    q_.nodes[lhs].number = static_cast<double>(result);
    return lhs;
  }

  constexpr int parse_multiplicative() {
    int lhs = parse_unary();
    while (!failed() && (tok_.kind == token_kind::star || tok_.kind == token_kind::slash)) {
      const bool times = tok_.kind == token_kind::star;
      const int at_op = tok_.offset;
      advance();
      lhs = binary(times ? node_kind::multiply : node_kind::divide, value(lhs),
                   value(parse_unary()), at_op);
    }
    return lhs;
  }

  constexpr int parse_unary() {
    if (tok_.kind != token_kind::minus && tok_.kind != token_kind::plus) return parse_primary();
    const bool minus = tok_.kind == token_kind::minus;
    const int at_op = tok_.offset;
    advance();
    if (++depth_ > max_depth) return fail(error_code::nesting_too_deep, at_op);
    const int operand = value(parse_unary());
    --depth_;
    if (operand < 0 || !minus) return operand;
    if (at(operand).kind == node_kind::number) {  // a negative literal stays a literal
      q_.nodes[operand].number = -at(operand).number;
      q_.nodes[operand].offset = at_op;
      return operand;
    }
    node n;
    n.kind = node_kind::negate;
    n.a = operand;
    n.offset = at_op;
    return add(n);
  }

  constexpr int parse_primary() {
    const token t = tok_;
    switch (t.kind) {
      case token_kind::number: {
        advance();
        node n;
        n.kind = node_kind::number;
        n.number = t.number;
        n.integer = t.integer;
        n.exact = t.exact;
        n.mantissa = t.mantissa;
        n.exponent = t.exponent;
        n.offset = t.offset;
        return add(n);
      }
      case token_kind::string: {
        advance();
        node n;
        n.kind = node_kind::string;
        n.text = t.text;
        n.offset = t.offset;
        return add(n);
      }
      case token_kind::open: {
        advance();
        if (++depth_ > max_depth) return fail(error_code::nesting_too_deep, t.offset);
        const int inner = parse_expression();
        --depth_;
        if (failed()) return -1;
        if (!accept(token_kind::close)) return fail_here(error_code::expected_closing_parenthesis);
        return inner;
      }
      case token_kind::word:
        break;
      default:
        return fail_here(error_code::expected_expression);
    }
    if (same_word(t.text, "date")) {
      advance();
      if (tok_.kind != token_kind::string) return fail_here(error_code::expected_date_string);
      const auto day = relational::parse_date(tok_.text);
      if (!day) return fail_here(error_code::invalid_date);
      advance();
      node n;
      n.kind = node_kind::date;
      n.number = static_cast<double>(*day);
      n.integer = true;
      n.offset = t.offset;
      return add(n);
    }
    if (same_word(t.text, "interval"))
      return fail(error_code::interval_needs_date_literal, t.offset);
    if (same_word(t.text, "case")) return parse_case();
    if (same_word(t.text, "extract") && peek().kind == token_kind::open) return parse_extract();
    if (peek().kind == token_kind::open) {
      constexpr std::string_view names[] = {"sum", "count", "min", "max", "avg"};
      for (std::string_view name : names)
        if (same_word(t.text, name)) return parse_aggregate();
    }
    if (is_reserved(t.text)) return fail_here(error_code::expected_expression);
    advance();
    node n;
    n.kind = node_kind::column;
    n.text = t.text;
    n.offset = t.offset;
    if (accept(token_kind::dot)) {
      if (!is_name()) return fail_here(error_code::expected_column_after_dot);
      n.qualifier = t.text;
      n.text = tok_.text;
      advance();
    }
    return add(n);
  }

  constexpr int parse_aggregate() {
    const token name = tok_;
    advance();  // the name
    advance();  // (
    if (clause_ == clause::derived)
      return fail(error_code::aggregate_in_derived_table, name.offset);
    if (in_aggregate_) return fail(error_code::aggregate_inside_aggregate, name.offset);
    if (clause_ == clause::where) return fail(error_code::aggregate_in_where, name.offset);
    if (clause_ == clause::group_by) return fail(error_code::aggregate_in_group_by, name.offset);
    node n;
    n.offset = name.offset;
    const bool count = same_word(name.text, "count");
    if (count && accept(token_kind::star)) {
      n.kind = node_kind::count_star;
    } else {
      if (count && accept_keyword("distinct"))
        n.kind = node_kind::count_distinct;
      else if (count)
        n.kind = node_kind::count;
      else if (same_word(name.text, "sum"))
        n.kind = node_kind::sum;
      else if (same_word(name.text, "min"))
        n.kind = node_kind::min;
      else if (same_word(name.text, "max"))
        n.kind = node_kind::max;
      else
        n.kind = node_kind::avg;
      if (count && tok_.kind == token_kind::close)
        return fail_here(error_code::expected_star_or_expression_in_count);
      in_aggregate_ = true;
      n.a = value(parse_expression());
      in_aggregate_ = false;
      if (n.a < 0) return -1;
    }
    if (!accept(token_kind::close)) return fail_here(error_code::expected_closing_parenthesis);
    const int id = add(n);
    if (id >= 0 && (clause_ == clause::select || clause_ == clause::having)) {
      if (q_.aggregate_count == max_aggregates)
        return fail(error_code::too_many_aggregates, name.offset);
      q_.nodes[id].slot = q_.aggregate_count;
      q_.aggregates[q_.aggregate_count++] = id;
    }
    return id;
  }

  /// EXTRACT(YEAR|MONTH|DAY FROM date): the field of a date as an integer.
  constexpr int parse_extract() {
    const int at_extract = tok_.offset;
    advance();  // EXTRACT
    advance();  // (
    node n;
    n.kind = node_kind::extract;
    n.offset = at_extract;
    n.integer = true;
    if (keyword("year"))
      n.number = 0;
    else if (keyword("month"))
      n.number = 1;
    else if (keyword("day"))
      n.number = 2;
    else
      return fail_here(error_code::expected_extract_field);
    advance();
    if (!accept_keyword("from")) return fail_here(error_code::expected_from);
    if (++depth_ > max_depth) return fail(error_code::nesting_too_deep, at_extract);
    n.a = value(parse_expression());
    --depth_;
    if (failed()) return -1;
    if (!accept(token_kind::close)) return fail_here(error_code::expected_closing_parenthesis);
    return add(n);
  }

  /// CASE WHEN c THEN v [WHEN c THEN v]... [ELSE v] END; later WHENs nest in the ELSE.
  constexpr int parse_case() {
    const int at_case = tok_.offset;
    advance();
    if (++depth_ > max_depth) return fail(error_code::nesting_too_deep, at_case);
    if (!keyword("when")) return fail_here(error_code::expected_when);
    const int id = parse_when(at_case);
    --depth_;
    return id;
  }
  constexpr int parse_when(int offset) {
    advance();  // WHEN
    const int test = condition(parse_expression());
    if (!failed() && !accept_keyword("then")) return fail_here(error_code::expected_then);
    const int then = value(parse_expression());
    if (failed()) return -1;
    int otherwise = -1;
    if (keyword("when")) {
      if (++depth_ > max_depth) return fail(error_code::nesting_too_deep, tok_.offset);
      otherwise = parse_when(tok_.offset);
      --depth_;
      if (otherwise < 0) return -1;
    } else {
      if (accept_keyword("else")) {
        otherwise = value(parse_expression());
        if (otherwise < 0) return -1;
      }
      if (!accept_keyword("end")) return fail_here(error_code::expected_end);
    }
    node n;
    n.kind = node_kind::case_when;
    n.a = test;
    n.b = then;
    n.c = otherwise;
    n.offset = offset;
    return add(n);
  }

  std::string_view text_;
  lexer lexer_;
  token tok_;
  int previous_end_ = 0;
  query q_;
  clause clause_ = clause::select;
  bool in_aggregate_ = false;
  int depth_ = 0;
  clause clause_of_[max_nodes]{};
  bool inside_aggregate_[max_nodes]{};
  // The derived table of FROM, if any: its columns' names and expressions, WHERE and alias.
  bool has_derived_ = false;
  std::string_view derived_name_[max_select_items]{};
  int derived_expr_[max_select_items]{};
  int derived_count_ = 0;
  int derived_where_ = -1;
  std::string_view derived_alias_;
  int derived_of_[max_nodes]{};  // 1 + the derived column a node was replaced by (0: none)
  bool rewritten_ = false;       // WHERE's ORs were factored
};

}  // namespace detail

/// Parses a SELECT statement. Never throws: a rejected text gives `ok() == false` with the
/// `error` and its `error_offset`. Usable in constant expressions and at run time.
/// **Example**: `static_assert(parse("SELECT SUM(x) FROM t").aggregate_count == 1);`
constexpr query parse(std::string_view text) { return detail::parser(text).run(); }

/// The message of a rejected text: `loom::sql: line 1, column 18: expected FROM after the
/// select list`, with the line of the text and a caret under the column.
inline std::string error_message(std::string_view text, const query& q) {
  const text_position p = position_of(text, q.error_offset);
  std::string msg = "loom::sql: line " + std::to_string(p.line) + ", column " +
                    std::to_string(p.column) + ": " + std::string(to_string(q.error));
  std::size_t begin = static_cast<std::size_t>(q.error_offset);
  if (begin > text.size()) begin = text.size();
  while (begin > 0 && text[begin - 1] != '\n') --begin;
  std::size_t end = text.find('\n', begin);
  if (end == std::string_view::npos) end = text.size();
  msg += "\n  ";
  msg.append(text.substr(begin, end - begin));
  msg += "\n  " + std::string(static_cast<std::size_t>(p.column - 1), ' ') + "^";
  return msg;
}

/// Parses `text` at run time; throws `loom::parse_error` (the message of `error_message`) for a
/// rejected text.
inline query parse_or_throw(std::string_view text) {
  query q = parse(text);
  if (!q.ok()) throw parse_error(error_message(text, q));
  return q;
}

}  // namespace loom::sql_compiler

#endif  // LOOM_SQL_PARSER_HPP
