// A sparse matrix spread over MPI ranks: each rank reads only its row blocks of a Matrix Market
// file, then y = A x and C = A A run with the strategies the cost model picks; rank 0 prints
// each plan and every rank what it sent.
//   mpirun -np 4 ./example.mpi_sparse data/matrices/bcsstk13.mtx
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>
#include <loom/tra/mpi.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace lm = loom::tra::mpi;

int main(int argc, char** argv) {
  lm::environment env(argc, argv);  // MPI_Init, a watchdog, MPI_Finalize
  return lm::run_or_abort([&] {
    lm::transport tr;
    const std::string path = argc > 1 ? argv[1] : "data/matrices/bcsstk13.mtx";
    const auto rows = lm::tile_partition::row_blocks(tr.sites());
    // each rank parses a slice of the file and keeps the entries of its own tiles of 256 x 256,
    // stored as CSR; the entries it parsed for other ranks are sent to them
    const auto A = lm::read_matrix_market_tiles<double, loom::csr>(tr, path, {256, 256}, rows,
                                                                   lm::file_split::byte_ranges);
    const loom::tra::cost_model cm{.alpha = 1e-9, .beta = 1e-11};  // s per byte, s per flop

    const std::vector<double> x(static_cast<std::size_t>(A.shape[1]), 1.0);  // on every rank
    lm::sparse_report spmv_plan;
    const auto y = lm::spmv(tr, A, x, cm, lm::dense_operand::every_rank, std::nullopt, &spmv_plan);
    if (tr.rank() == 0) std::puts(spmv_plan.explain.c_str());  // bytes, flops, the choice

    lm::sparse_report spgemm_plan;  // C = A A keeps its tile rows where A's are
    const auto C = lm::spgemm<loom::csr>(tr, A, A, cm, std::nullopt, &spgemm_plan);
    const std::int64_t c_entries = lm::global_nnz(tr, C);
    if (tr.rank() == 0) std::puts(spgemm_plan.explain.c_str());

    if (tr.rank() == 0)
      std::printf("y[0] = %g, C holds %lld entries\n", y.empty() ? 0.0 : y[0],
                  static_cast<long long>(c_entries));
    std::printf("rank %d: %zu tiles; sent %lld bytes in %lld messages (spmv %lld, spgemm %lld)\n",
                tr.rank(), A.tiles.size(), static_cast<long long>(tr.sent().bytes),
                static_cast<long long>(tr.sent().messages),
                static_cast<long long>(spmv_plan.sent.bytes),
                static_cast<long long>(spgemm_plan.sent.bytes));
    return 0;
  });
}
