// Distributed matmul over MPI: for three shapes, times the four strategies (forced) and the cost
// model's choice, prints the model's ranking next to the measured one with `explain`, and the
// scaling from 1 rank (rank 0 alone, MPI_COMM_SELF) to all ranks.
// Run: mpirun -np 2 mpi_matmul [reps]   (benchmarks/tra/run.sh does it)
// The model is the corrected one (bytes, (s-1)/s); alpha (s/byte) is calibrated with an
// all-gather, beta (s/flop) with one tile product, divided by the sites (Cc is a cluster total).
// Results stay on the rank that computed them (result_on::owner_rank): the model does not count
// a final gather either.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra.hpp>
#include <loom/tra/mpi.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <malloc.h>

using namespace loom::tra;
namespace lm = loom::tra::mpi;

namespace {
relation<double, 2, 2> random_tiles(std::int64_t rows, std::int64_t cols, std::int64_t b,
                                    unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> v(-1, 1);
  relation<double, 2, 2> r({rows, cols}, {b, b});
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      tile<double, 2> t({b, b});
      for (auto& x : t.data()) x = v(gen);
      r.insert({i, j}, std::move(t));
    }
  return r;
}

double now() { return MPI_Wtime(); }

// median over reps of the slowest rank's time
template <class F> double timed(MPI_Comm comm, int reps, F&& f) {
  std::vector<double> ts;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double t0 = now();
    f();
    double t = now() - t0, worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    ts.push_back(worst);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

double calibrate_alpha(MPI_Comm comm) {
  if (lm::size(comm) == 1) return 0;
  const std::size_t bytes = 1 << 22;
  std::vector<char> mine(bytes), all(bytes * static_cast<std::size_t>(lm::size(comm)));
  const double t = timed(comm, 5, [&] {
    MPI_Allgather(mine.data(), static_cast<int>(bytes), MPI_BYTE, all.data(),
                  static_cast<int>(bytes), MPI_BYTE, comm);
  });
  return t / (static_cast<double>(bytes) * (lm::size(comm) - 1) * lm::size(comm));
}

double calibrate_beta(std::int64_t b) {
  tile<double, 2> x({b, b}), y({b, b}), z({b, b});
  for (auto& v : x.data()) v = 1.0;
  for (auto& v : y.data()) v = 2.0;
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    matmul_into(x, y, z);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best / (2.0 * static_cast<double>(b * b * b));
}

struct scenario {
  const char* label;
  std::int64_t I, K, J, b;
  partitioning x, y;
};

std::string ranking(const std::array<double, 4>& v) {
  std::array<int, 4> idx{0, 1, 2, 3};
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int c) {
    return v[static_cast<std::size_t>(a)] < v[static_cast<std::size_t>(c)];
  });
  std::string out;
  for (int i : idx)
    out += std::string(out.empty() ? "" : " < ") +
           std::string(name(all_matmul_strategies[static_cast<std::size_t>(i)]));
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  // Tiles of 128 KiB sit at glibc's mmap threshold: keep freed tiles in the heap instead of
  // returning them to the kernel after every operator (page faults would dominate the timings).
  mallopt(M_MMAP_THRESHOLD, 1 << 28);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  lm::environment env(argc, argv, std::chrono::seconds(600));
  return lm::run_or_abort([&] {
    const bool scaling = argc > 1 && std::string(argv[1]) == "--scaling";
    const int reps = argc > (scaling ? 2 : 1) ? std::atoi(argv[scaling ? 2 : 1]) : 5;
    lm::transport world;
    const bool root = world.rank() == 0;
    if (scaling) {  // one larger product, the strategy the model picks: the strong-scaling row
      loom::set_num_threads(1);  // one thread per rank: the ranks are the parallelism measured
      const std::int64_t blocks = argc > 3 ? std::atoll(argv[3]) : 4, b = 256;
      const auto X = random_tiles(blocks, blocks, b, 1), Y = random_tiles(blocks, blocks, b, 2);
      cost_model cm{.alpha = calibrate_alpha(MPI_COMM_WORLD),
                    .beta = calibrate_beta(b) / static_cast<double>(world.sites()),
                    .sites = world.sites(),
                    .policy = cost_policy::corrected};
      lm::matmul_report rep;
      const double t = timed(MPI_COMM_WORLD, reps, [&] {
        lm::matmul(world, X, Y, cm, partitioning::none, partitioning::none, std::nullopt, &rep,
                   lm::result_on::owner_rank);
      });
      if (root)
        std::printf(
            "scaling: ranks %lld, X and Y %lldx%lld tiles of %lld^2 (%.0f MFLOP), "
            "strategy %s, median %.1f ms\n",
            static_cast<long long>(world.sites()), static_cast<long long>(blocks),
            static_cast<long long>(blocks), static_cast<long long>(b),
            2.0 * std::pow(static_cast<double>(blocks * b), 3) * 1e-6,
            std::string(name(rep.chosen.strategy)).c_str(), t * 1e3);
      return 0;
    }
    MPI_Comm self_comm;
    MPI_Comm_split(MPI_COMM_WORLD, world.rank() == 0 ? 0 : MPI_UNDEFINED, 0, &self_comm);
    const double alpha = calibrate_alpha(MPI_COMM_WORLD);
    const std::array<scenario, 3> scenarios{{
        {"square, unpartitioned", 4, 4, 4, 128, partitioning::none, partitioning::none},
        {"square, Y column-partitioned", 4, 4, 4, 128, partitioning::none, partitioning::cols},
        {"skinny X (1 block-row), unpartitioned", 1, 8, 8, 128, partitioning::none,
         partitioning::none},
    }};
    if (root)
      std::printf(
          "ranks %lld, alpha %.3g s/byte (all-gather), reps %d (median of the slowest rank)\n",
          static_cast<long long>(world.sites()), alpha, reps);
    for (const auto& sc : scenarios) {
      const auto X = random_tiles(sc.I, sc.K, sc.b, 1), Y = random_tiles(sc.K, sc.J, sc.b, 2);
      cost_model cm{.alpha = alpha,
                    .beta = calibrate_beta(sc.b) / static_cast<double>(world.sites()),
                    .sites = world.sites(),
                    .policy = cost_policy::corrected};
      matmul_shape sh{sc.I, sc.K, sc.J, sc.b, sc.b, sc.b, sc.x, sc.y};
      std::array<double, 4> predicted{}, measured{};
      for (std::size_t s = 0; s < 4; ++s) {
        const auto st = all_matmul_strategies[s];
        predicted[s] = estimate(cm, sh, st).total;
        measured[s] = timed(MPI_COMM_WORLD, reps, [&] {
          lm::matmul(world, X, Y, cm, sc.x, sc.y, st, nullptr, lm::result_on::owner_rank);
        });
      }
      lm::matmul_report rep;
      const double t_auto = timed(MPI_COMM_WORLD, reps, [&] {
        lm::matmul(world, X, Y, cm, sc.x, sc.y, std::nullopt, &rep, lm::result_on::owner_rank);
      });
      double t_one = 0;
      if (root) {  // the same product on rank 0 alone
        lm::transport alone(self_comm);
        cost_model c1 = cm;
        c1.beta = cm.beta * static_cast<double>(world.sites());
        t_one = timed(self_comm, reps, [&] { lm::matmul(alone, X, Y, c1, sc.x, sc.y); });
      }
      if (root) {
        std::printf("\n== %s: X %lldx%lld, Y %lldx%lld tiles of %lld^2 (%.0f MFLOP)\n", sc.label,
                    static_cast<long long>(sc.I), static_cast<long long>(sc.K),
                    static_cast<long long>(sc.K), static_cast<long long>(sc.J),
                    static_cast<long long>(sc.b),
                    2.0 * static_cast<double>(sc.I * sc.K * sc.J) *
                        std::pow(static_cast<double>(sc.b), 3) * 1e-6);
        std::printf("%s", rep.explain.c_str());
        std::printf("  %-16s %14s %12s\n", "strategy", "predicted ms", "measured ms");
        for (std::size_t s = 0; s < 4; ++s)
          std::printf("  %-16s %14.3f %12.3f\n",
                      std::string(name(all_matmul_strategies[s])).c_str(), predicted[s] * 1e3,
                      measured[s] * 1e3);
        std::printf("  predicted ranking: %s\n  measured ranking:  %s\n",
                    ranking(predicted).c_str(), ranking(measured).c_str());
        std::printf("  auto (%s): %.3f ms on %lld ranks; 1 rank: %.3f ms; speedup %.2f\n",
                    std::string(name(rep.chosen.strategy)).c_str(), t_auto * 1e3,
                    static_cast<long long>(world.sites()), t_one * 1e3, t_one / t_auto);
      }
    }
    if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
    return 0;
  });
}
