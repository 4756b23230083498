// Defines loom::relational::read_csv: typed columns from a CSV file, strings dictionary-encoded
// (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_CSV_HPP
#define LOOM_RELATIONAL_CSV_HPP

#include <loom/core/error.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/date.hpp>
#include <loom/relational/dictionary.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/table.hpp>

#include <charconv>
#include <cstdint>
#include <deque>
#include <fstream>
#include <istream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace loom::relational {

/// One column to load: its header name and type.
struct column_spec {
  std::string name;
  column_type type;
};

struct csv_options {
  char delimiter = ',';
  /// With a header, schema columns are found by name and other columns are skipped; without,
  /// the schema lists every column in file order.
  bool header = true;
};

namespace detail {

class csv_parser {
 public:
  csv_parser(std::string_view text, const std::string& file, char delimiter)
      : text_(text), file_(file), delimiter_(delimiter) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // UTF-8 byte order mark
  }

  /// Reads the next record into `fields()`; false at end of input. Blank lines are skipped.
  bool next() {
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

  const std::vector<std::string_view>& fields() const { return fields_; }
  /// The line on which the current record starts (1-based).
  std::int64_t line() const { return record_line_; }

 private:
  void read_quoted() {
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

inline std::string shown(std::string_view s) {
  constexpr std::size_t max = 40;
  return "'" + std::string(s.substr(0, max)) + (s.size() > max ? "...'" : "'");
}

}  // namespace detail

/// Reads the columns of `schema` from CSV text; `name` (the file) appears in error messages.
/// Throws `csv_error` (`file:line: column k (name): what`) for a wrong field count, a value that
/// does not parse as its column's type, or a schema column missing from the header.
inline table read_csv_text(std::string_view text, const std::string& name,
                           const std::vector<column_spec>& schema, const csv_options& options = {}) {
  detail::csv_parser parser(text, name, options.delimiter);
  std::vector<std::int64_t> slot_of_field;  // field index -> schema slot, or -1 (skipped)
  std::vector<std::string> field_names;
  std::size_t expected = schema.size();
  if (options.header) {
    if (!parser.next()) throw csv_error(name, 1, 0, "", "the file is empty; expected a header line");
    for (std::string_view f : parser.fields()) field_names.emplace_back(detail::trim(f));
    expected = field_names.size();
    slot_of_field.assign(expected, -1);
    for (std::size_t s = 0; s < schema.size(); ++s) {
      std::size_t found = expected;
      for (std::size_t f = 0; f < expected; ++f)
        if (field_names[f] == schema[s].name) {
          if (found != expected)
            throw csv_error(name, 1, static_cast<std::int64_t>(f) + 1, schema[s].name,
                            "the header names this column twice");
          found = f;
        }
      if (found == expected) {
        std::string known;
        for (const auto& n : field_names) known += (known.empty() ? "" : ", ") + n;
        throw csv_error(name, 1, 0, schema[s].name,
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

  std::vector<column> cols;
  std::vector<detail::dictionary_builder> dicts(schema.size());
  for (const auto& spec : schema) cols.emplace_back(spec.name, spec.type);

  while (parser.next()) {
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
          const std::string_view v = detail::trim(raw);
          std::int64_t x = 0;
          const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
          if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size())
            fail(r.ec == std::errc::result_out_of_range ? "int64 (out of range)" : "int64");
          c.mutable_ints().push_back(x);
          break;
        }
        case column_type::decimal: {
          const std::string_view v = detail::trim(raw);
          double x = 0;
          const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
          if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size()) fail("decimal");
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
      }
    }
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
  return t;
}

/// Reads the columns of `schema` from the CSV file at `path` (see `read_csv_text`); throws
/// `io_error` when the file cannot be read.
inline table read_csv(const std::string& path, const std::vector<column_spec>& schema,
                      const csv_options& options = {}) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path + ": cannot open the file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw io_error(path + ": read error");
  return read_csv_text(text, path, schema, options);
}

}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_CSV_HPP
