// Paired timing of SpMV over built-in CSR and over the same arrays as mappings (CSR as a
// mapping; DCSR with hashed rows): each round times the kernels back to back, alternating which
// goes first, and the median of the per-round ratios is reported, which cancels most of the
// load of a shared machine (bench.mapping's repetitions do not pair). Usage:
// paired [rounds] (inputs: uniform_1Mx1M_10M and the real matrices of bench.mapping). Built
// directly: g++-12 -std=c++20 -O2 -DNDEBUG -Iinclude -isystem /usr/include/eigen3
// -DLOOM_BENCH_DATA_DIR=\"...\" benchmarks/mapping/paired.cpp -lbenchmark -lpthread
// SPDX-License-Identifier: BSL-1.0
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "../runtime/support.hpp"

namespace {
namespace lb = loom_bench;
namespace lm = loom::mapping;
namespace nm = loom::mapping::names;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
using vec = loom::tensor<double, loom::dense_vector>;

template <class F> double cpu_us(F&& f, int reps) {  // CPU time of the process per call
  const std::clock_t t0 = std::clock();
  for (int r = 0; r < reps; ++r) f();
  return 1e6 * static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC / reps;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void run(const std::string& name, const lb::entries<2>& e, int rounds) {
  auto A = lb::to_loom<loom::csr>(e);
  const auto& lv = A.level<1>();
  auto vals = A.values();
  auto M = lm::make_view<lm::csr>(A.shape(), vals,
                                  lm::bind(nm::pos2, std::span<const std::int64_t>(lv.pos)),
                                  lm::bind(nm::idx2, std::span<const std::int32_t>(lv.crd)));
  std::vector<std::pair<std::int64_t, std::int64_t>> keys;
  std::vector<std::int64_t> pos{0};
  for (std::int64_t r = 0; r < A.extent(0); ++r)
    if (lv.pos[r + 1] > lv.pos[r]) {
      keys.emplace_back(r, static_cast<std::int64_t>(keys.size()));
      pos.push_back(lv.pos[r + 1]);
    }
  const auto rows = lm::hash_table<>::from(keys);
  auto H =
      lm::make_view<lm::hashed_rows>(A.shape(), vals, lm::bind(nm::rows, rows),
                                     lm::bind(nm::pos2, std::span<const std::int64_t>(pos)),
                                     lm::bind(nm::idx2, std::span<const std::int32_t>(lv.crd)));
  vec x({A.extent(1)}), y({A.extent(0)});
  for (auto& v : x.values()) v = 1.25;
  auto builtin = [&] { y(i) = loom::sum(j, A(i, j) * x(j)); };
  auto mapped = [&] { y(i) = loom::sum(j, M(i, j) * x(j)); };
  auto hashed = [&] { y(i) = loom::sum(j, H(i, j) * x(j)); };
  builtin(), mapped(), hashed();
  const double once = cpu_us(builtin, 3);
  const int reps = std::max(1, static_cast<int>(20000.0 / std::max(once, 1.0)));  // ~20 ms blocks
  std::vector<double> tb, rm, rh;
  for (int r = 0; r < rounds; ++r) {
    double b, m, h;
    if (r % 2 == 0) {
      b = cpu_us(builtin, reps), m = cpu_us(mapped, reps), h = cpu_us(hashed, reps);
    } else {
      h = cpu_us(hashed, reps), m = cpu_us(mapped, reps), b = cpu_us(builtin, reps);
    }
    tb.push_back(b);
    rm.push_back(m / b);
    rh.push_back(h / b);
  }
  std::printf("| %s | %lld | %.4g | %.3fx | %.3fx |\n", name.c_str(),
              static_cast<long long>(A.nnz()), median(tb) / 1000.0, median(rm), median(rh));
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  loom::set_num_threads(1);  // like bench.mapping: one loom thread, CPU time = the kernel's time
  std::printf(
      "| input | nnz | built-in CSR, CPU ms (median) | CSR mapping / built-in (median of paired "
      "ratios) | hashed_rows / built-in |\n|---|---|---|---|---|\n");
  run("uniform_1Mx1M_10M", lb::random_matrix(1'000'000, 1'000'000, 10, 1), rounds);
  for (const auto& [name, path] : lb::real_matrices()) run(name, lb::load_matrix(path), rounds);
}
