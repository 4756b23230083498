// MPI tests of SDDMM over distributed sparse matrices (tra/mpi/sddmm.hpp) and of MTTKRP over sparse
// 3-tensors in slices (tra/mpi/sparse_tensor.hpp, mttkrp.hpp), run by ctest under mpirun with 1,
// 2, 3 and 4 ranks: every strategy in every partition (an empty rank included), with the dense
// factors on every rank and on rank 0 alone, each result compared with the single-process loom
// kernel, the total bytes with the cost model's estimate and each rank's bytes and messages with
// the strategy's formula; and reading a FROSTT file into slices, each rank parsing a byte range.
// Values are small integers, so every summation order gives the same
// doubles.
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
#include <string>
#include <vector>

#include "support.hpp"

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {
using mpi_test::random_matrix;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"c"> c;

using csr_matrix = loom::tensor<double, loom::csr>;
using dense = loom::tensor<double, loom::dense_matrix>;
using csf3 = loom::csf<3>;

dense factor(std::int64_t rows, std::int64_t r, int salt) {
  dense F({rows, r});
  for (std::int64_t a = 0; a < rows; ++a)
    for (std::int64_t b = 0; b < r; ++b)
      F.at(a, b) = static_cast<double>((a * 3 + b + salt) % 5) - 2;
  return F;
}
std::int64_t allreduce(std::int64_t v) {
  std::int64_t all = 0;
  MPI_Allreduce(&v, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}
bool same_entries(const csr_matrix& a, const csr_matrix& b) {
  if (a.shape() != b.shape()) return false;
  std::vector<std::pair<std::array<std::int64_t, 2>, double>> ea, eb;
  a.for_each_stored([&](const auto& x, double v) {
    if (v != 0) ea.push_back({{x[0], x[1]}, v});
  });
  b.for_each_stored([&](const auto& x, double v) {
    if (v != 0) eb.push_back({{x[0], x[1]}, v});
  });
  return ea == eb;
}
bool same_values(const dense& a, const dense& b) {
  return a.shape() == b.shape() &&
         std::equal(a.values().begin(), a.values().end(), b.values().begin());
}
lm::traffic plus(lm::traffic a, lm::traffic b) {
  return {a.bytes + b.bytes, a.messages + b.messages};
}

// Row blocks (balanced and skewed: rank 0 all but one tile row per other rank, so with few tile
// rows the last ranks hold none), column blocks, a grid and hashed keys.
std::vector<lm::tile_partition> partitions(int s, std::int64_t tile_rows) {
  std::vector<std::int64_t> cuts{0};
  for (int r = 1; r <= s; ++r) cuts.push_back(std::max<std::int64_t>(0, tile_rows - (s - r)));
  return {lm::tile_partition::row_blocks(s), lm::tile_partition::row_blocks_at(cuts),
          lm::tile_partition::col_blocks(s), lm::tile_partition::grid(s),
          lm::tile_partition::hashed(s)};
}

// The rows of U and V rank q gets in each SDDMM strategy, counted here independently of the
// kernel: row blocks give q its tile rows of U and all of V; a pr x pc grid gives q the tile
// rows of block row q / pc and the tile columns of block column q % pc; an empty block, nothing.
std::int64_t factor_rows_of(const lm::tile_partition& p, int q, std::int64_t m, std::int64_t n,
                            std::array<std::int64_t, 2> tiles, std::array<std::int64_t, 2> ts) {
  std::array<std::int64_t, 2> I{}, J{};
  if (p.layout() == lm::tile_layout::row_blocks) {
    I = p.range_of(q, tiles[0]);
    J = {0, tiles[1]};
  } else {
    const int pr = p.grid_rows(), pc = p.ranks() / pr;
    I = {tiles[0] * (q / pc) / pr, tiles[0] * (q / pc + 1) / pr};
    J = {tiles[1] * (q % pc) / pc, tiles[1] * (q % pc + 1) / pc};
  }
  if (I[0] == I[1] || J[0] == J[1]) return 0;
  return std::min(I[1] * ts[0], m) - std::min(I[0] * ts[0], m) + std::min(J[1] * ts[1], n) -
         std::min(J[0] * ts[1], n);
}

void check_sddmm(const lm::transport& tr, std::int64_t m, std::int64_t n,
                 std::array<std::int64_t, 2> ts, unsigned seed) {
  const int s = static_cast<int>(tr.sites());
  const std::int64_t r = 3;
  const auto S = random_matrix(m, n, 4, seed);
  const dense U = factor(m, r, 1), V = factor(n, r, 2);
  csr_matrix expect({m, n});
  expect(i, j) = loom::sum(c, S(i, j) * U(i, c) * V(j, c));
  const auto whole = to_sparse_tiles<loom::csr>(S, ts);
  const auto tiles = whole.bounds();
  const loom::tra::cost_model bytes_only{};
  for (const auto& p : partitions(s, tiles[0])) {
    const auto A = lm::distribute(tr, whole, S.shape(), p, "S");
    for (const auto where : {lm::dense_operand::every_rank, lm::dense_operand::root_only})
      for (const std::optional<lm::sddmm_strategy> force :
           {std::optional<lm::sddmm_strategy>{}, std::optional{lm::sddmm_strategy::row_blocks},
            std::optional{lm::sddmm_strategy::grid}}) {
        const bool given = where == lm::dense_operand::every_rank || tr.rank() == 0;
        lm::sparse_report rep;
        const auto C = lm::sddmm<loom::csr>(tr, A, given ? U : dense{}, given ? V : dense{},
                                            bytes_only, where, force, &rep);
        MPI_TEST_CHECK(
            same_entries(from_sparse_tiles<loom::csr>(lm::gather(tr, C), {m, n}), expect));
        for (const auto& [key, t] : C.tiles)
          MPI_TEST_CHECK(C.partition.owner(key, tiles) == tr.rank());
        MPI_TEST_CHECK(rep.candidates.size() == 2);
        if (force) MPI_TEST_CHECK(rep.chosen == static_cast<std::size_t>(*force));
        MPI_TEST_CHECK(rep.explain.find("chosen: " + rep.candidates[rep.chosen].name) !=
                       std::string::npos);
        // the estimate is the bytes sent: S's move, exact from its tiles, and the factor rows
        MPI_TEST_CHECK(allreduce(rep.sent.bytes) ==
                       static_cast<std::int64_t>(rep.candidates[rep.chosen].bytes));
        if (s == 1) MPI_TEST_CHECK(rep.sent == lm::traffic{});
        const bool rows = rep.chosen == 0;
        const bool in_layout = (rows && p.layout() == lm::tile_layout::row_blocks) ||
                               (!rows && p.layout() == lm::tile_layout::grid);
        if (!in_layout) continue;
        // S stays: only rank 0 sends, each other rank its factor rows in one message
        lm::traffic want;
        for (int q = 1; q < s && tr.rank() == 0 && where == lm::dense_operand::root_only; ++q) {
          const std::int64_t fr = factor_rows_of(p, q, m, n, tiles, ts);
          if (fr > 0) want = plus(want, {fr * r * 8, 1});
        }
        MPI_TEST_CHECK(rep.sent == want);
      }
    // bytes only with the factors everywhere: S stays in its layout when it is one of the two
    lm::sparse_report rep;
    (void)lm::sddmm<loom::csr>(tr, A, U, V, bytes_only, lm::dense_operand::every_rank, std::nullopt,
                               &rep);
    if (s > 1 && p.layout() == lm::tile_layout::row_blocks) MPI_TEST_CHECK(rep.chosen == 0);
    if (s > 1 && p.layout() == lm::tile_layout::grid)  // ties go to the first
      MPI_TEST_CHECK(rep.chosen == 1 || rep.candidates[0].bytes == 0);
  }
}

void test_sddmm(const lm::transport& tr) {
  check_sddmm(tr, 45, 38, {8, 16}, 11);   // 6 x 3 tiles
  check_sddmm(tr, 20, 30, {16, 16}, 12);  // 2 x 2 tiles: empty ranks from 3 ranks on
  // a grid with the factors on rank 0 alone sends U and V in halves at 4 ranks: cheaper than
  // all of V to every rank for a square S, which the model sees
  const int s = static_cast<int>(tr.sites());
  const auto S = random_matrix(64, 64, 5, 13);
  const auto A = lm::distribute(tr, to_sparse_tiles<loom::csr>(S, {8, 8}), S.shape(),
                                lm::tile_partition::grid(s));
  const dense U = factor(64, 4, 3), V = factor(64, 4, 4);
  lm::sparse_report rep;
  (void)lm::sddmm<loom::csr>(tr, A, tr.rank() == 0 ? U : dense{}, tr.rank() == 0 ? V : dense{}, {},
                             lm::dense_operand::root_only, std::nullopt, &rep);
  if (s == 4) MPI_TEST_CHECK(rep.chosen == 1);
  // wrong factor shapes throw shape_error on every rank
  std::string why;
  try {
    (void)lm::sddmm<loom::csr>(tr, A, factor(63, 4, 0), V);
  } catch (const loom::shape_error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(why.find("loom::tra::mpi::sddmm: U is 63 x 4") != std::string::npos);
}

// A random integer 3-tensor, the same on every rank.
loom::tensor<double, csf3> random_tensor(std::array<std::int64_t, 3> shape, unsigned one_in,
                                         unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<std::array<std::int64_t, 3>> coords;
  std::vector<double> vals;
  for (std::int64_t a = 0; a < shape[0]; ++a)
    for (std::int64_t b = 0; b < shape[1]; ++b)
      for (std::int64_t d = 0; d < shape[2]; ++d)
        if (gen() % one_in == 0) {
          coords.push_back({a, b, d});
          vals.push_back(static_cast<double>(gen() % 5) - 2);
        }
  return loom::from_coo<csf3>(shape, coords, vals);
}

// Balanced slices of each mode, and slices of i with rank 0 empty (cuts 0, 0, ...).
std::vector<lm::slice_partition> slicings(int s, std::array<std::int64_t, 3> shape) {
  std::vector<std::int64_t> cuts{0};
  for (int r = 1; r <= s; ++r) cuts.push_back(r == 1 && s > 1 ? 0 : shape[0] * r / s);
  return {lm::slice_partition::balanced(0, shape[0], s),
          lm::slice_partition::balanced(1, shape[1], s),
          lm::slice_partition::balanced(2, shape[2], s), lm::slice_partition::at(0, cuts)};
}

// What a rank sends with X already in the strategy's slices: with the factors on rank 0, rank 0
// first sends each rank with a non-empty slice its rows of B and C; then slices of i all-gather
// each rank's rows of A, and slices of j or k send each other rank its segment of the partial A
// and then the rank's reduced segment to all.
lm::traffic expected_mttkrp(const lm::transport& tr, const lm::slice_partition& p,
                            std::array<std::int64_t, 3> shape, std::int64_t r, bool on_root) {
  const int s = static_cast<int>(tr.sites()), me = tr.rank(), d = p.mode();
  lm::traffic t;
  for (int q = 1; q < s && me == 0 && on_root; ++q) {
    const auto range = p.range_of(q);
    if (range[0] == range[1]) continue;
    const std::int64_t b = d == 1 ? range[1] - range[0] : shape[1];
    const std::int64_t cc = d == 2 ? range[1] - range[0] : shape[2];
    t = plus(t, {(b + cc) * r * 8, 1});
  }
  if (s == 1) return t;
  const std::int64_t m = shape[0];
  if (d == 0) {
    const auto range = p.range_of(me);
    if (range[1] > range[0]) t = plus(t, {(range[1] - range[0]) * r * 8 * (s - 1), s - 1});
    return t;
  }
  for (int q = 0; q < s; ++q) {
    const std::int64_t rows = m * (q + 1) / s - m * q / s;
    if (q != me && rows > 0) t = plus(t, {rows * r * 8, 1});
  }
  const std::int64_t mine = m * (me + 1) / s - m * me / s;
  if (mine > 0) t = plus(t, {mine * r * 8 * (s - 1), s - 1});
  return t;
}

void test_mttkrp(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const std::array<std::int64_t, 3> shape{13, 11, 9};
  const std::int64_t r = 3;
  const auto X = random_tensor(shape, 5, 21);
  const dense B = factor(shape[1], r, 5), C = factor(shape[2], r, 6);
  dense expect({shape[0], r});
  expect(i, c) = loom::sum(j, k, X(i, j, k) * B(j, c) * C(k, c));
  const loom::tra::cost_model bytes_only{};
  for (const auto& p : slicings(s, shape)) {
    const auto D = lm::distribute_slices(tr, X, p, "X");
    MPI_TEST_CHECK(allreduce(D.local.nnz()) == X.nnz());
    for (const auto where : {lm::dense_operand::every_rank, lm::dense_operand::root_only})
      for (const std::optional<lm::mttkrp_strategy> force :
           {std::optional<lm::mttkrp_strategy>{}, std::optional{lm::mttkrp_strategy::slices_of_i},
            std::optional{lm::mttkrp_strategy::slices_of_j},
            std::optional{lm::mttkrp_strategy::slices_of_k}}) {
        const bool given = where == lm::dense_operand::every_rank || tr.rank() == 0;
        lm::sparse_report rep;
        const auto A = lm::mttkrp(tr, D, given ? B : dense{}, given ? C : dense{}, bytes_only,
                                  where, force, &rep);
        MPI_TEST_CHECK(same_values(A, expect));
        MPI_TEST_CHECK(rep.candidates.size() == 3);
        MPI_TEST_CHECK(rep.explain.find("chosen: " + rep.candidates[rep.chosen].name) !=
                       std::string::npos);
        if (force) MPI_TEST_CHECK(rep.chosen == static_cast<std::size_t>(*force));
        MPI_TEST_CHECK(allreduce(rep.sent.bytes) ==
                       static_cast<std::int64_t>(rep.candidates[rep.chosen].bytes));
        if (s == 1) MPI_TEST_CHECK(rep.sent == lm::traffic{});
        if (static_cast<int>(rep.chosen) == p.mode())
          MPI_TEST_CHECK(rep.sent ==
                         expected_mttkrp(tr, p, shape, r, where == lm::dense_operand::root_only));
      }
    // bytes only, factors everywhere, X in slices of i: its rows of A are the cheapest move
    lm::sparse_report rep;
    (void)lm::mttkrp(tr, D, B, C, bytes_only, lm::dense_operand::every_rank, std::nullopt, &rep);
    if (p.mode() == 0) MPI_TEST_CHECK(rep.chosen == 0);
  }
  // X in slices of i, B and C on every rank: A whole on every rank
  const auto D = lm::distribute_slices(tr, X, lm::slice_partition::balanced(0, shape[0], s));
  lm::sparse_report plan;
  const auto A = lm::mttkrp(tr, D, B, C, {}, lm::dense_operand::every_rank, std::nullopt, &plan);
  MPI_TEST_CHECK(same_values(A, expect));
  // the move between slicings: entry_bytes per entry leaving, at most one message per peer
  const lm::traffic before = tr.sent();
  const auto moved = lm::redistribute_slices(tr, D, lm::slice_partition::balanced(2, shape[2], s));
  const lm::traffic sent = tr.sent() - before;
  MPI_TEST_CHECK(sent.bytes == lm::entries_leaving(tr, D, moved.partition) *
                                   static_cast<std::int64_t>(lm::entry_bytes<double>));
  MPI_TEST_CHECK(sent.messages <= s - 1);
  moved.local.for_each_stored([&](const auto& x, double) {
    MPI_TEST_CHECK(moved.partition.owner({x[0], x[1], x[2]}) == tr.rank());
  });
  // errors name the kernel or the partition and the rank
  std::string why;
  try {
    (void)lm::mttkrp(tr, D, C, C);
  } catch (const loom::shape_error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(why.find("loom::tra::mpi::mttkrp: B is 9 x 3") != std::string::npos);
  why.clear();
  try {
    (void)lm::distribute_slices(tr, X, lm::slice_partition::balanced(1, shape[1], s + 1));
  } catch (const loom::error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(why.find("is for " + std::to_string(s + 1) + " ranks") != std::string::npos);
}
// read_tns_slices: rank 0 writes a FROSTT file (comments, a blank line and a repeated entry
// included); every rank then parses one byte range and keeps its slice, the same entries as
// distributing the whole tensor; a given shape and a skewed partition are kept; a malformed line
// fails on every rank, the failing one naming the file and itself.
void test_read_tns(const lm::transport& tr) {
  const int s = static_cast<int>(tr.sites());
  const std::array<std::int64_t, 3> shape{17, 6, 9};
  const auto X = random_tensor(shape, 4, 33);
  std::vector<std::array<std::int64_t, 3>> coords;
  std::vector<double> values;
  X.for_each_stored([&](const auto& x, double v) {
    coords.push_back({x[0], x[1], x[2]});
    values.push_back(v);
  });
  coords.push_back(coords[coords.size() / 2]);  // the file repeats one entry: summed
  values.push_back(1);
  const auto want = loom::from_coo<csf3>(shape, coords, values, loom::duplicates::sum);
  const std::string path = "loom_read_tns_np" + std::to_string(s) + ".tns";
  const std::string bad_path = "loom_read_tns_bad_np" + std::to_string(s) + ".tns";
  if (tr.rank() == 0) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::FILE* bad = std::fopen(bad_path.c_str(), "w");
    MPI_TEST_CHECK(f && bad);
    std::fprintf(f, "# a FROSTT file\n\n");
    for (std::size_t e = 0; e < coords.size(); ++e) {
      const auto& x = coords[e];
      std::fprintf(f, "%lld %lld %lld %g\n", static_cast<long long>(x[0] + 1),
                   static_cast<long long>(x[1] + 1), static_cast<long long>(x[2] + 1), values[e]);
      // the malformed file: the same lines, one of them (in the last rank's part) cut short
      if (e + 3 == coords.size())
        std::fprintf(bad, "%lld %lld\n", static_cast<long long>(x[0] + 1),
                     static_cast<long long>(x[1] + 1));
      else
        std::fprintf(bad, "%lld %lld %lld %g\n", static_cast<long long>(x[0] + 1),
                     static_cast<long long>(x[1] + 1), static_cast<long long>(x[2] + 1), values[e]);
    }
    std::fclose(f);
    std::fclose(bad);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int mode = 0; mode < 3; ++mode) {
    const lm::traffic before = tr.sent();
    const auto D = lm::read_tns_slices<double>(tr, path, mode);
    const lm::traffic sent = tr.sent() - before;
    MPI_TEST_CHECK(D.shape == shape);
    MPI_TEST_CHECK(D.partition.mode() == mode);
    const auto expect = lm::distribute_slices(
        tr, want, lm::slice_partition::balanced(mode, shape[static_cast<std::size_t>(mode)], s));
    MPI_TEST_CHECK(D.local.nnz() == expect.local.nnz());
    expect.local.for_each_stored(
        [&](const auto& x, double v) { MPI_TEST_CHECK(D.local.at(x[0], x[1], x[2]) == v); });
    MPI_TEST_CHECK(allreduce(D.local.nnz()) == want.nnz());
    // each entry moves at most once, as entry_bytes; one rank reads everything and moves nothing
    MPI_TEST_CHECK(allreduce(sent.bytes) <=
                   static_cast<std::int64_t>(coords.size() * lm::entry_bytes<double>));
    if (s == 1) MPI_TEST_CHECK(sent == lm::traffic{});
  }
  // a given shape (larger than the file's coordinates) and a skewed partition of it
  const std::array<std::int64_t, 3> wider{20, 6, 9};
  const auto skewed = [&](const std::array<std::int64_t, 3>& e) {
    std::vector<std::int64_t> cuts{0};
    for (int r = 1; r < s; ++r) cuts.push_back(std::min<std::int64_t>(e[0], 12 + r));
    cuts.push_back(e[0]);
    return lm::slice_partition::at(0, cuts);
  };
  const auto W = lm::read_tns_slices<double>(tr, path, 0, wider, skewed);
  MPI_TEST_CHECK(W.shape == wider);
  MPI_TEST_CHECK(W.partition.cuts() == skewed(wider).cuts());
  MPI_TEST_CHECK(allreduce(W.local.nnz()) == want.nnz());
  W.local.for_each_stored([&](const auto& x, double v) {
    MPI_TEST_CHECK(W.partition.owner({x[0], x[1], x[2]}) == tr.rank());
    MPI_TEST_CHECK(want.at(x[0], x[1], x[2]) == v);
  });
  // errors: every rank throws; the rank that read the short line names the file and itself
  std::string why;
  try {
    (void)lm::read_tns_slices<double>(tr, bad_path, 0);
  } catch (const loom::error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(!why.empty());
  MPI_TEST_CHECK(why.find("(rank " + std::to_string(tr.rank()) + ")") != std::string::npos);
  MPI_TEST_CHECK(why.find(bad_path) != std::string::npos);
  if (tr.rank() == s - 1)
    MPI_TEST_CHECK(why.find("expected 4 tokens") != std::string::npos);
  else
    MPI_TEST_CHECK(why.find("another rank could not read its part") != std::string::npos);
  why.clear();
  try {  // a coordinate outside the given shape
    (void)lm::read_tns_slices<double>(tr, path, 1, std::array<std::int64_t, 3>{17, 5, 9});
  } catch (const loom::error& e) {
    why = e.what();
  }
  MPI_TEST_CHECK(!why.empty());
  MPI_Barrier(MPI_COMM_WORLD);
  if (tr.rank() == 0) {
    std::remove(path.c_str());
    std::remove(bad_path.c_str());
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
    test_sddmm(tr);
    test_mttkrp(tr);
    test_read_tns(tr);
    if (tr.rank() == 0)
      std::printf("tests.mpi.factor_kernels: %d ranks, %d checks on rank 0 passed\n",
                  static_cast<int>(tr.sites()), mpi_test::checks);
    return 0;
  });
}
