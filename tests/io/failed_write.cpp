// Tests that the writers to a path are all or nothing: a write that fails (a file-size limit, a
// directory without write permission, a full device) leaves the old file byte for byte and no
// temporary file behind, and its error names the path and the OS reason; a write that succeeds
// replaces the file and keeps its permissions.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>
#include <loom/io/tns.hpp>
#include <loom/relational/table.hpp>

#include <doctest/doctest.h>

#include <array>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/resource.h>  // setrlimit
#include <sys/wait.h>      // waitpid
#include <unistd.h>        // fork, pipe, geteuid

namespace {

namespace fs = std::filesystem;

/// A fresh directory under the system's temporary folder, removed with everything in it.
struct scratch_dir {
  fs::path path;
  scratch_dir() {
    static int count = 0;
    path = fs::temp_directory_path() /
           ("loom_failed_write_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  /// The names in the directory: a leftover temporary shows here.
  std::set<std::string> names() const {
    std::set<std::string> found;
    for (const auto& entry : fs::directory_iterator(path))
      found.insert(entry.path().filename().string());
    return found;
  }
};

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

loom::tensor<double, loom::csr> small_matrix() {
  return loom::from_coo<loom::csr>({3, 3}, {{0, 0}, {1, 2}, {2, 1}},
                                   std::vector<double>{1.5, -2.0, 4.25});
}

/// About 1.3 MB of Matrix Market text: far beyond the file-size limit below.
loom::tensor<double, loom::csr> big_matrix() {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  for (std::int64_t r = 0; r < 10000; ++r)
    for (std::int64_t c = 0; c < 5; ++c) {
      coords.push_back({r, (r * 7919 + c * 104729) % 10000});
      values.push_back(0.1234567 * static_cast<double>(r + c + 1));
    }
  return loom::from_coo<loom::csr>({10000, 10000}, coords, values);
}

loom::relational::table big_table() {
  std::vector<std::int64_t> keys(200000);
  for (std::size_t r = 0; r < keys.size(); ++r) keys[r] = static_cast<std::int64_t>(r * 1000003);
  loom::relational::table t("big");
  t.add(loom::relational::column("key", std::move(keys)));
  return t;
}

constexpr rlim_t file_size_limit = 1 << 16;  // 64 KiB

/// Runs `write` in a child process whose files may not grow past `file_size_limit` (SIGXFSZ
/// ignored, so that the write fails with EFBIG instead of killing the child) and returns what it
/// reports: "io_error: <what>", "other: <what>" or "no error".
std::string write_under_file_size_limit(const std::function<void()>& write) {
  int channel[2];
  REQUIRE(::pipe(channel) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // no doctest here: report through the pipe and leave with _exit
    ::close(channel[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{file_size_limit, file_size_limit};
    std::string report = "no error";
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
      report = "setrlimit failed";
    else
      try {
        write();
      } catch (const loom::io_error& e) {
        report = std::string("io_error: ") + e.what();
      } catch (const std::exception& e) {
        report = std::string("other: ") + e.what();
      }
    const ssize_t written = ::write(channel[1], report.data(), report.size());
    ::_exit(written == static_cast<ssize_t>(report.size()) ? 0 : 1);
  }
  ::close(channel[1]);
  std::string report;
  char block[512];
  for (ssize_t n; (n = ::read(channel[0], block, sizeof block)) > 0;)
    report.append(block, static_cast<std::size_t>(n));
  ::close(channel[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  return report;
}

}  // namespace

TEST_CASE("failed write: a file-size limit leaves the old file and no temporary") {
  scratch_dir dir;
  const std::string mtx = dir.file("A.mtx"), tns = dir.file("A.tns"), csv = dir.file("t.csv");
  loom::write_matrix_market(mtx, small_matrix());
  loom::write_tns(tns, small_matrix());
  { std::ofstream(csv) << "key\n1\n2\n"; }
  const std::string old_mtx = bytes_of(mtx), old_tns = bytes_of(tns), old_csv = bytes_of(csv);
  const auto big = big_matrix();
  const auto table = big_table();

  // (no structured binding: clang 14's CAPTURE cannot name one)
  for (const auto& target : std::vector<std::pair<std::string, std::function<void()>>>{
           {mtx, [&] { loom::write_matrix_market(mtx, big); }},
           {tns, [&] { loom::write_tns(tns, big); }},
           {csv, [&] { table.write_csv(csv); }}}) {
    const std::string& path = target.first;
    CAPTURE(path);
    const std::string report = write_under_file_size_limit(target.second);
    CAPTURE(report);
    CHECK(report.starts_with("io_error: "));
    CHECK(report.find("'" + path + "'") != std::string::npos);
    CHECK(report.find("File too large") != std::string::npos);
    CHECK(report.find("the file is left as it was") != std::string::npos);
  }
  CHECK(bytes_of(mtx) == old_mtx);
  CHECK(bytes_of(tns) == old_tns);
  CHECK(bytes_of(csv) == old_csv);
  CHECK(dir.names() == std::set<std::string>{"A.mtx", "A.tns", "t.csv"});

  // a new file that fails is not created at all
  const std::string fresh = dir.file("new.mtx");
  const std::string report =
      write_under_file_size_limit([&] { loom::write_matrix_market(fresh, big); });
  CAPTURE(report);
  CHECK(report.find("File too large; no file was created") != std::string::npos);
  CHECK(dir.names() == std::set<std::string>{"A.mtx", "A.tns", "t.csv"});
}

TEST_CASE("failed write: a directory without write permission") {
  // Root writes whatever the permission bits say (CI runs as root), so there the write would
  // succeed and the case proves nothing: it is skipped. The file-size limit and /dev/full cases
  // fail for root too.
  if (::geteuid() == 0) {
    MESSAGE("skipped: running as root, where a 0555 directory does not stop a write");
    return;
  }
  scratch_dir dir;
  const std::string mtx = dir.file("A.mtx");
  loom::write_matrix_market(mtx, small_matrix());
  const std::string old = bytes_of(mtx);
  fs::permissions(dir.path, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read |
                                fs::perms::others_exec);
  try {
    loom::write_matrix_market(mtx, big_matrix());
    FAIL("the write succeeded in a read-only directory");
  } catch (const loom::io_error& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("'" + mtx + "'") != std::string::npos);
    CHECK(what.find("Permission denied") != std::string::npos);
  }
  CHECK(bytes_of(mtx) == old);
  CHECK(dir.names() == std::set<std::string>{"A.mtx"});

  // a read-only file in a writable directory stays protected, as when it was written in place
  fs::permissions(dir.path, fs::perms::owner_all);
  fs::permissions(mtx, fs::perms::owner_read);
  CHECK_THROWS_WITH_AS(loom::write_matrix_market(mtx, big_matrix()),
                       doctest::Contains("Permission denied"), loom::io_error);
  CHECK(bytes_of(mtx) == old);
  CHECK(dir.names() == std::set<std::string>{"A.mtx"});
}

TEST_CASE("failed write: /dev/full is written in place and the error names it") {
  if (!fs::is_character_file("/dev/full")) {
    MESSAGE("skipped: no /dev/full");
    return;
  }
  // small text fails when it is flushed at the end, big text in the middle of the write
  for (const auto& A : {small_matrix(), big_matrix()}) {
    try {
      loom::write_matrix_market("/dev/full", A);
      FAIL("writing /dev/full succeeded");
    } catch (const loom::io_error& e) {
      const std::string what = e.what();
      CAPTURE(what);
      CHECK(what.find("'/dev/full'") != std::string::npos);
      CHECK(what.find("No space left on device") != std::string::npos);
    }
  }
  CHECK_THROWS_WITH_AS(loom::write_tns("/dev/full", big_matrix()),
                       doctest::Contains("No space left on device"), loom::io_error);
  CHECK_THROWS_WITH_AS(big_table().write_csv("/dev/full"), doctest::Contains("'/dev/full'"),
                       loom::io_error);
  CHECK(fs::is_character_file("/dev/full"));  // still the device, not a file renamed over it

  // the stream overload gives the OS reason too
  std::ofstream full("/dev/full", std::ios::binary);
  CHECK_THROWS_WITH_AS(loom::write_matrix_market(full, big_matrix()),
                       doctest::Contains("No space left on device"), loom::io_error);
}

TEST_CASE("failed write: an error of the formatting code leaves the old file") {
  scratch_dir dir;
  const std::string mtx = dir.file("A.mtx");
  loom::write_matrix_market(mtx, small_matrix());
  const std::string old = bytes_of(mtx);
  // the array layout of a matrix larger than max_dense_elements is refused (a loom::error)
  CHECK_THROWS_AS(loom::write_matrix_market(
                      mtx, big_matrix(),
                      {.layout = loom::matrix_market_layout::array, .max_dense_elements = 100}),
                  loom::error);
  CHECK(bytes_of(mtx) == old);
  CHECK(dir.names() == std::set<std::string>{"A.mtx"});
}

TEST_CASE("write to a path: the new text replaces the old, permissions and links kept") {
  scratch_dir dir;
  const std::string mtx = dir.file("A.mtx");
  loom::write_matrix_market(mtx, big_matrix());
  const auto rw_r = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read;
  fs::permissions(mtx, rw_r);
  loom::write_matrix_market(mtx, small_matrix());
  std::ostringstream expected;
  loom::write_matrix_market(expected, small_matrix());
  CHECK(bytes_of(mtx) == expected.str());
  CHECK(fs::status(mtx).permissions() == rw_r);
  CHECK(dir.names() == std::set<std::string>{"A.mtx"});

  // through a symbolic link: the file it names is replaced, the link stays
  const std::string link = dir.file("link.mtx");
  fs::create_symlink("A.mtx", link);
  loom::write_matrix_market(link, big_matrix());
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  std::ostringstream big_text;
  loom::write_matrix_market(big_text, big_matrix());
  CHECK(bytes_of(mtx) == big_text.str());
  CHECK(fs::status(mtx).permissions() == rw_r);
  CHECK(dir.names() == std::set<std::string>{"A.mtx", "link.mtx"});

  // a chain of links, one absolute and one relative, is followed to its end
  const std::string chain = dir.file("chain.mtx");
  fs::create_symlink(link, chain);  // absolute, to link.mtx, which names A.mtx
  loom::write_matrix_market(chain, small_matrix());
  CHECK(bytes_of(mtx) == expected.str());
  CHECK(fs::is_symlink(fs::symlink_status(chain)));

  // a dangling link into a subdirectory: the file it names is created there, the link stays
  fs::create_directory(dir.path / "sub");
  const std::string ghost = dir.file("ghost.mtx");
  fs::create_symlink("sub/B.mtx", ghost);
  loom::write_matrix_market(ghost, small_matrix());
  CHECK(fs::is_symlink(fs::symlink_status(ghost)));
  CHECK(bytes_of(dir.file("sub/B.mtx")) == expected.str());
  CHECK(std::distance(fs::directory_iterator(dir.path / "sub"), fs::directory_iterator()) == 1);
  fs::remove(ghost);
  fs::remove(chain);
  fs::remove_all(dir.path / "sub");

  // a directory is refused by name
  CHECK_THROWS_WITH_AS(loom::write_matrix_market(dir.path.string(), small_matrix()),
                       doctest::Contains("it is a directory"), loom::io_error);

  // write_tns and write_csv the same way
  const std::string tns = dir.file("A.tns"), csv = dir.file("t.csv");
  loom::write_tns(tns, big_matrix());
  loom::write_tns(tns, small_matrix());
  std::ostringstream tns_text;
  loom::write_tns(tns_text, small_matrix());
  CHECK(bytes_of(tns) == tns_text.str());
  big_table().write_csv(csv);
  loom::relational::table t("t");
  t.add(loom::relational::column("key", std::vector<std::int64_t>{1, 2}));
  t.write_csv(csv, ';');
  CHECK(bytes_of(csv) == "key\n1\n2\n");
  CHECK(dir.names() == std::set<std::string>{"A.mtx", "A.tns", "link.mtx", "t.csv"});
}
