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
#  include <cstdio>  // std::rename, std::remove
// POSIX calls where they exist: <filesystem> alone costs about a tenth of <loom/kernels.hpp>'s
// compile time
#  if __has_include(<unistd.h>) && __has_include(<sys/stat.h>)
#    include <sys/stat.h>  // stat, lstat, chmod
#    include <unistd.h>    // access, getpid, readlink
#    define LOOM_IO_POSIX 1
#  else
#    include <filesystem>
#    define LOOM_IO_POSIX 0
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
/// What a path names, and the little of the file system a writer needs: POSIX calls where
/// they exist, <filesystem> elsewhere.
namespace file_system {
enum class kind { none, regular, directory, symlink, other };

/// The kind of file at `path`; `follow`: of what its symbolic links lead to.
inline kind kind_of(const std::string& path, bool follow) {
#  if LOOM_IO_POSIX
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return kind::none;
  if (S_ISREG(st.st_mode)) return kind::regular;
  if (S_ISDIR(st.st_mode)) return kind::directory;
  return S_ISLNK(st.st_mode) ? kind::symlink : kind::other;
#  else
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status s = follow ? fs::status(path, ec) : fs::symlink_status(path, ec);
  if (!fs::exists(s)) return kind::none;
  if (fs::is_regular_file(s)) return kind::regular;
  if (fs::is_directory(s)) return kind::directory;
  return fs::is_symlink(s) ? kind::symlink : kind::other;
#  endif
}

/// The target of the symbolic link `path`, or empty.
inline std::string link_target(const std::string& path) {
#  if LOOM_IO_POSIX
  std::string target(256, '\0');
  for (;;) {
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < target.size()) return target.substr(0, n);
    target.resize(target.size() * 2);
  }
#  else
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::read_link(path, ec);
  return ec ? std::string() : target.string();
#  endif
}

/// The directory part of `path` ("" for a bare name, "/" for a file in the root).
inline std::string parent_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

/// `path`'s symbolic links followed (dangling ones too), at most 40 of them.
inline std::string resolve_links(std::string path) {
  for (int hops = 0; hops < 40 && kind_of(path, false) == kind::symlink; ++hops) {
    const std::string next = link_target(path);
    if (next.empty()) break;
    if (next.front() == '/') {
      path = next;
    } else {
      const std::string parent = parent_of(path);
      path = parent.empty() ? next : parent.back() == '/' ? parent + next : parent + '/' + next;
    }
  }
  return path;
}

/// Gives `to` the permission bits of `from`, as far as the OS lets it (the owner may differ).
inline void copy_permissions(const std::string& from, const std::string& to) {
#  if LOOM_IO_POSIX
  struct stat st {};
  if (::stat(from.c_str(), &st) == 0) (void)::chmod(to.c_str(), st.st_mode & 07777);
#  else
  std::error_code ec;
  const std::filesystem::file_status s = std::filesystem::status(from, ec);
  if (!ec) std::filesystem::permissions(to, s.permissions(), ec);
#  endif
}
}  // namespace file_system

LOOM_DEF std::string errno_text() {
  const int e = errno;
  return e == 0 ? std::string() : ": " + std::generic_category().message(e);
}

LOOM_DEF std::ifstream open_for_reading(const std::string& path, std::string_view api) {
  if (file_system::kind_of(path, true) == file_system::kind::directory)
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
    : api_(api), path_(path), target_(file_system::resolve_links(path)) {
  // symbolic links are followed: the link stays, the file it names is replaced
  const file_system::kind kind = file_system::kind_of(target_, true);
  if (kind == file_system::kind::directory)
    throw io_error(api_ + ": cannot write '" + path_ + "': it is a directory");
  existed_ = kind != file_system::kind::none;
  errno = 0;
  if (existed_ && kind != file_system::kind::regular) {  // a device or a pipe: written in place
    out_.open(target_, std::ios::binary | std::ios::trunc);
    if (!out_) throw io_error(api_ + ": cannot open '" + path_ + "' for writing" + errno_text());
    return;
  }
#  if LOOM_IO_POSIX
  // a read-only file stays protected, as when it was opened in place
  if (existed_ && ::access(target_.c_str(), W_OK) != 0)
    throw io_error(api_ + ": cannot open '" + path_ + "' for writing" + errno_text());
#  endif
  // a name no one else uses: this process's id and a counter, checked against the directory
  static std::atomic<unsigned> counter{0};
#  if LOOM_IO_POSIX
  const std::string pid = std::to_string(::getpid());
#  else
  const std::string pid = "0";
#  endif
  do {
    temporary_ = target_ + ".tmp." + pid + "." + std::to_string(counter++);
  } while (file_system::kind_of(temporary_, false) != file_system::kind::none);
  errno = 0;
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const std::string reason = errno_text();
    temporary_.clear();  // nothing to remove
    const std::string parent = file_system::parent_of(target_);
    throw io_error(api_ + ": cannot write '" + path_ + "': cannot create a file in '" +
                   (parent.empty() ? std::string(".") : parent) + "'" + reason);
  }
  // set now, so that the text is never readable by more than the old file was
  if (existed_) file_system::copy_permissions(target_, temporary_);
}

LOOM_INLINE output_file::~output_file() {
  if (done_ || temporary_.empty()) return;
  if (out_.is_open()) out_.close();
  (void)std::remove(temporary_.c_str());
}

LOOM_DEF void output_file::commit() {
  errno = 0;
  out_.flush();
  if (!out_) fail(errno);
  errno = 0;
  out_.close();  // the last buffered bytes reach the file now: check again
  if (!out_) fail(errno);
  if (!temporary_.empty()) {
    errno = 0;
    if (std::rename(temporary_.c_str(), target_.c_str()) != 0) fail(errno, "replacing");
  }
  done_ = true;
}

LOOM_DEF void output_file::fail(int code, std::string_view doing) {
  if (out_.is_open()) out_.close();
  std::string why = api_ + ": " + std::string(doing) + " '" + path_ + "' failed";
  if (code != 0) why += ": " + std::generic_category().message(code);
  if (!temporary_.empty()) {
    (void)std::remove(temporary_.c_str());
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
