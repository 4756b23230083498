// Defines loom::relational::detail::file_bytes: the bytes of a file for the CSV reader, mapped
// into memory where POSIX allows it, else read through a stream (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_FILE_BYTES_HPP
#define LOOM_RELATIONAL_FILE_BYTES_HPP

#include <loom/core/config.hpp>
#include <loom/core/error.hpp>

#include <fstream>
#include <ios>
#include <iterator>
#include <string>
#include <string_view>

#if __has_include(<sys/mman.h>) && __has_include(<sys/stat.h>) && __has_include(<fcntl.h>) && \
    __has_include(<unistd.h>)
#  include <fcntl.h>     // open
#  include <sys/mman.h>  // mmap, munmap
#  include <sys/stat.h>  // fstat
#  include <unistd.h>    // close
#endif

namespace loom::relational::detail {

/// The bytes of a file: mapped into memory where POSIX mmap is available (no copy, no
/// zero-filled buffer), else, and for what cannot be mapped (pipes, empty files), read through a
/// stream. A mapped file must not shrink while it is read.
class file_bytes {
 public:
  LOOM_DECL explicit file_bytes(const std::string& path);
  file_bytes(const file_bytes&) = delete;
  file_bytes& operator=(const file_bytes&) = delete;
  LOOM_INLINE ~file_bytes();
  std::string_view text() const { return text_; }

 private:
  void* mapped_ = nullptr;
  std::string read_;
  std::string_view text_;
};

#if LOOM_HEADER_ONLY
LOOM_DEF file_bytes::file_bytes(const std::string& path) {
#  if __has_include(<sys/mman.h>) && __has_include(<sys/stat.h>) && __has_include(<fcntl.h>) && \
    __has_include(<unistd.h>)
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw io_error(path + ": cannot open the file");
  struct stat st {};
  const bool stated = ::fstat(fd, &st) == 0;
  if (stated && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw io_error(path + ": cannot read the file: it is a directory");
  }
  if (stated && S_ISREG(st.st_mode) && st.st_size > 0) {
    int flags = MAP_PRIVATE;
#    ifdef MAP_POPULATE
    flags |= MAP_POPULATE;  // map every page now rather than one fault at a time
#    endif
    void* m = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, flags, fd, 0);
    if (m != MAP_FAILED) {
      mapped_ = m;
      text_ = std::string_view(static_cast<const char*>(m), static_cast<std::size_t>(st.st_size));
    }
  }
  ::close(fd);
  if (mapped_ != nullptr) return;
#  endif
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io_error(path + ": cannot open the file");
  try {  // libstdc++'s filebuf throws on a read error (EISDIR, EIO) rather than setting badbit
    read_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {
    throw io_error(path + ": read error (" + e.what() + ")");
  }
  if (in.bad()) throw io_error(path + ": read error");
  text_ = read_;
}

LOOM_INLINE file_bytes::~file_bytes() {
#  if __has_include(<sys/mman.h>) && __has_include(<sys/stat.h>) && __has_include(<fcntl.h>) && \
    __has_include(<unistd.h>)
  if (mapped_ != nullptr) ::munmap(mapped_, text_.size());
#  endif
}
#endif  // LOOM_HEADER_ONLY
}  // namespace loom::relational::detail

#endif  // LOOM_RELATIONAL_FILE_BYTES_HPP
