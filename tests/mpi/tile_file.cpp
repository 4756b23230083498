// MPI tests of loom's partitioned tile file (tra/mpi/tile_file.hpp), run by ctest under mpirun
// with 1 to 4 ranks: a matrix written by every rank and read back with each rank reading only
// its own part (the bytes it read and held checked exactly, nothing sent), read into another
// partition and by another number of ranks (a share of the parts each, then one exchange), a
// failed write that leaves the existing file whole, the same file as a machine of the other byte
// order and loom's version 1 would have written it, and the errors (corrupt headers included) on
// every rank.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"
#include <unistd.h>

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {
using mpi_test::random_matrix;

template <class Format>
bool same_entries(const sparse_relation<double, Format>& tiles,
                  const loom::tensor<double, loom::csr>& M) {
  const auto back = from_sparse_tiles<loom::csr>(tiles, M.shape());
  for (std::int64_t r = 0; r < M.extent(0); ++r)
    for (std::int64_t c = 0; c < M.extent(1); ++c)
      if (back.at(r, c) != M.at(r, c)) return false;
  return true;
}

template <class Format>
bool same_tiles(const sparse_relation<double, Format>& a,
                const sparse_relation<double, Format>& b) {
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

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void put_file(const std::string& path, const std::vector<char>& b) {
  std::ofstream(path, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
}

// The fields of one tile of `Format` after its key, as the writer sends them: 'E' a level's
// extent (int64), 'A' one of its arrays (an int64 length, then elements of the width the header
// lists for it, in order); the values follow.
template <class Format> std::string tile_fields() {
  std::string f;
  typename loom::tensor<double, Format>::level_storages levels;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (..., [&](const auto& level) {
      if constexpr (requires { level.extent; }) f += 'E';
      lm::detail::for_each_level_array(level, [&](const auto&) { f += 'A'; });
    }(std::get<K>(levels)));
  }(std::make_index_sequence<Format::order>{});
  return f;
}

// A tile file of doubles (written here, in this machine's byte order) as a machine of the other
// byte order would have written it (`swap`: every number's bytes reversed, field by field),
// and/or as loom's version 1 wrote it (no byte order mark, no integer widths). Walks the format
// independently of the reader: header fields, then each tile's key, its `fields` (tile_fields)
// with the array widths `widths`, and the values.
std::vector<char> rewritten(const std::vector<char>& in, bool swap, bool as_version_1,
                            const std::string& fields, const std::vector<std::int64_t>& widths) {
  std::vector<char> out;
  std::size_t at = 0;
  auto emit = [&](const void* p, std::size_t w) {
    const char* c = static_cast<const char*>(p);
    std::vector<char> b(c, c + w);
    if (swap) std::reverse(b.begin(), b.end());
    out.insert(out.end(), b.begin(), b.end());
  };
  auto i64 = [&] {  // copies an int64, returns it
    std::int64_t v = 0;
    std::memcpy(&v, in.data() + at, 8);
    at += 8;
    emit(&v, 8);
    return v;
  };
  auto copy = [&](std::size_t n) {
    out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at),
               in.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  };
  auto array = [&](std::size_t w) {
    const auto n = i64();
    for (std::int64_t e = 0; e < n; ++e, at += w) emit(in.data() + at, w);
  };
  auto text = [&] { copy(static_cast<std::size_t>(i64())); };
  copy(8);  // LOOMTILE
  std::uint32_t version = 0;
  std::memcpy(&version, in.data() + at, 4);
  at += 4;
  version = as_version_1 ? 1 : version;
  emit(&version, 4);
  if (as_version_1)
    at += 4;
  else
    emit(in.data() + at, 4), at += 4;  // the byte order mark
  for (int f = 0; f < 9; ++f) i64();   // shape, bounds, tile shape, nnz, tiles, value bytes
  text();                              // value kind
  std::int64_t width_count = 0;
  std::memcpy(&width_count, in.data() + at, 8);
  if (as_version_1)
    at += 8 + 8 * static_cast<std::size_t>(width_count);
  else
    array(8);
  const std::int64_t removed = as_version_1 ? 4 + 8 + 8 * width_count : 0;
  text();                            // format
  emit(in.data() + at, 4), at += 4;  // layout
  i64();                             // ranks
  array(8);                          // cuts
  array(8);                          // key positions
  const auto parts = i64();
  for (std::int64_t p = 0; p < parts; ++p) {
    std::int64_t offset = 0;
    std::memcpy(&offset, in.data() + at, 8);
    at += 8;
    offset -= removed;
    emit(&offset, 8);
    for (int f = 0; f < 3; ++f) i64();  // bytes, tiles, nnz
  }
  while (at < in.size()) {  // the tiles
    i64(), i64();           // key
    std::size_t next_width = 0;
    for (const char f : fields)
      if (f == 'E')
        i64();
      else
        array(static_cast<std::size_t>(widths.at(next_width++)));
    array(8);  // values
  }
  return out;
}

template <class Format> void test_byte_orders(const lm::transport& tr, const std::string& dir) {
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(61, 47, 3, 17);
  const auto whole = to_sparse_tiles<Format>(M, {8, 6});
  const std::string fields = tile_fields<Format>();
  for (const auto& part : {lm::tile_partition::row_blocks(s), lm::tile_partition::hashed(s)}) {
    const auto A = lm::distribute(tr, whole, M.shape(), part, "M");
    const std::string path = dir + "/native.tiles";
    lm::write_tiles(tr, A, path);
    const auto here = lm::read_tile_header<double, Format>(path);
    MPI_TEST_CHECK(here.version == 2u && here.byte_order == std::endian::native);
    MPI_TEST_CHECK(here.index_widths == (lm::wire_widths<double, Format>()));
    if (tr.rank() == 0) {
      const auto b = file_bytes(path);
      const auto& w = here.index_widths;
      put_file(dir + "/swapped.tiles", rewritten(b, true, false, fields, w));
      put_file(dir + "/v1.tiles", rewritten(b, false, true, fields, w));
      put_file(dir + "/v1_swapped.tiles", rewritten(b, true, true, fields, w));
      // the walk covers every field: without a swap it gives the file back
      MPI_TEST_CHECK(rewritten(b, false, false, fields, w) == b);
      MPI_TEST_CHECK(rewritten(b, true, false, fields, w) != b);
    }
    MPI_Barrier(tr.comm());
    for (const char* twin : {"swapped", "v1", "v1_swapped"}) {
      const std::string p = dir + "/" + twin + ".tiles";
      const bool swapped = std::string(twin) != "v1";
      const auto h = lm::read_tile_header<double, Format>(p);
      MPI_TEST_CHECK(h.byte_order ==
                     (swapped ? lm::detail::other_byte_order() : std::endian::native));
      MPI_TEST_CHECK(h.version == (std::string(twin) == "swapped" ? 2u : 1u));
      MPI_TEST_CHECK(h.shape == M.shape() && h.nnz == whole.nnz() && h.bounds == whole.bounds());
      // in the file's partition: each rank its own part, nothing sent
      lm::tile_read_report rep;
      const auto B = lm::read_tiles<double, Format>(tr, p, std::nullopt, &rep);
      MPI_TEST_CHECK(same_tiles(B.tiles, A.tiles));
      MPI_TEST_CHECK(rep.parts_read == std::vector<std::int64_t>{tr.rank()});
      MPI_TEST_CHECK(rep.sent.bytes == 0);
      // into column blocks: a share of the parts, then an exchange
      const auto other = lm::tile_partition::col_blocks(s);
      const auto C = lm::read_tiles<double, Format>(tr, p, other);
      MPI_TEST_CHECK(same_tiles(C.tiles, lm::distribute(tr, whole, M.shape(), other).tiles));
      MPI_TEST_CHECK(same_entries(lm::gather(tr, C), M));
    }
    MPI_Barrier(tr.comm());
  }
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
  // corrupt headers: each error names the file and what is wrong
  const auto good = file_bytes(path);
  auto corrupted = [&](const std::string& name, auto change) {
    if (tr.rank() == 0) {
      auto b = good;
      change(b);
      put_file(dir + "/" + name, b);
    }
    MPI_Barrier(tr.comm());
    return dir + "/" + name;
  };
  auto fails = [&](const std::string& file, const std::string& what) {
    return throws_with([&] { (void)lm::read_tiles<double, loom::csr>(tr, file); }, what) &&
           throws_with([&] { (void)lm::read_tiles<double, loom::csr>(tr, file); }, file);
  };
  const auto cut_header = corrupted("cut_header", [](auto& b) { b.resize(30); });
  MPI_TEST_CHECK(fails(cut_header, "the header ends early"));
  MPI_TEST_CHECK(throws_with([&] { (void)lm::read_tile_header<double, loom::csr>(cut_header); },
                             "header ends early"));
  MPI_TEST_CHECK(fails(corrupted("cut_parts", [](auto& b) { b.resize(b.size() - 5); }),
                       "truncated: the header describes"));
  MPI_TEST_CHECK(fails(corrupted("version", [](auto& b) { b[8] = 7, b[9] = b[10] = b[11] = 0; }),
                       "version 7"));
  MPI_TEST_CHECK(fails(corrupted("mark", [](auto& b) { b[12] = 9; }), "byte order mark"));
  // the widths follow magic, version, mark, nine int64 fields and the value kind ("float")
  MPI_TEST_CHECK(fails(corrupted("widths", [](auto& b) { b[8 + 4 + 4 + 72 + 8 + 5 + 8 + 8] = 2; }),
                       "integer arrays are 8,2 bytes wide"));
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
    // the formats whose tiles go as level arrays: a dense level's extent, positions and
    // coordinates (compressed, non-unique), coordinates alone (singleton), a dense tile
    test_byte_orders<loom::csr>(tr, dir);
    test_byte_orders<loom::dcsr>(tr, dir);
    test_byte_orders<loom::coo>(tr, dir);
    test_byte_orders<loom::dense_matrix>(tr, dir);
    test_failures(tr, dir);
    MPI_Barrier(tr.comm());
    if (tr.rank() == 0) std::filesystem::remove_all(dir);
    if (tr.rank() == 0)
      std::printf("tests.mpi.tile_file: %d ranks, %d checks on rank 0 passed\n",
                  static_cast<int>(tr.sites()), mpi_test::checks);
    return 0;
  });
}
