// MPI tests of loom's partitioned tile file (tra/mpi/tile_file.hpp), run by ctest under mpirun
// with 1 to 4 ranks: a matrix written by every rank and read back with each rank reading only
// its own part (the bytes it read and held checked exactly, nothing sent), read into another
// partition and by another number of ranks (a share of the parts each, then one exchange), a
// failed write that leaves the existing file whole, and the errors on every rank.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support.hpp"
#include <unistd.h>

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {
using mpi_test::random_matrix;
using csr_relation = sparse_relation<double, loom::csr>;

bool same_tiles(const csr_relation& a, const csr_relation& b) {
  if (a.size() != b.size() || a.bounds() != b.bounds()) return false;
  for (const auto& [key, t] : a) {
    const auto* u = b.find(key);
    if (!u || u->nnz() != t.nnz()) return false;
    bool same = true;
    t.for_each_stored([&](const auto& c, double v) { same = same && u->at(c[0], c[1]) == v; });
    if (!same) return false;
  }
  return true;
}

// A directory every rank agrees on (rank 0's process id).
std::string scratch(const lm::transport& tr) {
  long id = static_cast<long>(getpid());
  MPI_Bcast(&id, 1, MPI_LONG, 0, tr.comm());
  const auto dir =
      std::filesystem::temp_directory_path() / ("loom_tile_file_" + std::to_string(id));
  if (tr.rank() == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(tr.comm());
  return dir.string();
}

template <class F> bool throws_with(F&& f, const std::string& part) {
  try {
    f();
  } catch (const loom::error& e) {
    return std::string(e.what()).find(part) != std::string::npos;
  }
  return false;
}

void test_round_trips(const lm::transport& tr, const std::string& dir) {
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(70, 53, 4, 5);
  const auto whole = to_sparse_tiles<loom::csr>(M, {8, 8});
  const std::string path = dir + "/m.tiles";
  for (const auto& part : {lm::tile_partition::row_blocks(s), lm::tile_partition::hashed(s),
                           lm::tile_partition::cyclic(s, {1})}) {
    const auto A = lm::distribute(tr, whole, M.shape(), part, "M");
    lm::write_tiles(tr, A, path);
    MPI_TEST_CHECK(!std::filesystem::exists(path + ".loom-tmp"));
    const auto h = lm::read_tile_header<double, loom::csr>(path);
    MPI_TEST_CHECK(h.shape == M.shape() && h.nnz == whole.nnz() &&
                   h.tiles == static_cast<std::int64_t>(whole.size()));
    MPI_TEST_CHECK(static_cast<int>(h.parts.size()) == s);
    // read in the file's partition: rank r reads the header and part r, sends nothing
    lm::tile_read_report rep;
    const auto B = lm::read_tiles<double, loom::csr>(tr, path, std::nullopt, &rep);
    MPI_TEST_CHECK(same_tiles(B.tiles, A.tiles));
    MPI_TEST_CHECK(rep.parts_read == std::vector<std::int64_t>{tr.rank()});
    std::int64_t mine = 0;
    for (const auto& [key, t] : A.tiles) mine += static_cast<std::int64_t>(lm::packed_bytes(t));
    MPI_TEST_CHECK(rep.bytes_read == h.header_bytes + mine);
    MPI_TEST_CHECK(rep.sent.bytes == 0 && rep.sent.messages == 0);
    // read into another partition: a share of the parts, then the tiles to their owners
    const auto other = lm::tile_partition::col_blocks(s);
    const auto C = lm::read_tiles<double, loom::csr>(tr, path, other, &rep);
    MPI_TEST_CHECK(same_tiles(C.tiles, lm::distribute(tr, whole, M.shape(), other).tiles));
    MPI_TEST_CHECK(rep.bytes_read == h.header_bytes + mine);  // one part per rank here too
    MPI_TEST_CHECK(rep.sent.bytes == lm::bytes_leaving(tr, B, other));
  }
  // by one rank alone (a job of one): it reads every part
  const lm::transport self(MPI_COMM_SELF);
  lm::tile_read_report rep;
  const auto all = lm::read_tiles<double, loom::csr>(self, path, std::nullopt, &rep);
  MPI_TEST_CHECK(same_tiles(all.tiles, whole));
  MPI_TEST_CHECK(static_cast<int>(rep.parts_read.size()) == s);
  // written by rank 0 alone, read by every rank: one rank reads the one part and sends the rest
  if (tr.rank() == 0)
    lm::write_tiles(self, lm::distribute(self, whole, M.shape(), lm::tile_partition::row_blocks(1)),
                    dir + "/one.tiles");
  MPI_Barrier(tr.comm());
  const auto R = lm::read_tiles<double, loom::csr>(tr, dir + "/one.tiles", std::nullopt, &rep);
  MPI_TEST_CHECK(R.partition.layout() == lm::tile_layout::row_blocks);
  MPI_TEST_CHECK(same_tiles(
      R.tiles, lm::distribute(tr, whole, M.shape(), lm::tile_partition::row_blocks(s)).tiles));
  MPI_TEST_CHECK(rep.parts_read.size() == (tr.rank() == s - 1 ? 1u : 0u));  // the last rank
}

void test_failures(const lm::transport& tr, const std::string& dir) {
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(40, 40, 3, 9);
  const auto whole = to_sparse_tiles<loom::csr>(M, {8, 8});
  const auto A = lm::distribute(tr, whole, M.shape(), lm::tile_partition::row_blocks(s));
  const std::string path = dir + "/kept.tiles";
  lm::write_tiles(tr, A, path);
  // the temporary cannot be written (a directory holds its name): every rank throws, the file
  // written before is intact
  if (tr.rank() == 0) std::filesystem::create_directory(path + ".loom-tmp");
  MPI_Barrier(tr.comm());
  const auto N =
      lm::distribute(tr, to_sparse_tiles<loom::csr>(random_matrix(40, 40, 2, 10), {8, 8}),
                     M.shape(), lm::tile_partition::row_blocks(s));
  MPI_TEST_CHECK(throws_with([&] { lm::write_tiles(tr, N, path); }, "rank 0"));
  MPI_Barrier(tr.comm());
  if (tr.rank() == 0) std::filesystem::remove_all(path + ".loom-tmp");
  MPI_TEST_CHECK(same_tiles(lm::read_tiles<double, loom::csr>(tr, path).tiles, A.tiles));
  // another tile format or value type, a missing file, a file that is not a tile file
  MPI_TEST_CHECK(
      throws_with([&] { (void)lm::read_tiles<double, loom::dcsr>(tr, path); }, "not dcsr"));
  MPI_TEST_CHECK(
      throws_with([&] { (void)lm::read_tiles<float, loom::csr>(tr, path); }, "values asked for"));
  MPI_TEST_CHECK(throws_with([&] { (void)lm::read_tiles<double, loom::csr>(tr, dir + "/none"); },
                             "cannot open"));
  if (tr.rank() == 0) std::ofstream(dir + "/text") << "%%MatrixMarket matrix coordinate\n";
  MPI_Barrier(tr.comm());
  MPI_TEST_CHECK(throws_with([&] { (void)lm::read_tiles<double, loom::csr>(tr, dir + "/text"); },
                             "not a loom tile file"));
  // a file only rank 0 finds (the others are given a missing one): every rank throws, and rank
  // 0 learns which rank failed instead of waiting for it
  if (s > 1) {
    const std::string mine = tr.rank() == 0 ? path : dir + "/missing_on_this_rank";
    MPI_TEST_CHECK(
        throws_with([&] { (void)lm::read_tiles<double, loom::csr>(tr, mine); },
                    tr.rank() == 0 ? "rank " + std::to_string(s - 1) + " failed" : "cannot open"));
  }
}
}  // namespace

int main(int argc, char** argv) {
  int timeout = 60;
  for (int a = 1; a + 1 < argc; a += 2)
    if (!std::strcmp(argv[a], "--timeout")) timeout = std::atoi(argv[a + 1]);
  lm::environment env(argc, argv, std::chrono::seconds(timeout));
  return lm::run_or_abort([&] {
    lm::transport tr;
    const std::string dir = scratch(tr);
    test_round_trips(tr, dir);
    test_failures(tr, dir);
    MPI_Barrier(tr.comm());
    if (tr.rank() == 0) std::filesystem::remove_all(dir);
    if (tr.rank() == 0)
      std::printf("tests.mpi.tile_file: %d ranks, %d checks on rank 0 passed\n",
                  static_cast<int>(tr.sites()), mpi_test::checks);
    return 0;
  });
}
