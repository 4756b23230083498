// Defines the runtime errors of relations: malformed CSV and unknown columns (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_ERROR_HPP
#define LOOM_RELATIONAL_ERROR_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace loom::relational {

/// A CSV file is malformed: wrong field count, a value that does not parse as its column's type,
/// or a schema column missing from the header. `what()` reads
/// `file:line: column k (name): what`; the parts are also available separately.
class csv_error : public parse_error {
 public:
  LOOM_DECL csv_error(std::string file, std::int64_t line, std::int64_t column,
                      std::string column_name, const std::string& what);

  const std::string& file() const { return file_; }
  /// 1-based line number (the header is line 1).
  std::int64_t line() const { return line_; }
  /// 1-based field number in the line, or 0 when the error concerns no field.
  std::int64_t column() const { return column_; }
  const std::string& column_name() const { return column_name_; }

 private:
  std::string file_;
  std::int64_t line_;
  std::int64_t column_;
  std::string column_name_;
};

/// A table has no column of the requested name, or the column has the wrong type for the use.
class column_error : public error {
 public:
  using error::error;
};

#if LOOM_HEADER_ONLY
LOOM_DEF csv_error::csv_error(std::string file, std::int64_t line, std::int64_t column,
                              std::string column_name, const std::string& what)
    : parse_error(file + ":" + std::to_string(line) + ": " +
                  (column > 0 ? "column " + std::to_string(column) +
                                    (column_name.empty() ? "" : " (" + column_name + ")") + ": "
                              : (column_name.empty() ? "" : "column " + column_name + ": ")) +
                  what),
      file_(std::move(file)),
      line_(line),
      column_(column),
      column_name_(std::move(column_name)) {}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational

#endif  // LOOM_RELATIONAL_ERROR_HPP
