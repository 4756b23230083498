// Defines loom::detail::line_reader: numbered lines, tokens and `file:line:` errors (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_LINE_READER_HPP
#define LOOM_IO_DETAIL_LINE_READER_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>
#include <loom/core/progress.hpp>
#include <loom/io/detail/numbers.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ios>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace loom::detail {

/// Reads an `std::istream` line by line, counts lines from 1, and throws `parse_error`s of the
/// form `name:line: what`. Stream exceptions are switched off while it reads.
class line_reader {
 public:
  LOOM_DECL line_reader(std::istream& in, std::string name);
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;
  LOOM_INLINE ~line_reader();

  /// Reads the next line into `line()` (without `\n` or a trailing `\r`); false at end of input.
  /// Throws `io_error` when the stream fails for another reason than end of input.
  LOOM_DECL bool next();

  /// Reads lines until one that is neither blank nor a comment (first non-blank character in
  /// `comment_chars`); false at end of input.
  LOOM_DECL bool next_data(std::string_view comment_chars);

  const std::string& line() const { return line_; }
  /// The number of the current line; the last line read once input has ended (1 when empty).
  std::int64_t line_number() const { return line_no_ == 0 ? 1 : line_no_; }
  const std::string& name() const { return name_; }

  /// `name:line: ` for messages about the current line, or about `line` when given.
  LOOM_DECL std::string where(std::int64_t line = 0) const;
  LOOM_DECL [[noreturn]] void fail(const std::string& what, std::int64_t line = 0) const;

  /// Splits the current line at blanks into `out`; returns the number of tokens, stopping at
  /// `out.size()` (so a result equal to `out.size()` may mean "that many or more").
  LOOM_DECL std::size_t split(std::span<std::string_view> out) const;

  /// Parses a non-negative 64-bit integer token; `what` names it in messages ("row index").
  LOOM_DECL std::int64_t count(std::string_view token, const std::string& what) const;

  static constexpr std::string_view blanks = " \t\r\v\f";

  /// Reports the bytes read under `phase` to the progress callback, if one is set (the total is
  /// what remains of the stream, or unknown when it cannot seek).
  LOOM_DECL void report_progress(std::string_view phase);
  /// The last report (done == total), once the caller has used what was read.
  void finish_progress() { progress_.finish(bytes_); }

 private:
  std::istream& in_;
  std::string name_;
  std::string line_;
  std::int64_t line_no_ = 0;
  std::int64_t bytes_ = 0;  // read so far, line ends included
  std::ios::iostate saved_exceptions_{};
  progress_reporter progress_;
};

/// The bytes from `in`'s position to its end, or -1 when it cannot seek (a pipe); the stream's
/// position and state are left as they were.
LOOM_DECL std::int64_t remaining_bytes(std::istream& in);

#if LOOM_HEADER_ONLY
LOOM_DEF line_reader::line_reader(std::istream& in, std::string name)
    : in_(in), name_(std::move(name)) {
  saved_exceptions_ = in_.exceptions();
  in_.exceptions(std::ios::goodbit);
}

LOOM_INLINE line_reader::~line_reader() {
  try {
    in_.exceptions(saved_exceptions_);
  } catch (...) {  // the restored mask may match the stream's end-of-file state
  }
}

LOOM_DEF bool line_reader::next() {
  if (!std::getline(in_, line_)) {
    if (in_.bad()) throw io_error(name_ + ":" + std::to_string(line_no_ + 1) + ": read error");
    return false;
  }
  ++line_no_;
  bytes_ += static_cast<std::int64_t>(line_.size()) + 1;
  progress_.advance_to(bytes_);
  if (line_no_ == 1 && line_.starts_with("\xEF\xBB\xBF")) line_.erase(0, 3);  // UTF-8 mark
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

LOOM_DEF bool line_reader::next_data(std::string_view comment_chars) {
  while (next()) {
    const std::size_t first = line_.find_first_not_of(blanks);
    if (first != std::string::npos && comment_chars.find(line_[first]) == std::string_view::npos)
      return true;
  }
  return false;
}

LOOM_DEF std::string line_reader::where(std::int64_t line) const {
  return name_ + ":" + std::to_string(line > 0 ? line : line_number()) + ": ";
}

LOOM_DEF void line_reader::fail(const std::string& what, std::int64_t line) const {
  throw parse_error(where(line) + what);
}

LOOM_DEF std::size_t line_reader::split(std::span<std::string_view> out) const {
  std::size_t count = 0;
  std::string_view rest(line_);
  while (count < out.size()) {
    const std::size_t b = rest.find_first_not_of(blanks);
    if (b == std::string_view::npos) break;
    rest.remove_prefix(b);
    const std::size_t e = std::min(rest.find_first_of(blanks), rest.size());
    out[count++] = rest.substr(0, e);
    rest.remove_prefix(e);
  }
  return count;
}

LOOM_DEF std::int64_t line_reader::count(std::string_view token, const std::string& what) const {
  std::int64_t v = 0;
  switch (parse_integer(token, v)) {
    case parse_status::ok:
      break;
    case parse_status::out_of_range:
      fail(what + " " + excerpt(token) + " does not fit a 64-bit integer");
    case parse_status::not_a_number:
      fail(what + " " + excerpt(token) + " is not an integer");
  }
  if (v < 0) fail(what + " is negative (" + std::to_string(v) + ")");
  return v;
}
LOOM_DEF void line_reader::report_progress(std::string_view phase) {
  if (progress_set.load(std::memory_order_relaxed))
    progress_.begin(phase, name_, remaining_bytes(in_), "bytes");
}

LOOM_DEF std::int64_t remaining_bytes(std::istream& in) {
  const std::ios::iostate state = in.rdstate();
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1)) return -1;
  in.seekg(0, std::ios::end);
  const std::istream::pos_type end = in.tellg();
  in.clear(state);
  in.seekg(here);
  in.clear(state);
  if (end == std::istream::pos_type(-1)) return -1;
  const std::streamoff left = std::streamoff(end) - std::streamoff(here);
  return left < 0 ? -1 : static_cast<std::int64_t>(left);
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_LINE_READER_HPP
