// Subgraph counting: closed 4-walks trace(A^4) = sum(i,j,k,l, A(i,j) A(j,k) A(k,l) A(l,i))
// and ordered triangles sum(i,j,k, A(i,j) A(j,k) A(i,k)) on the symmetrised 0/1 patterns of the
// real matrices and of a generated power-law graph: loom::decompose (the plan chosen from
// statistics), the chosen elimination prefix with each intermediate format (sorted, dense, bitmap
// and hashed; all but dense are kinds of the adaptive level), the fused single kernel, and a
// hand-written kernel.
// SPDX-License-Identifier: BSL-1.0
#include <cmath>

#include "support.hpp"

namespace {

// decompose may store intermediates as bitmaps
using with_bitmaps = loom::options<loom::opt::eliminate, loom::opt::bitmap_intermediates>;

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

using csr_t = loom::tensor<double, loom::csr>;
using scalar_t = loom::tensor<double, loom::format<>>;

// The symmetric 0/1 pattern without self loops.
lb::entries<2> symmetric_pattern(const lb::entries<2>& e) {
  lb::entries<2> s;
  const std::int64_t n = std::max(e.shape[0], e.shape[1]);
  s.shape = {n, n};
  for (const auto& c : e.crd)
    if (c[0] != c[1]) {
      s.crd.push_back({c[0], c[1]});
      s.crd.push_back({c[1], c[0]});
    }
  std::sort(s.crd.begin(), s.crd.end());
  s.crd.erase(std::unique(s.crd.begin(), s.crd.end()), s.crd.end());
  s.val.assign(s.crd.size(), 1.0);
  return s;
}

// Chung-Lu style power-law graph: vertex v has weight (v + 1)^(-1/2); `edges` sampled pairs.
lb::entries<2> power_law(std::int64_t n, std::int64_t edges, std::uint64_t seed) {
  lb::rng g(seed);
  std::vector<double> cdf(static_cast<std::size_t>(n));
  double total = 0;
  for (std::int64_t v = 0; v < n; ++v)
    cdf[static_cast<std::size_t>(v)] = total += 1.0 / std::sqrt(static_cast<double>(v + 1));
  auto pick = [&] {
    const double x = (g.value() - 0.5) * total;
    return static_cast<std::int64_t>(std::lower_bound(cdf.begin(), cdf.end(), x) - cdf.begin());
  };
  lb::entries<2> e;
  e.shape = {n, n};
  for (std::int64_t t = 0; t < edges; ++t) {
    const std::int64_t a = std::min(pick(), n - 1), b = std::min(pick(), n - 1);
    e.crd.push_back({a, b});
    e.val.push_back(1.0);
  }
  return symmetric_pattern(e);
}

// trace(A^4) for symmetric A: sum over rows i of sum_k (number of 2-paths i->k)^2.
double hand_four_walks(const csr_t& A) {
  const auto& a = A.level<1>();
  const std::int64_t n = A.extent(0);
  std::vector<double> paths(static_cast<std::size_t>(n), 0.0);
  std::vector<std::int32_t> touched;
  double total = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    touched.clear();
    for (std::int64_t p = a.pos[r]; p < a.pos[r + 1]; ++p) {
      const std::int64_t m = a.crd[p];
      for (std::int64_t q = a.pos[m]; q < a.pos[m + 1]; ++q) {
        const std::int32_t c = a.crd[q];
        if (paths[c] == 0) touched.push_back(c);
        paths[c] += 1;
      }
    }
    for (std::int32_t c : touched) {
      total += paths[c] * paths[c];
      paths[c] = 0;
    }
  }
  return total;
}

// Ordered triangles: for every edge (r, m), |row r ∩ row m| by merging.
double hand_triangles(const csr_t& A) {
  const auto& a = A.level<1>();
  double total = 0;
  for (std::int64_t r = 0; r < A.extent(0); ++r)
    for (std::int64_t p = a.pos[r]; p < a.pos[r + 1]; ++p) {
      const std::int64_t m = a.crd[p];
      std::int64_t x = a.pos[r], y = a.pos[m];
      while (x < a.pos[r + 1] && y < a.pos[m + 1]) {
        if (a.crd[x] < a.crd[y])
          ++x;
        else if (a.crd[y] < a.crd[x])
          ++y;
        else {
          total += 1;
          ++x;
          ++y;
        }
      }
    }
  return total;
}

struct graph {
  csr_t A;
  double walks = 0, triangles = 0;
};

void register_graph(const std::string& name, std::function<lb::entries<2>()> make) {
  auto data = std::make_shared<lb::lazy<graph>>([=] {
    auto g = std::make_unique<graph>();
    g->A = lb::to_loom<loom::csr>(make());
    g->walks = hand_four_walks(g->A);
    g->triangles = hand_triangles(g->A);
    const csr_t& A = g->A;
    scalar_t s;
    const auto walks = loom::sum(
        i, loom::sum(j, loom::sum(k, loom::sum(l, A(i, j) * A(j, k) * A(k, l) * A(l, i)))));
    std::printf("subgraphs/%s: %lld vertices, %lld edges; 4-walks %.0f, triangles %.0f\n%s",
                name.c_str(), (long long)A.extent(0), (long long)A.nnz(), g->walks, g->triangles,
                loom::explain(s(), walks, with_bitmaps{}).c_str());
    loom::decompose(s(), walks, with_bitmaps{});
    lb::check_scalar("subgraphs/" + name + ": 4-walks decompose vs hand", s.values()[0], g->walks);
    const auto tri = loom::sum(i, loom::sum(j, loom::sum(k, A(i, j) * A(j, k) * A(i, k))));
    loom::decompose(s(), tri, with_bitmaps{});
    lb::check_scalar("subgraphs/" + name + ": triangles decompose vs hand", s.values()[0],
                     g->triangles);
    return g;
  });
  lb::add("four_walks", name, "decompose", [=](benchmark::State& st) {
    graph& g = data->get();
    const csr_t& A = g.A;
    scalar_t s;
    for (auto _ : st) {
      loom::decompose(
          s(),
          loom::sum(
              i, loom::sum(j, loom::sum(k, loom::sum(l, A(i, j) * A(j, k) * A(k, l) * A(l, i))))),
          with_bitmaps{});
      benchmark::DoNotOptimize(s.values()[0]);
    }
    lb::label(st, A.nnz(), "trace(A^4), chosen plan");
  });
  // the chosen elimination prefix with each intermediate format (the planner picks one by cost)
  for (const loom::intermediate_format f : loom::intermediate_formats) {
    if (!with_bitmaps::compiles(f)) continue;
    lb::add(
        "four_walks", name, std::string("chosen_prefix_") + loom::intermediate_format_name(f),
        [=](benchmark::State& st) {
          graph& g = data->get();
          const csr_t& A = g.A;
          scalar_t s;
          const auto walks = loom::sum(
              i, loom::sum(j, loom::sum(k, loom::sum(l, A(i, j) * A(j, k) * A(k, l) * A(l, i)))));
          const loom::decomposition_choice plan =
              loom::plan_decomposition(s(), walks, with_bitmaps{});
          const std::size_t c = plan.chosen;
          for (auto _ : st) {
            loom::decompose(s(), walks, with_bitmaps{.candidate = c, .intermediates = {f}});
            benchmark::DoNotOptimize(s.values()[0]);
          }
          lb::check_scalar("subgraphs/" + name + ": 4-walks, " + loom::intermediate_format_name(f) +
                               " intermediates vs hand",
                           s.values()[0], g.walks);
          lb::label(st, A.nnz(),
                    "candidate #" + std::to_string(c) + ", " + loom::intermediate_format_name(f) +
                        " intermediates" + (plan.format[c] == f ? " (chosen)" : ""));
        });
  }
  lb::add("four_walks", name, "fused", [=](benchmark::State& st) {
    graph& g = data->get();
    const csr_t& A = g.A;
    for (auto _ : st) {
      double v = loom::eval(loom::sum(
          i, loom::sum(j, loom::sum(k, loom::sum(l, A(i, j) * A(j, k) * A(k, l) * A(l, i))))));
      benchmark::DoNotOptimize(v);
    }
    lb::label(st, A.nnz(), "trace(A^4), one fused kernel");
  });
  lb::add("four_walks", name, "hand", [=](benchmark::State& st) {
    graph& g = data->get();
    for (auto _ : st) benchmark::DoNotOptimize(hand_four_walks(g.A));
    lb::label(st, g.A.nnz(), "trace(A^4), hand-written");
  });
  lb::add("triangles", name, "decompose", [=](benchmark::State& st) {
    graph& g = data->get();
    const csr_t& A = g.A;
    scalar_t s;
    for (auto _ : st) {
      loom::decompose(s(), loom::sum(i, loom::sum(j, loom::sum(k, A(i, j) * A(j, k) * A(i, k)))),
                      with_bitmaps{});
      benchmark::DoNotOptimize(s.values()[0]);
    }
    lb::label(st, A.nnz(), "ordered triangles, chosen plan");
  });
  lb::add("triangles", name, "hand", [=](benchmark::State& st) {
    graph& g = data->get();
    for (auto _ : st) benchmark::DoNotOptimize(hand_triangles(g.A));
    lb::label(st, g.A.nnz(), "ordered triangles, hand-written");
  });
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& [name, path] : lb::real_matrices())
    register_graph(name, [path = path] { return symmetric_pattern(lb::load_matrix(path)); });
  register_graph("powerlaw_20K", [] { return power_law(20'000, 80'000, 5); });
  return lb::run(argc, argv);
}
