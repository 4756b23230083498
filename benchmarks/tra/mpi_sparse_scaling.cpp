// Scaling of the distributed sparse kernels over MPI (tra/mpi/): SpMV (10 products), SpMM, SpGEMM,
// SDDMM and MTTKRP on generated random inputs, strong scaling (the 1-rank size on every job) or
// weak scaling (--weak: rows, and entries, proportional to the ranks). Each kernel runs in its
// row-shaped strategy (forced, so every job does the same local work; the model's own pick is
// printed beside it). Per rank: the compute time of the local kernel alone (the rank's share run
// on MPI_COMM_SELF, one rank at a time, so ranks sharing a core do not slow each other; the
// fastest of 2 reps + 1) and the bytes and messages the distributed call sent
// (transport::sent()). One JSON line per kernel on rank 0, read by project_scaling.py.
// Run: mpirun -np N mpi_sparse_scaling [--weak] [--reps R]   (benchmarks/tra/run_scaling.sh)
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {
using tiles_t = sparse_relation<double, loom::dcsr>;
using dense = loom::tensor<double, loom::dense_matrix>;

struct setup {
  int reps = 3;
  bool weak = false;
  int ranks = 1, rank = 0;
};

// Tile rows [I0, I1) of an m x n matrix with `per_row` random columns in each row (generated
// from the row's own seed, so any rank builds any band alike), keys shifted by -shift.
tiles_t band(std::int64_t m, std::int64_t n, std::int64_t per_row, std::int64_t ts,
             std::array<std::int64_t, 2> tile_rows, std::int64_t shift, unsigned salt) {
  const std::int64_t bounds0 = (m + ts - 1) / ts, bounds1 = (n + ts - 1) / ts;
  tiles_t out({bounds0 - shift, bounds1}, {ts, ts});
  for (std::int64_t I = tile_rows[0]; I < tile_rows[1]; ++I) {
    std::map<std::int64_t, std::pair<std::vector<std::array<std::int64_t, 2>>, std::vector<double>>>
        by_col;
    for (std::int64_t row = I * ts; row < std::min((I + 1) * ts, m); ++row) {
      std::mt19937_64 gen(static_cast<std::uint64_t>(row) * 7919u + salt);
      for (std::int64_t e = 0; e < per_row; ++e) {
        const auto col = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(n));
        auto& [coords, vals] = by_col[col / ts];
        coords.push_back({row - I * ts, col % ts});
        vals.push_back(static_cast<double>(gen() % 7) - 3);
      }
    }
    for (auto& [J, cv] : by_col)
      out.insert({I - shift, J},
                 loom::from_coo<loom::dcsr>({ts, ts}, cv.first, cv.second, loom::duplicates::sum));
  }
  return out;
}

dense factor(std::int64_t rows, std::int64_t r, std::int64_t first_row = 0) {
  dense F({rows, r});
  for (std::int64_t a = 0; a < rows; ++a)
    for (std::int64_t b = 0; b < r; ++b)
      F.at(a, b) = static_cast<double>(((a + first_row) * 3 + b) % 5) - 2;
  return F;
}

// The fastest of reps: the work's own cost, least disturbed by other processes on the machine.
template <class F> double min_ms(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const double t0 = MPI_Wtime();
    f();
    best = std::min(best, (MPI_Wtime() - t0) * 1e3);
  }
  return best;
}
// The distributed call: median over reps of the slowest rank's time.
template <class F> double distributed_ms(int reps, F&& f) {
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    double t = (MPI_Wtime() - t0) * 1e3, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ts.push_back(worst);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}
// A barrier whose waiting ranks sleep instead of polling, so they leave the cores to the rank
// being timed.
void sleeping_barrier() {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&req, &done, MPI_STATUS_IGNORE))
    std::this_thread::sleep_for(std::chrono::microseconds(500));
}
// The local kernel, one rank at a time: the fastest of 2 reps + 1.
template <class F> double local_ms(const setup& su, F&& f) {
  double mine = 0;
  for (int q = 0; q < su.ranks; ++q) {
    sleeping_barrier();
    if (q == su.rank) mine = min_ms(2 * su.reps + 1, f);
  }
  sleeping_barrier();
  return mine;
}

// One JSON line on rank 0: the kernel, sizes, the strategy run, the model's pick and its estimate
// of the bytes the strategy run sends (all ranks), the distributed time, and per rank the local
// compute time and what it sent.
void report(const setup& su, const char* kernel, const std::string& params,
            const lm::sparse_report& rep, double total_ms, double compute_ms,
            const lm::traffic& sent) {
  std::array<double, 3> mine{compute_ms, static_cast<double>(sent.bytes),
                             static_cast<double>(sent.messages)};
  std::vector<double> all(static_cast<std::size_t>(3 * su.ranks));
  MPI_Gather(mine.data(), 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (su.rank != 0) return;
  std::size_t best = 0;
  for (std::size_t c = 0; c < rep.candidates.size(); ++c)
    if (rep.candidates[c].cost < rep.candidates[best].cost) best = c;
  std::printf(
      "{\"kernel\": \"%s\", \"scaling\": \"%s\", \"ranks\": %d, %s, \"strategy\": \"%s\", "
      "\"model_pick\": \"%s\", \"model_bytes\": %.0f, \"total_ms\": %.3f, \"per_rank\": [",
      kernel, su.weak ? "weak" : "strong", su.ranks, params.c_str(),
      rep.candidates[rep.chosen].name.c_str(), rep.candidates[best].name.c_str(),
      rep.candidates[rep.chosen].bytes, total_ms);
  for (int q = 0; q < su.ranks; ++q)
    std::printf("%s{\"compute_ms\": %.3f, \"bytes\": %.0f, \"messages\": %.0f}", q ? ", " : "",
                all[static_cast<std::size_t>(3 * q)], all[static_cast<std::size_t>(3 * q + 1)],
                all[static_cast<std::size_t>(3 * q + 2)]);
  std::printf("]}\n");
  std::fflush(stdout);
}

std::string params(std::initializer_list<std::pair<const char*, std::int64_t>> kv) {
  std::string s;
  for (const auto& [k, v] : kv) {
    if (!s.empty()) s += ", ";
    s += "\"" + std::string(k) + "\": " + std::to_string(v);
  }
  return s;
}

// the cost model's weights for the pick printed: 1 / (10 GB/s) per byte, 1 / (1 GFLOP/s) per flop
const loom::tra::cost_model model{.alpha = 1e-10, .beta = 1e-9};

// SpMV (10 products, x on every rank), SpMM (k = 16), SDDMM (r = 16, U and V on rank 0): one
// square matrix of 8 entries per row (tiles in DCSR: a tile visits only its non-empty rows) in row blocks of tiles of 16384 x 16384.
void matrix_kernels(const lm::transport& tr, const setup& su) {
  const std::int64_t scale = su.weak ? su.ranks : 1;
  const std::int64_t m = (std::int64_t{1} << 17) * scale, per_row = 8, ts = 16384;
  const std::int64_t tiles = (m + ts - 1) / ts;
  const auto rows = lm::tile_partition::row_blocks(su.ranks);
  const auto mine = rows.range_of(su.rank, tiles);
  const lm::distributed_matrix<double, loom::dcsr> A{
      {m, m}, rows, band(m, m, per_row, ts, mine, 0, 1), "A"};
  // the rank's share alone, as a matrix of its own rows
  const std::int64_t first = std::min(mine[0] * ts, m), last = std::min(mine[1] * ts, m);
  auto local_band = band(m, m, per_row, ts, mine, mine[0], 1);
  tiles_t trimmed({mine[1] - mine[0], tiles}, {ts, ts});
  for (auto& [key, t] : local_band) trimmed.insert(key, t);
  const lm::distributed_matrix<double, loom::dcsr> A_local{
      {last - first, m}, lm::tile_partition::row_blocks(1), std::move(trimmed), "A_local"};
  const lm::transport self(MPI_COMM_SELF);
  const std::int64_t nnz = lm::global_nnz(tr, A);

  {  // SpMV, 10 products
    constexpr int products = 10;
    const std::vector<double> x(static_cast<std::size_t>(m), 1.0);
    lm::sparse_report rep;
    lm::traffic sent;
    const double total = distributed_ms(su.reps, [&] {
      const auto before = tr.sent();
      for (int it = 0; it < products; ++it)
        (void)lm::spmv(tr, A, x, model, lm::dense_operand::every_rank,
                       lm::spmv_strategy::row_blocks, &rep);
      sent = tr.sent() - before;
    });
    const double compute = local_ms(su, [&] {
      for (int it = 0; it < products; ++it)
        (void)lm::spmv(self, A_local, x, model, lm::dense_operand::every_rank,
                       lm::spmv_strategy::row_blocks);
    });
    report(
        su, "spmv",
        params(
            {{"m", m}, {"n", m}, {"k", 1}, {"nnz", nnz}, {"iterations", products}, {"tile", ts}}),
        rep, total, compute, sent);
  }
  {  // SpMM
    const std::int64_t k = 16;
    const dense X = factor(m, k);
    lm::sparse_report rep;
    const double total = distributed_ms(su.reps, [&] {
      (void)lm::spmm(tr, A, X, model, lm::dense_operand::every_rank, lm::spmv_strategy::row_blocks,
                     &rep);
    });
    const double compute = local_ms(su, [&] {
      (void)lm::spmm(self, A_local, X, model, lm::dense_operand::every_rank,
                     lm::spmv_strategy::row_blocks);
    });
    report(su, "spmm",
           params({{"m", m}, {"n", m}, {"k", k}, {"nnz", nnz}, {"iterations", 1}, {"tile", ts}}),
           rep, total, compute, rep.sent);
  }
  {  // SDDMM, U and V on rank 0
    const std::int64_t r = 16;
    const dense U = factor(m, r), V = factor(m, r);
    const dense none;
    lm::sparse_report rep;
    const double total = distributed_ms(su.reps, [&] {
      (void)lm::sddmm<loom::dcsr>(tr, A, su.rank == 0 ? U : none, su.rank == 0 ? V : none, model,
                                  lm::dense_operand::root_only, lm::sddmm_strategy::row_blocks,
                                  &rep);
    });
    const dense U_local = factor(last - first, r, first);
    const double compute = local_ms(su, [&] {
      (void)lm::sddmm<loom::dcsr>(self, A_local, U_local, V, model, lm::dense_operand::every_rank,
                                  lm::sddmm_strategy::row_blocks);
    });
    report(su, "sddmm",
           params({{"m", m}, {"n", m}, {"k", r}, {"nnz", nnz}, {"iterations", 1}, {"tile", ts}}),
           rep, total, compute, rep.sent);
  }
}

// SpGEMM C = A A: a square matrix of 4 entries per row in tiles of 8192, A in row blocks, B
// broadcast (with random columns every rank needs every tile row of B).
void spgemm_kernel(const lm::transport& tr, const setup& su) {
  const std::int64_t scale = su.weak ? su.ranks : 1;
  const std::int64_t m = (std::int64_t{1} << 15) * scale, per_row = 4, ts = 8192;
  const std::int64_t tiles = (m + ts - 1) / ts;
  const auto rows = lm::tile_partition::row_blocks(su.ranks);
  const auto mine = rows.range_of(su.rank, tiles);
  const lm::distributed_matrix<double, loom::dcsr> A{
      {m, m}, rows, band(m, m, per_row, ts, mine, 0, 2), "A"};
  const std::int64_t nnz = lm::global_nnz(tr, A);
  std::int64_t b_bytes = 0;
  for (const auto& [key, t] : A.tiles) b_bytes += static_cast<std::int64_t>(lm::packed_bytes(t));
  std::int64_t all_b = 0;
  MPI_Allreduce(&b_bytes, &all_b, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  lm::sparse_report rep;
  const double total = distributed_ms(su.reps, [&] {
    (void)lm::spgemm<loom::dcsr>(tr, A, A, model, lm::spgemm_strategy::broadcast_b, &rep);
  });
  const auto B_here = lm::gather(tr, A);
  const double compute =
      local_ms(su, [&] { (void)loom::tra::block_matmul<loom::dcsr>(A.tiles, B_here); });
  report(su, "spgemm",
         params({{"m", m}, {"n", m}, {"k", 0}, {"nnz", nnz}, {"b_bytes", all_b}, {"tile", ts}}),
         rep, total, compute, rep.sent);
}

// MTTKRP: I x 2^14 x 2^14 with 32 entries per i (I = 2^16, times the ranks when weak), r = 16,
// X in balanced slices of i, B and C on every rank.
void mttkrp_kernel(const lm::transport& tr, const setup& su) {
  using csf3 = loom::csf<3>;
  const std::int64_t scale = su.weak ? su.ranks : 1;
  const std::int64_t I = (std::int64_t{1} << 16) * scale, J = 1 << 14, K = 1 << 14, per_i = 32,
                     r = 16;
  const auto slices = lm::slice_partition::balanced(0, I, su.ranks);
  const auto range = slices.range_of(su.rank);
  std::vector<std::array<std::int64_t, 3>> coords, shifted;
  std::vector<double> vals;
  for (std::int64_t i = range[0]; i < range[1]; ++i) {
    std::mt19937_64 gen(static_cast<std::uint64_t>(i) * 104729u + 3);
    for (std::int64_t e = 0; e < per_i; ++e) {
      const auto j = static_cast<std::int64_t>(gen() % J), k = static_cast<std::int64_t>(gen() % K);
      coords.push_back({i, j, k});
      shifted.push_back({i - range[0], j, k});
      vals.push_back(static_cast<double>(gen() % 5) - 2);
    }
  }
  const lm::distributed_tensor3<double, csf3> X{
      {I, J, K}, slices, loom::from_coo<csf3>({I, J, K}, coords, vals, loom::duplicates::sum), "X"};
  const lm::distributed_tensor3<double, csf3> X_local{
      {range[1] - range[0], J, K},
      lm::slice_partition::balanced(0, range[1] - range[0], 1),
      loom::from_coo<csf3>({range[1] - range[0], J, K}, shifted, vals, loom::duplicates::sum),
      "X_local"};
  const dense B = factor(J, r), C = factor(K, r);
  const std::int64_t nnz = lm::detail::allreduce_sum(X.local.nnz(), MPI_COMM_WORLD);
  lm::sparse_report rep;
  const lm::transport self(MPI_COMM_SELF);
  const double total = distributed_ms(su.reps, [&] {
    (void)lm::mttkrp(tr, X, B, C, model, lm::dense_operand::every_rank,
                     lm::mttkrp_strategy::slices_of_i, &rep);
  });
  const double compute = local_ms(su, [&] {
    (void)lm::mttkrp(self, X_local, B, C, model, lm::dense_operand::every_rank,
                     lm::mttkrp_strategy::slices_of_i);
  });
  report(su, "mttkrp",
         params({{"m", I}, {"n", J}, {"k", r}, {"nnz", nnz}, {"extent_k", K}, {"iterations", 1}}),
         rep, total, compute, rep.sent);
}
}  // namespace

int main(int argc, char** argv) {
  lm::environment env(argc, argv, std::chrono::seconds(600));
  return lm::run_or_abort([&] {
    setup su;
    for (int a = 1; a < argc; ++a) {
      if (!std::strcmp(argv[a], "--weak")) su.weak = true;
      if (!std::strcmp(argv[a], "--reps") && a + 1 < argc) su.reps = std::atoi(argv[++a]);
    }
    const lm::transport tr;
    su.ranks = static_cast<int>(tr.sites());
    su.rank = tr.rank();
    matrix_kernels(tr, su);
    spgemm_kernel(tr, su);
    mttkrp_kernel(tr, su);
    return 0;
  });
}
