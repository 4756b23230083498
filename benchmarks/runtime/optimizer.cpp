// The runtime optimizer: a matrix chain A*B*C*D in the order chosen from statistics
// versus the fixed left-to-right order, on skewed and uniform inputs; and the optimizer's own
// cost per call (first call: statistics + costing; later calls: the cached plan) next to the
// kernel it plans, A(i,j) + B(j,i) at 1M stored entries per operand (two candidate plans); and
// loom::gather_statistics alone on 1M-entry csr and csc matrices, next to the generic pass.
// SPDX-License-Identifier: BSL-1.0
#include "support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using csr_t = loom::tensor<double, loom::csr>;

struct chain_input {
  csr_t A, B, C, D;
};

// Non-zeros in a few columns only (every `step`-th row), a skewed right end of the chain.
lb::entries<2> few_columns(std::int64_t n, std::int64_t columns, std::int64_t step,
                           std::uint64_t seed) {
  lb::rng g(seed);
  lb::entries<2> e;
  e.shape = {n, n};
  for (std::int64_t r = 0; r < n; r += step)
    for (std::int64_t c = 0; c < columns; ++c) {
      e.crd.push_back({r, c * (n / columns)});
      e.val.push_back(g.value());
    }
  return e;
}
lb::entries<2> few_rows(std::int64_t n, std::int64_t rows, std::int64_t per_row,
                        std::uint64_t seed) {
  lb::entries<2> all = lb::random_matrix(rows, n, per_row, seed);
  all.shape = {n, n};
  for (auto& c : all.crd) c[0] *= n / rows;
  return all;
}

void register_chain(const std::string& name, std::function<std::unique_ptr<chain_input>()> make) {
  auto data = std::make_shared<lb::lazy<chain_input>>([=] {
    auto in = make();
    const csr_t want =
        loom::matrix_chain(loom::chain_order::left_to_right, in->A, in->B, in->C, in->D);
    const csr_t got = loom::matrix_chain(loom::chain_order::optimized, in->A, in->B, in->C, in->D);
    lb::check_exact("chain/" + name + ": shape of chosen vs left-to-right",
                    std::vector<std::int64_t>{got.nnz()}, std::vector<std::int64_t>{want.nnz()});
    lb::check_values("chain/" + name + ": chosen vs left-to-right",
                     std::vector<double>(got.values().begin(), got.values().end()),
                     std::vector<double>(want.values().begin(), want.values().end()), 1e-9);
    std::printf("chain/%s: chosen plan\n%s", name.c_str(),
                loom::plan_matrix_chain(loom::chain_order::optimized, in->A, in->B, in->C, in->D)
                    .describe({"A", "B", "C", "D"})
                    .c_str());
    return in;
  });
  const std::string what = "A*B*C*D (csr)";
  lb::add("chain", name, "chosen", [=](benchmark::State& s) {
    chain_input& in = data->get();
    std::int64_t nnz = 0;
    for (auto _ :
         s) {  // planning included, as a repeated call pays it: signatures checked, plan reused
      const csr_t M = loom::matrix_chain(loom::chain_order::optimized, in.A, in.B, in.C, in.D);
      nnz = M.nnz();
      benchmark::DoNotOptimize(M.values().data());
    }
    lb::label(s, nnz, what);
  });
  lb::add("chain", name, "left_to_right", [=](benchmark::State& s) {
    chain_input& in = data->get();
    std::int64_t nnz = 0;
    for (auto _ : s) {
      const csr_t M = loom::matrix_chain(loom::chain_order::left_to_right, in.A, in.B, in.C, in.D);
      nnz = M.nnz();
      benchmark::DoNotOptimize(M.values().data());
    }
    lb::label(s, nnz, what);
  });
}

struct add_input {
  csr_t A, B, C;
};

}  // namespace

int main(int argc, char** argv) {
  constexpr std::int64_t n = 20'000;
  register_chain("skewed_last_20K", [] {
    auto in = std::make_unique<chain_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 8, 61));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 8, 62));
    in->C = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 8, 63));
    in->D = lb::to_loom<loom::csr>(few_columns(n, 2, 4, 64));
    return in;
  });
  register_chain("skewed_first_20K", [] {
    auto in = std::make_unique<chain_input>();
    in->A = lb::to_loom<loom::csr>(few_rows(n, 2, 8, 71));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 8, 72));
    in->C = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 8, 73));
    in->D = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 8, 74));
    return in;
  });
  register_chain("uniform_20K", [] {
    auto in = std::make_unique<chain_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 4, 81));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 4, 82));
    in->C = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 4, 83));
    in->D = lb::to_loom<loom::csr>(lb::random_matrix(n, n, 4, 84));
    return in;
  });

  // Optimizer overhead next to the kernel it plans.
  auto data = std::make_shared<lb::lazy<add_input>>([] {
    auto in = std::make_unique<add_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(100'000, 100'000, 10, 91));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(100'000, 100'000, 10, 92));
    in->C = csr_t({100'000, 100'000});
    return in;
  });
  const std::string what = "C(i,j) = A(i,j) + B(j,i), csr, 1M entries each";
  lb::add("optimizer", "add_transposed_1M", "kernel", [=](benchmark::State& s) {
    add_input& in = data->get();
    for (auto _ : s) {
      in.C(i, j) = in.A(i, j) + in.B(j, i);
      benchmark::DoNotOptimize(in.C.values().data());
    }
    lb::label(s, in.C.nnz(), what);
  });
  lb::add("optimizer", "add_transposed_1M", "first_choice", [=](benchmark::State& s) {
    add_input& in = data->get();
    for (auto _ : s) {  // statistics gathered and every candidate costed
      loom::statistics_cache fresh;
      const auto c = loom::optimize::choose_plan(in.C(i, j), in.A(i, j) + in.B(j, i), fresh);
      benchmark::DoNotOptimize(c.chosen);
    }
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  lb::add("optimizer", "add_transposed_1M", "costing_only", [=](benchmark::State& s) {
    add_input& in = data->get();
    loom::statistics_cache known;  // statistics already gathered (e.g. kept since construction)
    (void)known.get(in.A), (void)known.get(in.B);
    for (auto _ : s) {
      const auto c = loom::optimize::choose_plan(in.C(i, j), in.A(i, j) + in.B(j, i), known);
      benchmark::DoNotOptimize(c.chosen);
    }
    lb::label(s, in.A.nnz() + in.B.nnz(), what);
  });
  benchmark::RegisterBenchmark("BM_optimizer/add_transposed_1M/cached_choice", [=](benchmark::State&
                                                                                       s) {
    add_input& in = data->get();
    const auto lhs = in.C(i, j);
    const auto rhs = in.A(i, j) + in.B(j, i);
    (void)loom::optimize::cached_choice(lhs, rhs);
    for (auto _ : s) benchmark::DoNotOptimize(loom::optimize::cached_choice(lhs, rhs));
    s.SetLabel("signature + lookup per call");
  })->Unit(benchmark::kNanosecond);

  // SpMV with a choice: A in csc, y(i) = sum(j, A(i,j) * x(j)) at 1M stored entries (the column
  // loop scattering into y, or A transposed). SpMV over csr has one candidate and no optimizer.
  struct spmv_input {
    loom::tensor<double, loom::csc> A;
    loom::tensor<double, loom::dense_vector> x, y;
  };
  auto sp = std::make_shared<lb::lazy<spmv_input>>([] {
    auto in = std::make_unique<spmv_input>();
    in->A = lb::to_loom<loom::csc>(lb::random_matrix(100'000, 100'000, 10, 95));
    in->x = loom::tensor<double, loom::dense_vector>({100'000});
    in->y = loom::tensor<double, loom::dense_vector>({100'000});
    for (std::size_t q = 0; q < in->x.values().size(); ++q)
      in->x.values()[q] = 1.0 + static_cast<double>(q % 7);
    std::printf("optimizer/spmv_csc_1M:\n%s",
                loom::explain(in->y(i), loom::sum(j, in->A(i, j) * in->x(j))).c_str());
    return in;
  });
  const std::string spmv_what = "y(i) = sum(j, A(i,j) * x(j)), A csc, 1M entries";
  lb::add("optimizer", "spmv_csc_1M", "kernel", [=](benchmark::State& s) {
    spmv_input& in = sp->get();
    for (auto _ : s) {
      in.y(i) = loom::sum(j, in.A(i, j) * in.x(j));
      benchmark::DoNotOptimize(in.y.values().data());
    }
    lb::label(s, in.A.nnz(), spmv_what);
  });
  lb::add("optimizer", "spmv_csc_1M", "first_choice", [=](benchmark::State& s) {
    spmv_input& in = sp->get();
    for (auto _ : s) {
      loom::statistics_cache fresh;
      const auto c =
          loom::optimize::choose_plan(in.y(i), loom::sum(j, in.A(i, j) * in.x(j)), fresh);
      benchmark::DoNotOptimize(c.chosen);
    }
    lb::label(s, in.A.nnz(), spmv_what);
  });
  lb::add("optimizer", "spmv_csc_1M", "costing_only", [=](benchmark::State& s) {
    spmv_input& in = sp->get();
    loom::statistics_cache known;  // statistics already gathered (e.g. kept since construction)
    (void)known.get(in.A);
    for (auto _ : s) {
      const auto c =
          loom::optimize::choose_plan(in.y(i), loom::sum(j, in.A(i, j) * in.x(j)), known);
      benchmark::DoNotOptimize(c.chosen);
    }
    lb::label(s, in.A.nnz(), spmv_what);
  });
  benchmark::RegisterBenchmark("BM_optimizer/spmv_csc_1M/cached_choice", [=](benchmark::State& s) {
    spmv_input& in = sp->get();
    const auto lhs = in.y(i);
    const auto rhs = loom::sum(j, in.A(i, j) * in.x(j));
    (void)loom::optimize::cached_choice(lhs, rhs);
    for (auto _ : s) benchmark::DoNotOptimize(loom::optimize::cached_choice(lhs, rhs));
    s.SetLabel("signature + lookup per call");
  })->Unit(benchmark::kNanosecond);

  // gather_statistics alone (the bulk of first_choice); per_entry is the time per stored entry.
  struct stats_input {
    loom::tensor<double, loom::csr> csr;
    loom::tensor<double, loom::csc> csc;
  };
  auto st = std::make_shared<lb::lazy<stats_input>>([] {
    auto in = std::make_unique<stats_input>();
    in->csr = lb::to_loom<loom::csr>(lb::random_matrix(100'000, 100'000, 10, 95));
    in->csc = lb::to_loom<loom::csc>(lb::random_matrix(100'000, 100'000, 10, 95));
    return in;
  });
  const auto stats_row = [&](const std::string& input, const std::string& impl, auto gather) {
    lb::add("gather_statistics", input, impl, [=](benchmark::State& s) {
      stats_input& in = st->get();
      std::int64_t nnz = 0;
      for (auto _ : s) {
        const loom::statistics r = input == "csr_1M" ? gather(in.csr) : gather(in.csc);
        nnz = r.nnz;
        benchmark::DoNotOptimize(r.max_degree.data());
      }
      lb::label(s, nnz, impl + ", 100K x 100K, 1M entries");
      s.counters["per_entry"] = benchmark::Counter(  // seconds per entry
          static_cast<double>(nnz),
          benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    });
  };
  for (const std::string input : {"csr_1M", "csc_1M"}) {
    stats_row(input, "gather_statistics", [](const auto& t) { return loom::gather_statistics(t); });
    stats_row(input, "generic_pass",
              [](const auto& t) { return loom::detail::gather_statistics_generic(t); });
  }
  return lb::run(argc, argv);
}
