// MPI tests of distributed sparse matrices (tra/mpi/sparse.hpp, sparse_kernels.hpp), run by ctest
// under mpirun with 1, 2, 3 and 4 ranks: partitions and their errors, the compact wire form of
// tiles in several formats, reading Matrix Market files in parts, and SpMV, SpMM and SpGEMM in
// every strategy and partition, each result compared with the single-process kernel and the
// bytes and messages of each rank checked exactly. Values are small integers, so every
// summation order gives the same doubles.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
namespace lm = loom::tra::mpi;

#ifndef LOOM_DATA_DIR
#  define LOOM_DATA_DIR "data/matrices"
#endif

namespace {
using mpi_test::random_matrix;

using csr_matrix = loom::tensor<double, loom::csr>;

// Every partition worth testing at `s` ranks: balanced and skewed row blocks (rank 0 holds all
// but one tile row per other rank, and with 7 tile rows some ranks may hold none), column
// blocks, a grid and hashed keys.
std::vector<lm::tile_partition> partitions(int s, std::int64_t tile_rows) {
  std::vector<std::int64_t> cuts{0};
  for (int r = 1; r <= s; ++r) cuts.push_back(std::max<std::int64_t>(0, tile_rows - (s - r)));
  return {lm::tile_partition::row_blocks(s), lm::tile_partition::row_blocks_at(cuts),
          lm::tile_partition::col_blocks(s), lm::tile_partition::grid(s),
          lm::tile_partition::hashed(s)};
}

// The entries of a tiled matrix, assembled (the tiles' explicit zeros dropped).
template <class T, loom::storage_format F>
csr_matrix assembled(const sparse_relation<T, F>& r, const std::array<std::int64_t, 2>& shape) {
  return from_sparse_tiles<loom::csr>(r, shape);
}
bool same_entries(const csr_matrix& a, const csr_matrix& b) {
  if (a.shape() != b.shape()) return false;
  std::vector<std::pair<std::array<std::int64_t, 2>, double>> ea, eb;
  a.for_each_stored([&](const auto& c, double v) {
    if (v != 0) ea.push_back({{c[0], c[1]}, v});
  });
  b.for_each_stored([&](const auto& c, double v) {
    if (v != 0) eb.push_back({{c[0], c[1]}, v});
  });
  return ea == eb;
}

std::int64_t allreduce(std::int64_t v) {
  std::int64_t all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

void test_partitions(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const std::array<std::int64_t, 2> bounds{7, 5};
  for (const auto& p : partitions(s, 7)) {
    std::vector<int> seen(static_cast<std::size_t>(s), 0);
    for (std::int64_t I = 0; I < 7; ++I)
      for (std::int64_t J = 0; J < 5; ++J) {
        const int o = p.owner({I, J}, bounds);
        MPI_TEST_CHECK(o >= 0 && o < s);
        ++seen[static_cast<std::size_t>(o)];
      }
    if (p.layout() == lm::tile_layout::row_blocks)  // ranges and owners agree
      for (int r = 0; r < s; ++r) {
        const auto range = p.range_of(r, 7);
        for (std::int64_t I = range[0]; I < range[1]; ++I)
          MPI_TEST_CHECK(p.owner({I, 0}, bounds) == r);
      }
  }
  // 2 tile rows over s ranks: balanced blocks leave ranks empty from 3 ranks on
  const auto two = lm::tile_partition::row_blocks(s);
  int owners = 0;
  for (int r = 0; r < s; ++r) owners += two.range_of(r, 2)[1] > two.range_of(r, 2)[0];
  MPI_TEST_CHECK(owners == std::min(s, 2));
  MPI_TEST_CHECK(lm::tile_partition::grid(4).describe() == "2 x 2 grid of ranks");
  MPI_TEST_CHECK(lm::tile_partition::row_blocks_at({0, 5, 7}).describe() ==
                 "row blocks at tile rows 0,5,7");

  // a partition for another number of ranks, or cuts that miss the tile rows, throw on every rank
  const auto A = to_sparse_tiles<loom::csr>(random_matrix(20, 20, 3, 1), {8, 8});
  auto message = [&](const lm::tile_partition& p) -> std::string {
    try {
      (void)lm::distribute(tr, A, {20, 20}, p, "M");
    } catch (const loom::error& e) {
      return e.what();
    }
    return "";
  };
  const std::string wrong = message(lm::tile_partition::row_blocks(s + 1));
  MPI_TEST_CHECK(wrong.find("distributing M (rank " + std::to_string(tr.rank()) + ")") !=
                 std::string::npos);
  MPI_TEST_CHECK(wrong.find("is for " + std::to_string(s + 1) + " ranks, but the job has " +
                            std::to_string(s)) != std::string::npos);
  std::vector<std::int64_t> short_cuts(static_cast<std::size_t>(s) + 1, 0);
  short_cuts.back() = 2;  // the matrix has 3 tile rows
  MPI_TEST_CHECK(message(lm::tile_partition::row_blocks_at(short_cuts)).find("must rise from 0") !=
                 std::string::npos);
}

// Tiles travel as their arrays: packed_bytes is exact, every format comes back entry for entry,
// and gathering the shares of any partition gives the whole matrix on every rank.
template <loom::storage_format F> void check_format_round_trip(const lm::transport& tr) {
  const auto M = random_matrix(45, 38, 4, 2);
  const auto whole = to_sparse_tiles<F>(M, {8, 16});
  std::vector<char> buf;
  for (const auto& [key, t] : whole) {
    const std::size_t at = buf.size();
    lm::detail::pack_tile(buf, key, t);
    MPI_TEST_CHECK(buf.size() - at == lm::packed_bytes(t));
  }
  sparse_relation<double, F> back(whole.bounds(), whole.tile_shape());
  lm::detail::unpack_tiles(back, buf, {0, buf.size()});
  MPI_TEST_CHECK(same_entries(assembled(back, M.shape()), M));
  for (const auto& p : partitions(static_cast<int>(tr.sites()), whole.bounds()[0])) {
    const auto mine = lm::distribute(tr, whole, M.shape(), p);
    MPI_TEST_CHECK(allreduce(mine.tiles.nnz()) == whole.nnz());
    MPI_TEST_CHECK(same_entries(assembled(lm::gather(tr, mine), M.shape()), M));
    const auto moved =
        lm::redistribute(tr, mine, lm::tile_partition::hashed(static_cast<int>(tr.sites())));
    MPI_TEST_CHECK(same_entries(assembled(lm::gather(tr, moved), M.shape()), M));
  }
}

void test_wire_form(const lm::transport& tr) {
  check_format_round_trip<loom::csr>(tr);
  check_format_round_trip<loom::dcsr>(tr);
  check_format_round_trip<loom::csc>(tr);
  check_format_round_trip<loom::coo>(tr);
  check_format_round_trip<loom::dense_matrix>(tr);
  check_format_round_trip<loom::format<loom::dense, loom::adaptive>>(tr);  // sent as coordinates
  // a csr tile of r rows and e entries: key, the dense level's extent, pos, crd (int32), values
  const auto M = random_matrix(8, 16, 3, 3);
  const auto tiles = to_sparse_tiles<loom::csr>(M, {8, 16});
  const auto& t = tiles.begin()->second;
  MPI_TEST_CHECK(
      lm::packed_bytes(t) ==
      static_cast<std::size_t>(16 + 8 + (8 + 8 * 9) + (8 + 4 * t.nnz()) + (8 + 8 * t.nnz())));
}

// Each rank keeps only its tiles' entries, mirrors of symmetric files included.
void test_matrix_market(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  for (const char* file :
       {"jagmesh7.mtx", "cryg2500.mtx", "karate.mtx", "cover.mtx", "LFAT5.mtx"}) {
    const std::string path = std::string(LOOM_DATA_DIR) + "/" + file;
    const auto whole = loom::read_matrix_market<double, loom::csr>(path);
    for (const auto split : {lm::file_split::scan_whole, lm::file_split::byte_ranges})
      for (const auto& p : partitions(s, (whole.extent(0) + 63) / 64)) {
        const lm::traffic before = tr.sent();
        const auto mine =
            lm::read_matrix_market_tiles<double, loom::dcsr>(tr, path, {64, 48}, p, split);
        const lm::traffic sent = tr.sent() - before;
        MPI_TEST_CHECK(mine.shape == whole.shape());
        for (const auto& [key, t] : mine.tiles)
          MPI_TEST_CHECK(p.owner(key, mine.tiles.bounds()) == tr.rank());
        MPI_TEST_CHECK(allreduce(mine.tiles.nnz()) == whole.nnz());
        MPI_TEST_CHECK(same_entries(assembled(lm::gather(tr, mine), whole.shape()), whole));
        // scanning sends nothing; byte ranges send 24 bytes (i, j, value) per entry moved, at
        // most one message to each other rank, and never more entries than the matrix holds
        if (split == lm::file_split::scan_whole || s == 1) MPI_TEST_CHECK(sent == lm::traffic{});
        MPI_TEST_CHECK(sent.bytes % 24 == 0 && sent.messages <= s - 1);
        MPI_TEST_CHECK(allreduce(sent.bytes) <= 24 * whole.nnz());
        if (split == lm::file_split::byte_ranges && s > 1 && p.layout() == lm::tile_layout::hashed)
          MPI_TEST_CHECK(allreduce(sent.bytes) > 0);  // the parsing was shared
      }
  }
  auto message = [&](const std::string& path, const lm::tile_partition& p,
                     lm::file_split split) -> std::string {
    try {
      (void)lm::read_matrix_market_tiles<double>(tr, path, {4, 4}, p, split);
    } catch (const loom::error& e) {
      return e.what();
    }
    return "";
  };
  const std::string rank = "rank " + std::to_string(tr.rank());
  const std::string karate = std::string(LOOM_DATA_DIR) + "/karate.mtx";
  const std::string garbage = std::string(LOOM_DATA_DIR) + "/garbage.lagraph";
  for (const auto split : {lm::file_split::scan_whole, lm::file_split::byte_ranges}) {
    const std::string missing = message("no/such.mtx", lm::tile_partition::row_blocks(s), split);
    MPI_TEST_CHECK(missing.find("'no/such.mtx'") != std::string::npos &&
                   missing.find(rank) != std::string::npos);
    const std::string wrong = message(karate, lm::tile_partition::hashed(s + 2), split);
    MPI_TEST_CHECK(wrong.find(karate) != std::string::npos &&
                   wrong.find(rank) != std::string::npos);
    const std::string bad = message(garbage, lm::tile_partition::row_blocks(s), split);
    MPI_TEST_CHECK(bad.find(garbage) != std::string::npos && bad.find(rank) != std::string::npos);
  }
  // a file missing on one rank only (a node without the shared disk): with byte ranges that
  // rank names the file and every other rank says a rank failed, instead of waiting for it
  const std::string one_missing =
      message(tr.rank() == s - 1 ? "no/such.mtx" : karate, lm::tile_partition::row_blocks(s),
              lm::file_split::byte_ranges);
  MPI_TEST_CHECK(one_missing.find(tr.rank() == s - 1 ? "cannot open" : "another rank could not") !=
                 std::string::npos);
}

// The reference: loom's SpMV on the whole CSR matrix in one process.
std::vector<double> reference_spmv(const csr_matrix& A, const std::vector<double>& x) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  loom::tensor<double, loom::dense_vector> xv({A.extent(1)}), yv({A.extent(0)});
  for (std::int64_t c = 0; c < A.extent(1); ++c) xv.at(c) = x[static_cast<std::size_t>(c)];
  yv(i) = loom::sum(j, A(i, j) * xv(j));
  const auto v = yv.values();
  return {v.begin(), v.end()};
}

// What a rank sends in each strategy when A is already in its layout and x is on every rank:
// row blocks send the rank's rows of y to every other rank; column blocks send each other rank
// its segment of the partial y, then the rank's reduced segment to every other rank.
lm::traffic expected_rows(const lm::transport& tr, const lm::tile_partition& p, std::int64_t m,
                          std::int64_t tile, std::int64_t k) {
  const std::int64_t s = tr.sites(), B = (m + tile - 1) / tile;
  const auto r = p.range_of(tr.rank(), B);
  const std::int64_t rows = std::min(r[1] * tile, m) - std::min(r[0] * tile, m);
  if (rows == 0 || s == 1) return {};
  return {rows * 8 * k * (s - 1), s - 1};
}
lm::traffic expected_cols(const lm::transport& tr, std::int64_t m, std::int64_t k) {
  const std::int64_t s = tr.sites(), me = tr.rank();
  lm::traffic t;
  for (std::int64_t q = 0; q < s; ++q) {
    const std::int64_t rows = m * (q + 1) / s - m * q / s;
    if (q != me && rows > 0) t = {t.bytes + rows * 8 * k, t.messages + 1};
  }
  const std::int64_t mine = m * (me + 1) / s - m * me / s;
  if (mine > 0 && s > 1) t = {t.bytes + mine * 8 * k * (s - 1), t.messages + s - 1};
  return t;
}

void test_spmv(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const std::int64_t m = 101, n = 77, tile = 16;  // 7 x 5 tiles
  const auto M = random_matrix(m, n, 9, 4);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t c = 0; c < n; ++c)
    x[static_cast<std::size_t>(c)] = static_cast<double>(c % 5) - 2;
  const auto expect = reference_spmv(M, x);
  const auto whole = to_sparse_tiles<loom::csr>(M, {tile, tile});
  const cost_model bytes_only{};  // alpha 1 per byte, beta 0
  for (const auto& p : partitions(s, 7)) {
    const auto A = lm::distribute(tr, whole, M.shape(), p);
    for (const auto where : {lm::dense_operand::every_rank, lm::dense_operand::root_only})
      for (const std::optional<lm::spmv_strategy> force :
           {std::optional<lm::spmv_strategy>{}, std::optional{lm::spmv_strategy::row_blocks},
            std::optional{lm::spmv_strategy::col_blocks}}) {
        const std::vector<double> given =
            where == lm::dense_operand::root_only && tr.rank() != 0 ? std::vector<double>{} : x;
        lm::sparse_report rep;
        const auto y = lm::spmv(tr, A, given, bytes_only, where, force, &rep);
        MPI_TEST_CHECK(y == expect);
        MPI_TEST_CHECK(rep.candidates.size() == 2);
        if (force) MPI_TEST_CHECK(rep.chosen == static_cast<std::size_t>(*force));
        MPI_TEST_CHECK(rep.explain.find("chosen: " + rep.candidates[rep.chosen].name) !=
                       std::string::npos);
        if (s == 1) MPI_TEST_CHECK(rep.sent == lm::traffic{});
        if (where != lm::dense_operand::every_rank) continue;
        const bool in_layout = (rep.chosen == 0 && p.layout() == lm::tile_layout::row_blocks) ||
                               (rep.chosen == 1 && p.layout() == lm::tile_layout::col_blocks);
        if (!in_layout) continue;
        // exact counts; with no tiles to move the estimate is exact too
        const lm::traffic want =
            rep.chosen == 0 ? expected_rows(tr, p, m, tile, 1) : expected_cols(tr, m, 1);
        MPI_TEST_CHECK(rep.sent == want);
        MPI_TEST_CHECK(allreduce(rep.sent.bytes) ==
                       static_cast<std::int64_t>(rep.candidates[rep.chosen].bytes));
      }
    // bytes only: A in row blocks keeps them (its y rows are cheaper than partial sums);
    // A in column blocks keeps them too (moving its tiles costs more than the reduction)
    lm::sparse_report rep;
    (void)lm::spmv(tr, A, x, bytes_only, lm::dense_operand::every_rank, std::nullopt, &rep);
    if (s > 1 && p.layout() == lm::tile_layout::row_blocks) MPI_TEST_CHECK(rep.chosen == 0);
    if (s > 1 && p.layout() == lm::tile_layout::col_blocks) MPI_TEST_CHECK(rep.chosen == 1);
  }
  // a partition for another job, or an x of the wrong length, throws on every rank
  const lm::distributed_matrix<double, loom::csr> foreign{
      M.shape(), lm::tile_partition::row_blocks(s + 1), whole, "F"};
  std::string why;
  try {
    (void)lm::spmv(tr, foreign, x);
  } catch (const loom::error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(why.find("spmv of F (rank " + std::to_string(tr.rank()) + ")") !=
                 std::string::npos);
  why.clear();
  try {
    (void)lm::spmv(tr, lm::distribute(tr, whole, M.shape(), lm::tile_partition::row_blocks(s)),
                   std::vector<double>(3));
  } catch (const loom::shape_error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(why.find("the dense operand has 3 values") != std::string::npos);
  // like work counters: the bytes each rank sends for y's rows, 101 rows in balanced tile rows
  const auto A = lm::distribute(tr, whole, M.shape(), lm::tile_partition::row_blocks(s));
  lm::sparse_report rep;
  (void)lm::spmv(tr, A, x, bytes_only, lm::dense_operand::every_rank, lm::spmv_strategy::row_blocks,
                 &rep);
  const std::vector<std::vector<std::int64_t>> bytes{
      {0}, {384, 424}, {512, 512, 592}, {384, 768, 768, 504}};
  if (s <= 4) {
    MPI_TEST_CHECK(rep.sent.bytes ==
                   bytes[static_cast<std::size_t>(s - 1)][static_cast<std::size_t>(tr.rank())]);
    MPI_TEST_CHECK(rep.sent.messages == s - 1);
  }
  // x on rank 0 alone: rank 0 also broadcasts x (77 doubles to each other rank)
  (void)lm::spmv(tr, A, tr.rank() == 0 ? x : std::vector<double>{}, bytes_only,
                 lm::dense_operand::root_only, lm::spmv_strategy::row_blocks, &rep);
  const lm::traffic y_rows = expected_rows(tr, A.partition, m, tile, 1);
  const lm::traffic x_bcast =
      tr.rank() == 0 && s > 1 ? lm::traffic{n * 8 * (s - 1), s - 1} : lm::traffic{};
  MPI_TEST_CHECK(rep.sent ==
                 lm::traffic{y_rows.bytes + x_bcast.bytes, y_rows.messages + x_bcast.messages});
  // column blocks with x on rank 0: rank 0 sends each other rank its slice of x (77 columns in
  // tiles of 16), then the reduction's exchanges as always
  const auto Ac = lm::distribute(tr, whole, M.shape(), lm::tile_partition::col_blocks(s));
  (void)lm::spmv(tr, Ac, tr.rank() == 0 ? x : std::vector<double>{}, bytes_only,
                 lm::dense_operand::root_only, lm::spmv_strategy::col_blocks, &rep);
  lm::traffic want = expected_cols(tr, m, 1);
  for (int q = 1; q < s && tr.rank() == 0; ++q) {
    const auto r = Ac.partition.range_of(q, 5);
    const std::int64_t cols = std::min(r[1] * tile, n) - std::min(r[0] * tile, n);
    if (cols > 0) want = {want.bytes + cols * 8, want.messages + 1};
  }
  MPI_TEST_CHECK(rep.sent == want);
}

// More ranks than tile rows: the ranks without rows compute nothing and send nothing.
void test_empty_ranks(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(20, 30, 3, 5);  // 2 x 2 tiles of 16
  std::vector<double> x(30, 1.0);
  const auto A = lm::distribute(tr, to_sparse_tiles<loom::csr>(M, {16, 16}), M.shape(),
                                lm::tile_partition::row_blocks(s));
  lm::sparse_report rep;
  const auto y =
      lm::spmv(tr, A, x, {}, lm::dense_operand::every_rank, lm::spmv_strategy::row_blocks, &rep);
  MPI_TEST_CHECK(y == reference_spmv(M, x));
  const auto mine = A.partition.range_of(tr.rank(), 2);
  if (mine[0] == mine[1]) MPI_TEST_CHECK(rep.sent == lm::traffic{} && A.tiles.size() == 0);
  MPI_TEST_CHECK(rep.sent == expected_rows(tr, A.partition, 20, 16, 1));
}

// The kernels run on tiles of any format: the same y from csc, coo and dense tiles.
template <loom::storage_format F> void check_spmv_tiles_in(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto M = random_matrix(45, 38, 4, 9);
  std::vector<double> x(38);
  for (std::size_t c = 0; c < x.size(); ++c) x[c] = static_cast<double>(c % 3) - 1;
  const auto A =
      lm::distribute(tr, to_sparse_tiles<F>(M, {8, 16}), M.shape(), lm::tile_partition::hashed(s));
  for (const auto st : {lm::spmv_strategy::row_blocks, lm::spmv_strategy::col_blocks})
    MPI_TEST_CHECK(lm::spmv(tr, A, x, {}, lm::dense_operand::every_rank, st) ==
                   reference_spmv(M, x));
}
void test_spmv_formats(const lm::transport& tr) {
  check_spmv_tiles_in<loom::csc>(tr);
  check_spmv_tiles_in<loom::coo>(tr);
  check_spmv_tiles_in<loom::dense_matrix>(tr);
}

void test_spmm(const lm::transport& tr) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"c"> c;
  const int s = static_cast<int>(tr.sites());
  const std::int64_t m = 53, n = 61, k = 3;
  const auto M = random_matrix(m, n, 6, 6);
  loom::tensor<double, loom::dense_matrix> X({n, k}), expect({m, k});
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t q = 0; q < k; ++q) X.at(r, q) = static_cast<double>((r + q) % 4) - 1;
  expect(i, c) = loom::sum(j, M(i, j) * X(j, c));
  const auto whole = to_sparse_tiles<loom::dcsr>(M, {8, 16});
  for (const auto& p : partitions(s, whole.bounds()[0])) {
    const auto A = lm::distribute(tr, whole, M.shape(), p);
    for (const auto st : {lm::spmv_strategy::row_blocks, lm::spmv_strategy::col_blocks})
      for (const auto where : {lm::dense_operand::every_rank, lm::dense_operand::root_only}) {
        lm::sparse_report rep;
        const auto Y = lm::spmm(tr, A,
                                where == lm::dense_operand::root_only && tr.rank() != 0
                                    ? loom::tensor<double, loom::dense_matrix>{}
                                    : X,
                                {}, where, st, &rep);
        MPI_TEST_CHECK(Y.shape() == expect.shape());
        MPI_TEST_CHECK(std::equal(Y.values().begin(), Y.values().end(), expect.values().begin()));
        if (where == lm::dense_operand::every_rank && st == lm::spmv_strategy::row_blocks &&
            p.layout() == lm::tile_layout::row_blocks)
          MPI_TEST_CHECK(rep.sent == expected_rows(tr, p, m, 8, k));
        if (where == lm::dense_operand::every_rank && st == lm::spmv_strategy::col_blocks &&
            p.layout() == lm::tile_layout::col_blocks)
          MPI_TEST_CHECK(rep.sent == expected_cols(tr, m, k));
      }
  }
}

// The tile rows of B that rank q's tiles of A (row blocks) meet.
std::set<std::int64_t> needed_by(const sparse_relation<double, loom::csr>& A,
                                 const lm::tile_partition& rows, int q) {
  std::set<std::int64_t> ks;
  for (const auto& [key, t] : A)
    if (rows.owner(key, A.bounds()) == q) ks.insert(key[1]);
  return ks;
}

void test_spgemm(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const auto MA = random_matrix(60, 50, 7, 7), MB = random_matrix(50, 40, 5, 8);
  const auto A_whole = to_sparse_tiles<loom::csr>(MA, {8, 8});
  const auto B_whole = to_sparse_tiles<loom::dcsr>(MB, {8, 8});
  const auto expect = assembled(block_matmul<loom::csr>(A_whole, B_whole), {60, 40});
  const auto rows = lm::tile_partition::row_blocks(s);
  for (const auto& pa : partitions(s, A_whole.bounds()[0]))
    for (const auto& pb : {lm::tile_partition::row_blocks(s), lm::tile_partition::hashed(s)}) {
      const auto A = lm::distribute(tr, A_whole, MA.shape(), pa, "A");
      const auto B = lm::distribute(tr, B_whole, MB.shape(), pb, "B");
      for (const std::optional<lm::spgemm_strategy> force :
           {std::optional<lm::spgemm_strategy>{}, std::optional{lm::spgemm_strategy::broadcast_b},
            std::optional{lm::spgemm_strategy::gather_needed_b}}) {
        lm::sparse_report rep;
        const auto C = lm::spgemm<loom::csr>(tr, A, B, {}, force, &rep);
        MPI_TEST_CHECK(C.partition.layout() == lm::tile_layout::row_blocks);
        for (const auto& [key, t] : C.tiles)
          MPI_TEST_CHECK(C.partition.owner(key, C.tiles.bounds()) == tr.rank());
        MPI_TEST_CHECK(same_entries(assembled(lm::gather(tr, C), {60, 40}), expect));
        if (s == 1) MPI_TEST_CHECK(rep.sent == lm::traffic{});
        if (s == 1 || pa.layout() != lm::tile_layout::row_blocks || !pa.cuts().empty()) continue;
        // A already in row blocks: exact counts from the whole matrices
        std::int64_t bytes = 0, messages = 0;
        if (rep.chosen == 0) {
          for (const auto& [key, t] : B.tiles)
            bytes += static_cast<std::int64_t>(lm::packed_bytes(t));
          messages = bytes > 0 ? s - 1 : 0;
          bytes *= s - 1;
        } else {
          const auto mine = needed_by(A_whole, rows, tr.rank());
          if (!mine.empty()) {
            bytes += static_cast<std::int64_t>(mine.size()) * 8 * (s - 1);
            messages += s - 1;
          }
          for (int q = 0; q < s; ++q) {
            if (q == tr.rank()) continue;
            const auto wants = needed_by(A_whole, rows, q);
            std::int64_t to_q = 0;
            for (const auto& [key, t] : B.tiles)
              if (wants.count(key[0])) to_q += static_cast<std::int64_t>(lm::packed_bytes(t));
            bytes += to_q;
            messages += to_q > 0;
          }
        }
        MPI_TEST_CHECK(rep.sent == lm::traffic{bytes, messages});
      }
    }
  // block-diagonal A and B: each rank needs only its own tile rows of B, which the model sees
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> vals;
  for (std::int64_t d = 0; d < 64; ++d) {
    coords.push_back({d, d});
    vals.push_back(static_cast<double>(d % 3 + 1));
  }
  const auto D = loom::from_coo<loom::csr>({64, 64}, coords, vals);
  const auto D_tiles = to_sparse_tiles<loom::csr>(D, {8, 8});
  const auto A = lm::distribute(tr, D_tiles, D.shape(), rows, "D");
  lm::sparse_report rep;
  const auto C = lm::spgemm<loom::csr>(tr, A, A, {}, std::nullopt, &rep);
  MPI_TEST_CHECK(same_entries(assembled(lm::gather(tr, C), {64, 64}),
                              assembled(block_matmul<loom::csr>(D_tiles, D_tiles), {64, 64})));
  if (s > 1)
    MPI_TEST_CHECK(rep.chosen == static_cast<std::size_t>(lm::spgemm_strategy::gather_needed_b));
  MPI_TEST_CHECK(rep.explain.find("B broadcast: bytes ") != std::string::npos);
}
}  // namespace

int main(int argc, char** argv) {
  int timeout = 60;
  for (int a = 1; a + 1 < argc; a += 2)
    if (!std::strcmp(argv[a], "--timeout")) timeout = std::atoi(argv[a + 1]);
  lm::environment env(argc, argv, std::chrono::seconds(timeout));
  return lm::run_or_abort([&] {
    lm::transport tr;
    test_partitions(tr);
    test_wire_form(tr);
    test_matrix_market(tr);
    test_spmv(tr);
    test_empty_ranks(tr);
    test_spmv_formats(tr);
    test_spmm(tr);
    test_spgemm(tr);
    if (tr.rank() == 0)
      std::printf("tests.mpi.sparse: %d ranks, %d checks on rank 0 passed\n",
                  static_cast<int>(tr.sites()), mpi_test::checks);
    return 0;
  });
}
