// Defines the file plumbing of the readers and writers: opening, buffered writing, replacing a
// file all or nothing (io/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_DETAIL_OUTPUT_HPP
#define LOOM_IO_DETAIL_OUTPUT_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <cerrno>
#include <fstream>
#if LOOM_HEADER_ONLY  // for the definitions only
#  include <atomic>
#  include <filesystem>
#  if __has_include(<unistd.h>)
#    include <unistd.h>  // access, getpid
#    define LOOM_IO_HAVE_UNISTD 1
#  else
#    define LOOM_IO_HAVE_UNISTD 0
#  endif
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

/// A write to an output stream failed: an `io_error` that keeps the OS error (errno, 0 when
/// unknown), so that a writer to a path can name the path and the reason.
class stream_failure : public io_error {
 public:
  stream_failure(const std::string& what, int os_error) : io_error(what), code(os_error) {}
  int code;
};

/// Text collected in `text` and handed to the stream in blocks of about 64 KiB; a failed write
/// throws `stream_failure` with the OS reason.
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

/// The file a writer creates in place of `path`. The text goes to a temporary file beside it
/// (`<path>.tmp.<pid>.<n>`, in the same directory so that the rename cannot cross file systems),
/// which commit() renames over `path` only after a successful flush and close: a failed write
/// leaves the old file byte for byte as it was, and no temporary behind (the destructor removes
/// it). The replacement keeps the old file's permissions; a symbolic link is followed (the file
/// it names is replaced). A target that exists and is not a regular file (a device such as
/// /dev/full or /dev/stdout, a pipe) is written directly, since renaming over it would replace
/// the device by a file. Every error names the path and the OS reason.
class output_file {
 public:
  LOOM_DECL output_file(const std::string& path, std::string_view api);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  LOOM_INLINE ~output_file();

  std::ostream& stream() { return out_; }
  /// Flushes, closes and renames the temporary over the target, or throws `io_error`.
  LOOM_DECL void commit();
  /// Removes the temporary and throws `io_error` naming the path and the OS error `code`.
  LOOM_DECL [[noreturn]] void fail(int code, std::string_view doing = "writing");

 private:
  std::string api_;
  std::string path_;       // as the caller named it, for messages
  std::string target_;     // the file replaced: path_, or what its symbolic links lead to
  std::string temporary_;  // empty when the target is written directly
  bool existed_ = false;   // whether the target was there before (for the message)
  std::ofstream out_;
  bool done_ = false;
};

/// Writes the file at `path` through `write(std::ostream&)`, all or nothing (`output_file`).
template <class Write>
void write_file(const std::string& path, std::string_view api, Write&& write) {
  output_file file(path, api);
  try {
    write(file.stream());
  } catch (const stream_failure& e) {
    file.fail(e.code);
  }  // any other exception: ~output_file removes the temporary
  file.commit();
}

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

LOOM_DEF void output_buffer::flush() {
  errno = 0;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  text.clear();
  if (!out) {
    const int code = errno;
    throw stream_failure(std::string(api) + ": the output stream failed" + errno_text(), code);
  }
}

LOOM_DEF void output_buffer::finish() {
  flush();
  errno = 0;
  out.flush();  // a file stream may report a failed write only now
  if (!out) {
    const int code = errno;
    throw stream_failure(std::string(api) + ": the output stream failed" + errno_text(), code);
  }
}

LOOM_DEF output_file::output_file(const std::string& path, std::string_view api)
    : api_(api), path_(path), target_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // follow symbolic links (dangling ones too): the link stays, the file it names is replaced
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(target_, ec)); ++hops) {
    const fs::path next = fs::read_symlink(target_, ec);
    if (ec) break;
    target_ = (next.is_absolute() ? next : fs::path(target_).parent_path() / next).string();
  }
  const fs::file_status status = fs::status(target_, ec);
  if (fs::is_directory(status))
    throw io_error(api_ + ": cannot write '" + path_ + "': it is a directory");
  existed_ = fs::exists(status);
  errno = 0;
  if (existed_ && !fs::is_regular_file(status)) {  // a device or a pipe: written in place
    out_.open(target_, std::ios::binary | std::ios::trunc);
    if (!out_) throw io_error(api_ + ": cannot open '" + path_ + "' for writing" + errno_text());
    return;
  }
#  if LOOM_IO_HAVE_UNISTD
  // a read-only file stays protected, as when it was opened in place
  if (existed_ && ::access(target_.c_str(), W_OK) != 0)
    throw io_error(api_ + ": cannot open '" + path_ + "' for writing" + errno_text());
#  endif
  // a name no one else uses: this process's id and a counter, checked against the directory
  static std::atomic<unsigned> counter{0};
#  if LOOM_IO_HAVE_UNISTD
  const std::string pid = std::to_string(::getpid());
#  else
  const std::string pid = "0";
#  endif
  do {
    temporary_ = target_ + ".tmp." + pid + "." + std::to_string(counter++);
  } while (fs::exists(fs::symlink_status(temporary_, ec)));
  errno = 0;
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const std::string reason = errno_text();
    temporary_.clear();  // nothing to remove
    const fs::path parent = fs::path(target_).parent_path();
    throw io_error(api_ + ": cannot write '" + path_ + "': cannot create a file in '" +
                   (parent.empty() ? std::string(".") : parent.string()) + "'" + reason);
  }
  if (existed_)  // set now, so that the text is never readable by more than the old file was
    fs::permissions(temporary_, status.permissions(), ec);  // best effort: owner may differ
}

LOOM_INLINE output_file::~output_file() {
  if (done_ || temporary_.empty()) return;
  if (out_.is_open()) out_.close();
  std::error_code ec;
  std::filesystem::remove(temporary_, ec);
}

LOOM_DEF void output_file::commit() {
  errno = 0;
  out_.flush();
  if (!out_) fail(errno);
  errno = 0;
  out_.close();  // the last buffered bytes reach the file now: check again
  if (!out_) fail(errno);
  if (!temporary_.empty()) {
    std::error_code ec;
    std::filesystem::rename(temporary_, target_, ec);
    if (ec) fail(ec.value(), "replacing");
  }
  done_ = true;
}

LOOM_DEF void output_file::fail(int code, std::string_view doing) {
  if (out_.is_open()) out_.close();
  std::string why = api_ + ": " + std::string(doing) + " '" + path_ + "' failed";
  if (code != 0) why += ": " + std::generic_category().message(code);
  if (!temporary_.empty()) {
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
    why += existed_ ? "; the file is left as it was" : "; no file was created";
  }
  done_ = true;
  throw io_error(why);
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
