// Filtered SpMV, the paper's fused tensor + relational example (the indexed-streams paper):
//   y(j) = Σ_i [v(i) > t] · v(i) · A(i, j)
// with the vector on the outer attribute, so the filter prunes whole rows. Fused: the value
// filter is a stream level (`rel::value_filter`, Etch's valFilter: a filtered entry is not
// ready, so its row of A is never entered). Unfused: the selection first materialises the
// filtered vector (`rel::filter_values`), then a plain SpMV. Also `loom::where(v(i) > t, v(i))`
// (fused but evaluated as a 0/1 factor, so it does not prune) and a hand-written loop. Time
// should fall as the filter gets more selective. A is random, 2,000,000 nonzeros.
//   filtered_spmv [rows] [nonzeros per row]
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "timing.hpp"

namespace {
namespace rel = loom::relational;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
}  // namespace

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : 200000;
  const std::int64_t per_row = argc > 2 ? std::atoll(argv[2]) : 10;
  std::mt19937_64 gen(42);
  std::vector<std::array<std::int64_t, 2>> crd;
  std::vector<double> val;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < per_row; ++k) {
      crd.push_back({r, static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(rows))});
      val.push_back(1.0 + static_cast<double>(gen() % 100) / 100.0);
    }
  const auto A = loom::from_coo<loom::csr>({rows, rows}, crd, val, loom::duplicates::sum);
  // v: a score per row, uniform in (0, 1]; threshold t = selectivity quantile. Scattered: the
  // rows that pass are spread over A (memory-latency bound until few remain); clustered: they
  // are one block of rows (streamed).
  auto scores = [&](bool scattered) {
    std::vector<std::array<std::int64_t, 1>> c;
    std::vector<double> x;
    for (std::int64_t r = 0; r < rows; ++r) {
      c.push_back({r});
      const std::int64_t rank = scattered ? r * 7919 % rows : r;
      x.push_back(static_cast<double>(rank + 1) / static_cast<double>(rows));
    }
    return loom::from_coo<loom::sparse_vector>({rows}, c, x);
  };
  loom::tensor<double, loom::sparse_vector> v = scores(true);
  loom::tensor<double, loom::dense_vector> y({rows});
  std::vector<double> hand(static_cast<std::size_t>(rows));
  const auto& pos = A.level<1>().pos;
  const auto& cols = A.level<1>().crd;
  const auto av = A.values();

  const auto probe = rel::value_filter<rel::greater>(v, 0.5);
  std::printf("A: %lld x %lld, %lld nonzeros\n%s\n", (long long)rows, (long long)rows,
              (long long)A.nnz(), loom::explain(y(j), loom::sum(i, probe(i) * A(i, j))).c_str());
  for (const bool scattered : {true, false}) {
    v = scores(scattered);
    const auto vv = v.values();
    std::printf("\n%s rows pass the filter:\n\n", scattered ? "Scattered" : "Clustered");
    std::printf(
        "| filtered out | fused loom (ms) | unfused: filter (ms) | unfused: SpMV (ms) | unfused "
        "total (ms) | loom where (ms) | hand-written fused (ms) | max diff |\n");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const double selectivity : {0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.99, 1.0}) {
      const double t = selectivity;  // v is uniform in (0, 1]: v > t keeps a 1 - t fraction
      const auto vf_view = rel::value_filter<rel::greater>(v, t);
      const double fused = bench::median_ms([&] { y(j) = loom::sum(i, vf_view(i) * A(i, j)); });
      std::vector<double> fused_y(y.values().begin(), y.values().end());
      const double with_where =
          bench::median_ms([&] { y(j) = loom::sum(i, loom::where(v(i) > t, v(i)) * A(i, j)); });
      std::vector<double> where_y(y.values().begin(), y.values().end());
      loom::tensor<double, loom::sparse_vector> vf;
      const double filter =
          bench::median_ms([&] { vf = rel::filter_values(v, [t](double x) { return x > t; }); });
      const double spmv = bench::median_ms([&] { y(j) = loom::sum(i, vf(i) * A(i, j)); });
      const double hw = bench::median_ms([&] {
        std::fill(hand.begin(), hand.end(), 0.0);
        for (std::int64_t r = 0; r < rows; ++r) {
          const double x = vv[static_cast<std::size_t>(r)];
          if (!(x > t)) continue;
          for (std::int64_t p = pos[r]; p < pos[r + 1]; ++p) hand[cols[p]] += x * av[p];
        }
      });
      double diff = 0;
      for (std::int64_t c = 0; c < rows; ++c) {
        diff = std::max(diff, std::abs(fused_y[c] - hand[c]));
        diff = std::max(diff, std::abs(where_y[c] - hand[c]));
        diff = std::max(diff, std::abs(y.at(c) - hand[c]));
      }
      std::printf("| %.0f%% | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1e |\n",
                  selectivity * 100, fused, filter, spmv, filter + spmv, with_where, hw, diff);
      if (diff > 1e-9) return 1;
    }
  }
}
