// Defines loom::relational::read_csv: typed columns from a CSV file, strings dictionary-encoded
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_CSV_HPP
#define LOOM_RELATIONAL_CSV_HPP

#include <loom/core/algorithms.hpp>
#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/progress.hpp>
#include <loom/core/sync.hpp>
#include <loom/io/detail/numbers.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/date.hpp>
#include <loom/relational/dictionary.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/file_bytes.hpp>
#include <loom/relational/table.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <istream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace loom::relational {

/// One column to load: its header name and type, and for a fixed decimal its scale (the
/// number of fractional digits, 0 to 18): `{"l_discount", column_type::fixed, 2}` is SQL's
/// DECIMAL(15,2).
struct column_spec {
  std::string name;
  column_type type;
  int scale = 0;
};

struct csv_options {
  char delimiter = ',';
  /// With a header, schema columns are found by name and other columns are skipped; without,
  /// the schema lists every column in file order.
  bool header = true;
  /// Where the records start, when not right after the header (or at the start without one):
  /// a record boundary further on, so that a piece of a file is read in place
  /// (`read_csv_files`). Lines are numbered as if the records followed the header.
  std::size_t records_from = 0;
};

namespace detail {

class csv_parser {
 public:
  LOOM_DECL csv_parser(std::string_view text, const std::string& file, char delimiter);

  /// Reads the next record into `fields()`; false at end of input. Blank lines are skipped.
  LOOM_DECL bool next();

  const std::vector<std::string_view>& fields() const { return fields_; }
  /// The line on which the current record starts (1-based).
  std::int64_t line() const { return record_line_; }

  /// Where the next record is read from, and its line; `resume` continues from such a point
  /// (the fast reader in read_csv_text hands records it does not take to `next`).
  std::size_t position() const { return pos_; }
  std::int64_t next_line() const { return line_; }
  void resume(std::size_t pos, std::int64_t line) {
    pos_ = pos;
    line_ = line;
  }

 private:
  LOOM_DECL void read_quoted();

  std::string_view text_;
  const std::string& file_;
  char delimiter_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
  std::int64_t record_line_ = 1;
  std::vector<std::string_view> fields_;
  std::deque<std::string> scratch_;  // unescaped quoted fields; a deque keeps them in place
  std::size_t scratch_used_ = 0;
};

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

LOOM_DECL std::string shown(std::string_view s);

/// Reads a plain integer `-?[0-9]{1,18}` (no overflow possible) starting at p; returns where it
/// ends, or nullptr when the text there is not one.
inline const char* scan_int64(const char* p, const char* end, std::int64_t& out) {
  const bool negative = p < end && *p == '-';
  p += negative;
  const char* const digits = p;
  std::int64_t x = 0;
  for (; p < end; ++p) {
    const auto d = static_cast<unsigned>(*p - '0');
    if (d > 9) break;
    if (p - digits == 18) return nullptr;  // a 19th digit may overflow: from_chars decides
    x = x * 10 + static_cast<std::int64_t>(d);
  }
  if (p == digits) return nullptr;
  out = negative ? -x : x;
  return p;
}

/// Reads a plain decimal `-?[0-9]*.?[0-9]*` of 1 to 15 digits starting at p; returns where it
/// ends, or nullptr when the text there is not one. The value m / 10^f divides two exact doubles,
/// so it is correctly rounded, as std::from_chars is.
inline const char* scan_decimal(const char* p, const char* end, double& out) {
  static constexpr double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const bool negative = p < end && *p == '-';
  p += negative;
  std::uint64_t m = 0;
  int digits = 0, fraction = 0;
  bool point = false;
  for (; p < end; ++p) {
    const auto d = static_cast<unsigned>(*p - '0');
    if (d <= 9) {
      if (++digits > 15) return nullptr;
      m = m * 10 + d;
      fraction += point;
    } else if (*p == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits == 0) return nullptr;
  const double x = static_cast<double>(m) / pow10[fraction];
  out = negative ? -x : x;
  return p;
}

/// Reads a plain fixed decimal `-?[0-9]*.?[0-9]*` of 1 to 18 digits, at most `scale` of them
/// after the point, as a value scaled by 10^scale (no overflow possible: 18 digits); returns
/// where it ends, or nullptr when the text there is not one (parse_fixed then decides).
inline const char* scan_fixed(const char* p, const char* end, int scale, std::int64_t& out) {
  const bool negative = p < end && *p == '-';
  p += negative;
  std::int64_t m = 0;
  int digits = 0, fraction = 0;
  bool point = false;
  for (; p < end; ++p) {
    const auto d = static_cast<unsigned>(*p - '0');
    if (d <= 9) {
      if (++digits > 18) return nullptr;
      m = m * 10 + static_cast<std::int64_t>(d);
      fraction += point;
    } else if (*p == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits == 0 || fraction > scale || digits - fraction + scale > 18) return nullptr;
  m *= power_of_ten(scale - fraction);
  out = negative ? -m : m;
  return p;
}

/// An int64 field (trimmed) as the Matrix Market and FROSTT readers read integers (an optional
/// `+` or `-`, decimal digits: loom::detail::parse_integer).
inline loom::detail::parse_status parse_int64(std::string_view v, std::int64_t& out) {
  const char* const end = v.data() + v.size();
  if (scan_int64(v.data(), end, out) == end) return loom::detail::parse_status::ok;
  return loom::detail::parse_integer(v, out);
}

/// A decimal field (trimmed) as the Matrix Market and FROSTT readers read values (an optional
/// `+`, an underflow rounded to zero or a subnormal: loom::detail::parse_floating).
inline loom::detail::parse_status parse_decimal(std::string_view v, double& out) {
  const char* const end = v.data() + v.size();
  if (scan_decimal(v.data(), end, out) == end) return loom::detail::parse_status::ok;
  return loom::detail::parse_floating(v, out);
}

}  // namespace detail

/// Reads the columns of `schema` from CSV text; `name` (the file) appears in error messages and
/// names the bytes read in progress reports (loom::set_progress).
/// Throws `csv_error` (`file:line: column k (name): what`) for a wrong field count, a value that
/// does not parse as its column's type, or a schema column missing from the header.
LOOM_DECL table read_csv_text(std::string_view text, const std::string& name,
                              const std::vector<column_spec>& schema,
                              const csv_options& options = {});

/// Reads the columns of `schema` from the CSV file at `path` (see `read_csv_text`); throws
/// `io_error` when the file cannot be read.
LOOM_DECL table read_csv(const std::string& path, const std::vector<column_spec>& schema,
                         const csv_options& options = {});

/// A CSV file for `read_csv_files`: the arguments of `read_csv`.
struct csv_file {
  std::string path;
  std::vector<column_spec> schema;
  csv_options options = {};
};

/// Reads `files` with up to `threads` threads (0: one per hardware thread). Each file is cut at
/// record boundaries into pieces of about `piece_bytes` (0: enough pieces to keep the threads
/// busy, at least 4 MiB each), which free threads read as `read_csv` reads; each file's pieces
/// are then joined, their string columns through one merged sorted dictionary. The tables are
/// those `read_csv` returns, in the order of `files`; an error is the one `read_csv` reports
/// (the first in the first failing file, with its line in the whole file).
LOOM_DECL std::vector<table> read_csv_files(const std::vector<csv_file>& files,
                                            unsigned threads = 0, std::size_t piece_bytes = 0);

namespace detail {
/// Where the pieces of `text` start when cut after `begin` near every `piece_bytes`.
LOOM_DECL std::vector<std::size_t> piece_starts(std::string_view text, std::size_t begin,
                                                std::size_t piece_bytes);
/// The pieces of one file joined into one table.
LOOM_DECL table join_pieces(std::vector<table>& pieces, const std::string& name,
                            const std::vector<column_spec>& schema);
}  // namespace detail

#if LOOM_HEADER_ONLY
namespace detail {
LOOM_DEF csv_parser::csv_parser(std::string_view text, const std::string& file, char delimiter)
    : text_(text), file_(file), delimiter_(delimiter) {
  if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // UTF-8 byte order mark
}

LOOM_DEF bool csv_parser::next() {
  while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  if (pos_ >= text_.size()) return false;
  record_line_ = line_;
  fields_.clear();
  scratch_used_ = 0;
  for (;;) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      read_quoted();
    } else {
      const std::size_t begin = pos_;
      while (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n') ++pos_;
      std::size_t end = pos_;
      if (end > begin && text_[end - 1] == '\r') --end;
      fields_.push_back(text_.substr(begin, end - begin));
    }
    if (pos_ < text_.size() && text_[pos_] == delimiter_) {
      ++pos_;
      continue;
    }
    if (pos_ < text_.size()) {  // '\n'
      ++pos_;
      ++line_;
    }
    return true;
  }
}

LOOM_DEF void csv_parser::read_quoted() {
  const std::int64_t start_line = line_;
  ++pos_;
  if (scratch_used_ == scratch_.size()) scratch_.emplace_back();
  std::string& s = scratch_[scratch_used_++];
  s.clear();
  for (;;) {
    if (pos_ >= text_.size())
      throw csv_error(file_, start_line, static_cast<std::int64_t>(fields_.size()) + 1, "",
                      "unterminated quoted field");
    const char ch = text_[pos_++];
    if (ch == '"') {
      if (pos_ < text_.size() && text_[pos_] == '"') {
        s += '"';
        ++pos_;
        continue;
      }
      break;
    }
    if (ch == '\n') ++line_;
    s += ch;
  }
  if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
  if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n')
    throw csv_error(file_, start_line, static_cast<std::int64_t>(fields_.size()) + 1, "",
                    "unexpected character after a closing quote");
  fields_.push_back(s);
}

LOOM_DEF std::string shown(std::string_view s) {
  constexpr std::size_t max = 40;
  return "'" + std::string(s.substr(0, max)) + (s.size() > max ? "...'" : "'");
}
}  // namespace detail

LOOM_DEF table read_csv_text(std::string_view text, const std::string& name,
                             const std::vector<column_spec>& schema, const csv_options& options) {
  detail::csv_parser parser(text, name, options.delimiter);
  std::vector<std::int64_t> slot_of_field;  // field index -> schema slot, or -1 (skipped)
  std::vector<std::string> field_names;
  std::size_t expected = schema.size();
  if (options.header) {
    if (!parser.next())
      throw csv_error(name, 1, 0, "", "the file is empty; expected a header line");
    const std::int64_t header_line = parser.line();  // after any blank lines
    for (std::string_view f : parser.fields()) field_names.emplace_back(detail::trim(f));
    expected = field_names.size();
    slot_of_field.assign(expected, -1);
    for (std::size_t s = 0; s < schema.size(); ++s) {
      std::size_t found = expected;
      for (std::size_t f = 0; f < expected; ++f)
        if (field_names[f] == schema[s].name) {
          if (found != expected)
            throw csv_error(name, header_line, static_cast<std::int64_t>(f) + 1, schema[s].name,
                            "the header names this column twice");
          found = f;
        }
      if (found == expected) {
        std::string known;
        for (const auto& n : field_names) known += (known.empty() ? "" : ", ") + n;
        throw csv_error(name, header_line, 0, schema[s].name,
                        "unknown column: not in the header (columns: " + known + ")");
      }
      slot_of_field[found] = static_cast<std::int64_t>(s);
    }
  } else {
    for (std::size_t s = 0; s < schema.size(); ++s) {
      slot_of_field.push_back(static_cast<std::int64_t>(s));
      field_names.push_back(schema[s].name);
    }
  }

  if (options.records_from > parser.position())
    parser.resume(options.records_from, parser.next_line());

  std::vector<column> cols;
  std::vector<detail::dictionary_builder> dicts(schema.size());
  for (const auto& spec : schema)  // a scale out of 0 to 18 throws column_error
    cols.emplace_back(spec.name, spec.type, spec.type == column_type::fixed ? spec.scale : 0);
  {  // at most one record per remaining line
    std::size_t lines = 1;
    for (const char *p = text.data() + parser.position(), *end = text.data() + text.size();
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))));
         ++p)
      ++lines;
    for (column& c : cols)
      c.is_integer() ? c.mutable_ints().reserve(lines) : c.mutable_reals().reserve(lines);
  }

  // One record from the parser's fields: checks the field count, then parses every field.
  auto parse_record = [&] {
    const auto& fields = parser.fields();
    if (fields.size() != expected)
      throw csv_error(name, parser.line(), 0, "",
                      "expected " + std::to_string(expected) + " fields, found " +
                          std::to_string(fields.size()));
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::int64_t s = slot_of_field[f];
      if (s < 0) continue;
      column& c = cols[static_cast<std::size_t>(s)];
      const std::string_view raw = fields[f];
      auto fail = [&](std::string_view what) {
        throw csv_error(name, parser.line(), static_cast<std::int64_t>(f) + 1, c.name(),
                        "cannot parse " + detail::shown(raw) + " as " + std::string(what));
      };
      switch (c.type()) {
        case column_type::int64: {
          std::int64_t x = 0;
          const auto st = detail::parse_int64(detail::trim(raw), x);
          if (st != loom::detail::parse_status::ok)
            fail(st == loom::detail::parse_status::out_of_range ? "int64 (out of range)" : "int64");
          c.mutable_ints().push_back(x);
          break;
        }
        case column_type::decimal: {
          double x = 0;
          const auto st = detail::parse_decimal(detail::trim(raw), x);
          if (st != loom::detail::parse_status::ok)
            fail(st == loom::detail::parse_status::out_of_range ? "decimal (out of range)"
                                                                : "decimal");
          c.mutable_reals().push_back(x);
          break;
        }
        case column_type::date: {
          const auto d = parse_date(detail::trim(raw));
          if (!d) fail("a date (YYYY-MM-DD)");
          c.mutable_ints().push_back(*d);
          break;
        }
        case column_type::string:
          c.mutable_ints().push_back(dicts[static_cast<std::size_t>(s)].add(raw));
          break;
        case column_type::fixed: {
          std::int64_t x = 0;
          const std::string what = "a decimal of scale " + std::to_string(c.scale());
          switch (parse_fixed(detail::trim(raw), c.scale(), x)) {
            case fixed_status::ok:
              break;
            case fixed_status::malformed:
              fail(what);
              break;
            case fixed_status::too_many_digits:
              fail(what + ": more than " + std::to_string(c.scale()) +
                   " digits after the point (nothing is rounded)");
              break;
            case fixed_status::out_of_range:
              fail(what + ": out of range (an int64 scaled by 10^" + std::to_string(c.scale()) +
                   ")");
              break;
          }
          c.mutable_ints().push_back(x);
          break;
        }
      }
    }
  };

  // The fast reader: fields are parsed where they lie, without quotes or errors. A record it
  // cannot take (a quoted field, a wrong field count, a value that does not parse) is undone and
  // handed to the parser and parse_record above, which read it (or report it) as they always did.
  const char delimiter = options.delimiter;
  const char* const text_end = text.data() + text.size();
  const char* p = text.data() + parser.position();
  std::int64_t line = parser.next_line();
  std::size_t rows = 0;
  auto take_field = [&](std::size_t s, std::string_view raw) {
    column& c = cols[s];
    switch (c.type()) {
      case column_type::int64: {
        std::int64_t x = 0;
        if (detail::parse_int64(detail::trim(raw), x) != loom::detail::parse_status::ok)
          return false;
        c.mutable_ints().push_back(x);
        return true;
      }
      case column_type::decimal: {
        double x = 0;
        if (detail::parse_decimal(detail::trim(raw), x) != loom::detail::parse_status::ok)
          return false;
        c.mutable_reals().push_back(x);
        return true;
      }
      case column_type::date: {
        const auto d = parse_date(detail::trim(raw));
        if (!d) return false;
        c.mutable_ints().push_back(*d);
        return true;
      }
      case column_type::string:
        c.mutable_ints().push_back(dicts[s].add(raw));
        return true;
      case column_type::fixed: {
        std::int64_t x = 0;
        if (parse_fixed(detail::trim(raw), c.scale(), x) != fixed_status::ok) return false;
        c.mutable_ints().push_back(x);
        return true;
      }
    }
    return false;
  };
  // per field: the column it fills (null when skipped)
  std::vector<column*> target(expected, nullptr);
  for (std::size_t f = 0; f < expected; ++f)
    if (slot_of_field[f] >= 0) target[f] = &cols[static_cast<std::size_t>(slot_of_field[f])];
  auto ends_field = [&](const char* q) {
    return q != nullptr && (q == text_end || *q == delimiter || *q == '\n');
  };
  loom::detail::progress_reporter progress("reading", name, static_cast<std::int64_t>(text.size()),
                                           "bytes");
  for (;;) {
    progress.advance_to(p - text.data());
    while (p < text_end && (*p == '\n' || *p == '\r')) line += *p++ == '\n';  // blank lines
    if (p >= text_end) break;
    const char* const record = p;
    bool taken = expected > 0;
    for (std::size_t f = 0; taken && f < expected; ++f) {
      if (p < text_end && *p == '"') {
        taken = false;
        break;
      }
      // numbers and dates are read as they are scanned; anything else (spaces, '\r', long
      // numbers, other spellings) is cut at the delimiter first and read by take_field
      column* const c = target[f];
      const char* q = nullptr;
      if (c != nullptr) {
        if (c->type() == column_type::int64) {
          std::int64_t x = 0;
          q = detail::scan_int64(p, text_end, x);
          if (ends_field(q)) c->mutable_ints().push_back(x);
        } else if (c->type() == column_type::decimal) {
          double x = 0;
          q = detail::scan_decimal(p, text_end, x);
          if (ends_field(q)) c->mutable_reals().push_back(x);
        } else if (c->type() == column_type::fixed) {
          std::int64_t x = 0;
          q = detail::scan_fixed(p, text_end, c->scale(), x);
          if (ends_field(q)) c->mutable_ints().push_back(x);
        } else if (c->type() == column_type::date && text_end - p >= 10) {
          const auto d = parse_date(std::string_view(p, 10));
          if (d && ends_field(p + 10)) {
            q = p + 10;
            c->mutable_ints().push_back(*d);
          }
        }
      }
      if (!ends_field(q)) {
        const char* const begin = p;
        while (p < text_end && *p != delimiter && *p != '\n') ++p;
        const char* end = p;
        if (end > begin && end[-1] == '\r') --end;
        if (c != nullptr)
          taken = take_field(static_cast<std::size_t>(slot_of_field[f]),
                             std::string_view(begin, static_cast<std::size_t>(end - begin)));
      } else {
        p = q;
      }
      const bool last = f + 1 == expected;
      if (last ? p < text_end && *p != '\n' : p >= text_end || *p != delimiter)
        taken = false;  // too many or too few fields
      else if (!last)
        ++p;
    }
    if (!taken) {
      for (column& c : cols)
        c.is_integer() ? c.mutable_ints().resize(rows) : c.mutable_reals().resize(rows);
      parser.resume(static_cast<std::size_t>(record - text.data()), line);
      parser.next();
      parse_record();
      p = text.data() + parser.position();
      line = parser.next_line();
    } else if (p < text_end) {
      ++p;  // '\n'
      ++line;
    }
    ++rows;
  }

  table t(name);
  for (std::size_t s = 0; s < schema.size(); ++s) {
    if (cols[s].type() == column_type::string) {
      std::vector<std::int64_t> remap;
      cols[s].set_dictionary(std::make_shared<const dictionary>(dicts[s].finish(remap)));
      for (auto& code : cols[s].mutable_ints()) code = remap[static_cast<std::size_t>(code)];
    }
    t.add(std::move(cols[s]));
  }
  progress.finish();
  return t;
}

LOOM_DEF table read_csv(const std::string& path, const std::vector<column_spec>& schema,
                        const csv_options& options) {
  const detail::file_bytes file(path);
  return read_csv_text(file.text(), path, schema, options);
}

namespace detail {

/// Where each piece of `text` starts when it is cut near every multiple of `piece_bytes` after
/// `begin`: just after a line feed that no quoted field holds (quotes are counted from `begin`,
/// jumping between them, so files without quotes are only searched for line feeds).
LOOM_DEF std::vector<std::size_t> piece_starts(std::string_view text, std::size_t begin,
                                               std::size_t piece_bytes) {
  std::vector<std::size_t> starts{begin};
  const char* const base = text.data();
  const char* const end = base + text.size();
  const char* p = base + begin;
  bool quoted = false;
  auto find = [&](char c, const char* from, const char* to) {
    return from < to
               ? static_cast<const char*>(std::memchr(from, c, static_cast<std::size_t>(to - from)))
               : nullptr;
  };
  for (std::size_t target = begin + piece_bytes; target < text.size(); target += piece_bytes) {
    const char* const t = base + target;
    if (p < t) {
      for (const char* q; (q = find('"', p, t)); p = q + 1) quoted = !quoted;
      p = t;
    }
    for (;;) {  // the next line feed outside quotes
      const char* const feed = find('\n', p, end);
      if (!feed) return starts;
      const char* const quote = find('"', p, feed);
      if (quote) {
        quoted = !quoted;
        p = quote + 1;
      } else if (quoted) {
        p = feed + 1;
      } else {
        p = feed + 1;
        break;
      }
    }
    if (p >= end) break;
    const auto start = static_cast<std::size_t>(p - base);
    if (start > starts.back()) starts.push_back(start);
    target = std::max(target, start);
  }
  return starts;
}

/// The pieces of one file read by `read_csv_files`, joined into one table: columns
/// concatenated, string codes renumbered through the merged dictionary.
LOOM_DEF table join_pieces(std::vector<table>& pieces, const std::string& name,
                           const std::vector<column_spec>& schema) {
  if (pieces.size() == 1) return std::move(pieces.front());
  table t(name);
  for (const column_spec& spec : schema) {
    std::size_t rows = 0;
    for (const table& piece : pieces) rows += piece.rows();
    if (spec.type == column_type::decimal) {
      std::vector<double> reals;
      reals.reserve(rows);
      for (const table& piece : pieces) {
        const auto part = piece[spec.name].reals();
        loom::detail::append_range(reals, part);
      }
      t.add(column(spec.name, std::move(reals)));
      continue;
    }
    std::shared_ptr<const dictionary> merged;
    if (spec.type == column_type::string) {
      std::vector<std::string> words;
      for (const table& piece : pieces) {
        const auto& w = piece[spec.name].dict()->words();
        loom::detail::append_range(words, w);
      }
      merged = std::make_shared<const dictionary>(std::move(words));
    }
    std::vector<std::int64_t> ints;
    ints.reserve(rows);
    for (const table& piece : pieces) {
      const column& c = piece[spec.name];
      if (!merged) {
        loom::detail::append_range(ints, c.ints());
        continue;
      }
      std::vector<std::int64_t> code_of(static_cast<std::size_t>(c.dict()->size()));
      for (std::int64_t k = 0; k < c.dict()->size(); ++k)
        code_of[static_cast<std::size_t>(k)] = merged->lower_bound(c.dict()->word(k));
      for (std::int64_t code : c.ints()) ints.push_back(code_of[static_cast<std::size_t>(code)]);
    }
    t.add(spec.type == column_type::fixed
              ? column::fixed(spec.name, std::move(ints), spec.scale)
              : column(spec.name, std::move(ints), spec.type, std::move(merged)));
  }
  return t;
}

}  // namespace detail

LOOM_DEF std::vector<table> read_csv_files(const std::vector<csv_file>& files, unsigned threads,
                                           std::size_t piece_bytes) {
  if (threads == 0) threads = loom::detail::hardware_threads();
  std::vector<std::unique_ptr<detail::file_bytes>> bytes;
  std::size_t total = 0;
  for (const csv_file& f : files) {
    bytes.push_back(std::make_unique<detail::file_bytes>(f.path));
    total += bytes.back()->text().size();
  }
  if (piece_bytes == 0)
    piece_bytes = std::max<std::size_t>(std::size_t{4} << 20, total / (4 * threads) + 1);

  struct piece {
    std::size_t file, begin, end;
  };
  std::vector<piece> pieces;
  std::vector<std::size_t> header_end(files.size(), 0), first_piece(files.size() + 1, 0);
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string_view text = bytes[f]->text();
    first_piece[f] = pieces.size();
    // Each piece is read in place, after the file's header; a file that starts with a blank
    // line is read whole (its header is the first line that is not blank).
    std::vector<std::size_t> starts{0};
    const bool splits = text.size() > piece_bytes &&
                        (!files[f].options.header || (text[0] != '\n' && text[0] != '\r'));
    if (splits) {
      std::size_t begin = 0;  // after the header line (a quoted name may hold a line feed)
      for (bool quoted = false; files[f].options.header && begin < text.size(); ++begin) {
        quoted = quoted != (text[begin] == '"');
        if (text[begin] == '\n' && !quoted) {
          ++begin;
          break;
        }
      }
      header_end[f] = begin;
      starts = detail::piece_starts(text, begin, piece_bytes);
      starts.front() = 0;  // the first piece keeps the header where it lies
    }
    for (std::size_t k = 0; k < starts.size(); ++k)
      pieces.push_back({f, starts[k], k + 1 < starts.size() ? starts[k + 1] : text.size()});
  }
  first_piece[files.size()] = pieces.size();

  std::vector<table> read(pieces.size());
  std::vector<std::exception_ptr> failed(pieces.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < pieces.size();) {
      const piece& p = pieces[k];
      const csv_file& f = files[p.file];
      const std::string_view text = bytes[p.file]->text();
      try {
        csv_options in_place = f.options;
        in_place.records_from = p.begin;
        read[k] = read_csv_text(text.substr(0, p.end), f.path, f.schema, in_place);
      } catch (const csv_error& e) {
        // The line in the whole file: the lines before the piece, less the header's.
        const auto before = static_cast<std::int64_t>(
            std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(p.begin), '\n'));
        const auto header_lines =
            p.begin == 0
                ? before
                : static_cast<std::int64_t>(std::count(
                      text.begin(), text.begin() + static_cast<std::ptrdiff_t>(header_end[p.file]),
                      '\n'));
        const std::string prefix =
            csv_error(e.file(), e.line(), e.column(), e.column_name(), "").what();
        const std::string what = std::string(e.what()).substr(prefix.size());
        failed[k] = std::make_exception_ptr(csv_error(e.file(), e.line() - header_lines + before,
                                                      e.column(), e.column_name(), what));
      } catch (...) {
        failed[k] = std::current_exception();
      }
    }
  };
  {
    std::vector<loom::detail::thread> pool;
    const std::size_t extra = std::min<std::size_t>(threads, pieces.size());
    for (std::size_t t = 1; t < extra; ++t) pool.emplace_back(work);
    work();
    for (loom::detail::thread& t : pool) t.join();
  }
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);

  std::vector<table> out;
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::vector<table> parts(
        std::make_move_iterator(read.begin() + static_cast<std::ptrdiff_t>(first_piece[f])),
        std::make_move_iterator(read.begin() + static_cast<std::ptrdiff_t>(first_piece[f + 1])));
    out.push_back(detail::join_pieces(parts, files[f].path, files[f].schema));
  }
  return out;
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_CSV_HPP
