// Defines the file plumbing of the readers and writers: opening, buffered writing (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_OUTPUT_HPP
#define LOOM_IO_DETAIL_OUTPUT_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <cerrno>
#include <fstream>
#if LOOM_HEADER_ONLY  // for open_for_reading's definition only
#  include <filesystem>
#endif
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>

namespace loom::detail {

/// `: No such file or directory` for the current errno, or nothing.
LOOM_DECL std::string errno_text();

/// Opens `path` for reading or throws `io_error` naming `api` and the path.
LOOM_DECL std::ifstream open_for_reading(const std::string& path, std::string_view api);

/// Creates or truncates `path` for writing, or throws `io_error`.
LOOM_DECL std::ofstream open_for_writing(const std::string& path, std::string_view api);

/// Flushes and closes a written file, or throws `io_error`.
LOOM_DECL void close_written(std::ofstream& out, const std::string& path, std::string_view api);

/// Text collected in `text` and handed to the stream in blocks of about 64 KiB.
struct output_buffer {
  std::ostream& out;
  std::string_view api;
  std::string text{};

  output_buffer(std::ostream& o, std::string_view a) : out(o), api(a) { text.reserve(1 << 16); }
  void flush_if_full() {
    if (text.size() >= (1 << 16)) flush();
  }
  LOOM_DECL void flush();
  LOOM_DECL void finish();
};

/// Appends `comment` with every line prefixed by `mark` and a space.
LOOM_DECL void append_comment(std::string& text, std::string_view comment, char mark);

#if LOOM_HEADER_ONLY
LOOM_DEF std::string errno_text() {
  const int e = errno;
  return e == 0 ? std::string() : ": " + std::generic_category().message(e);
}

LOOM_DEF std::ifstream open_for_reading(const std::string& path, std::string_view api) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw io_error(std::string(api) + ": cannot read '" + path + "': it is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(std::string(api) + ": cannot open '" + path + "'" + errno_text());
  return in;
}

LOOM_DEF std::ofstream open_for_writing(const std::string& path, std::string_view api) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw io_error(std::string(api) + ": cannot open '" + path + "' for writing" + errno_text());
  return out;
}

LOOM_DEF void close_written(std::ofstream& out, const std::string& path, std::string_view api) {
  errno = 0;
  out.close();
  if (!out) throw io_error(std::string(api) + ": writing '" + path + "' failed" + errno_text());
}

LOOM_DEF void output_buffer::flush() {
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  text.clear();
  if (!out) throw io_error(std::string(api) + ": the output stream failed");
}

LOOM_DEF void output_buffer::finish() {
  flush();
  out.flush();
  if (!out) throw io_error(std::string(api) + ": the output stream failed");
}

LOOM_DEF void append_comment(std::string& text, std::string_view comment, char mark) {
  while (!comment.empty()) {
    const std::size_t end = comment.find('\n');
    const std::string_view line = comment.substr(0, end);
    text += mark;
    if (!line.empty()) (text += ' ') += line;
    text += '\n';
    if (end == std::string_view::npos) break;
    comment.remove_prefix(end + 1);
  }
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::detail

#endif  // LOOM_IO_DETAIL_OUTPUT_HPP
