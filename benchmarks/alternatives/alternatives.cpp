// A matrix held in several formats (loom::alternatives): each kernel against every format forced,
// timed with loom/bench.hpp (interleaved rounds, medians, ratios to the chosen one). Shows what
// the choice is worth where one format needs a transposed copy or a scattered walk. Usage:
// alternatives [rounds]; inputs: a uniform 20K x 20K matrix with ~10 entries per row, and the
// real matrices bcsstk13 and cryg2500 (LOOM_BENCH_DATA or the build's data folder); one thread.
// SPDX-License-Identifier: BSL-1.0
#include <loom/bench.hpp>
#include <loom/loom.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "../runtime/support.hpp"

namespace {
namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
using csr_t = loom::tensor<double, loom::csr>;
using csc_t = loom::tensor<double, loom::csc>;
using dok_t = loom::tensor<double, loom::mapping::dok>;

void run(const std::string& name, const lb::entries<2>& e, int rounds) {
  auto A = lb::to_loom<loom::csr>(e);
  A.set_name("A");
  csc_t Ac(A);
  Ac.set_name("A");
  dok_t Ad(A);
  Ad.set_name("A");
  const loom::alternatives held(Ac, A, Ad);  // csc first: the choice is not the first by default
  const loom::alternatives held2(Ac, A);
  const std::int64_t m = A.extent(0), n = A.extent(1);
  loom::tensor<double, loom::dense_vector> x({n}), u({m}), y({m}), z({n});
  for (auto& v : x.values()) v = 1.0;
  for (auto& v : u.values()) v = 1.0;
  csr_t C({m, n}), S({m, n});
  // a sparse mask: one entry in 64 of A's
  std::vector<std::array<std::int64_t, 2>> mc;
  std::vector<double> mv;
  for (std::size_t p = 0; p < e.crd.size(); p += 64) {
    mc.push_back(e.crd[p]);
    mv.push_back(1.0);
  }
  const auto M = loom::from_coo<loom::csr>(A.shape(), mc, mv);
  const loom::bench::options opts{.rounds = rounds, .min_time = 0.01};
  auto table = [&](const std::string& kernel, auto lhs, const auto& rhs, std::size_t count) {
    std::vector<loom::bench::entry> entries{{"chosen", [&] { loom::assign(lhs, rhs); }}};
    const std::vector<std::string> names{"csc", "csr", "dok"};
    for (std::size_t v = 0; v < count; ++v)
      entries.push_back({"forced " + names[v],
                         [&, v] { loom::assign(lhs, rhs, loom::options<>{.alternative = v}); }});
    std::printf("### %s, %s\n\n", kernel.c_str(), name.c_str());
    const std::string text = loom::explain(lhs, rhs);
    std::printf("```\n%s```\n\n", text.substr(0, text.find("kernel:")).c_str());
    std::fputs(loom::bench::compare(kernel, entries, opts).markdown().c_str(), stdout);
    std::printf("\n");
  };
  table("y(i) = sum(j, A(i,j) * x(j))", y(i), loom::sum(j, held(i, j) * x(j)), 3);
  table("z(j) = sum(i, A(i,j) * u(i))", z(j), loom::sum(i, held(i, j) * u(i)), 3);
  table("S(i,j) = M(i,j) * A(i,j)", S(i, j), M(i, j) * held(i, j), 3);
  table("C(i,k) = sum(j, A(i,j) * A(j,k))", C(i, k), loom::sum(j, A(i, j) * held2(j, k)), 2);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  loom::set_num_threads(1);  // the formats compared, not the thread pool (docs/parallel.md)
  std::printf("# Formats held as alternatives (bench.alternatives)\n\n");
  run("uniform_20K", lb::random_matrix(20000, 20000, 10, 42), rounds);
  for (const auto& [name, path] : lb::real_matrices())
    if (name == "bcsstk13" || name == "cryg2500") run(name, lb::load_matrix(path), rounds);
  return 0;
}
