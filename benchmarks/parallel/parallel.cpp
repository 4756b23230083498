// Scaling of loom's parallel kernels from 1 to 2 threads on generated inputs larger than the
// last-level cache (SpMV, SpGEMM, SDDMM, MTTKRP, TTM, sparse add, triangle query), a STREAM triad
// on loom's thread pool, and the bandwidth SpMV and SDDMM achieve (bytes that must move / time).
//
// Every benchmark measures wall time (UseRealTime) and the process's CPU time
// (MeasureProcessCPUTime): cpu / (wall x threads) is the CPU share the threads actually got on a
// machine shared with other processes. The 1- and 2-thread runs of one input are registered next
// to each other; run with --benchmark_repetitions and --benchmark_enable_random_interleaving for
// the spread (run.sh does). Counters: `bytes` = bytes that must move per iteration (STREAM's rule:
// every array read once, every output array written once, no write-allocate traffic), `GBps` =
// bytes / wall time.
// SPDX-License-Identifier: BSL-1.0
#include <memory>
#include <string>

#include "../runtime/support.hpp"

namespace {

namespace lb = loom_bench;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;

constexpr int thread_counts[] = {1, 2};

// Registers BM_<kernel>/<input>/threads:<t> for t = 1, 2; `body(state)` runs under the scope.
template <class Body> void add(const std::string& kernel, const std::string& input, Body body) {
  for (int t : thread_counts) {
    benchmark::RegisterBenchmark(
        ("BM_" + kernel + "/" + input + "/threads:" + std::to_string(t)).c_str(),
        [=](benchmark::State& s) {
          loom::parallel_scope scope({.threads = t});
          body(s);
          s.counters["loom_threads"] = t;
        })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MeasureProcessCPUTime()
        ->MinTime(0.5);
  }
}

void set_bytes(benchmark::State& s, double bytes) {
  s.counters["bytes"] = bytes;
  s.counters["GBps"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// STREAM triad a = b + s c on loom's pool: 3 arrays of 20M doubles (160 MB each, 5x the L3).
struct triad_arrays {
  std::size_t n = 20'000'000;
  std::unique_ptr<double[]> a{new double[n]}, b{new double[n]}, c{new double[n]};
  static constexpr std::size_t block = 1 << 16;
  std::size_t blocks() const { return (n + block - 1) / block; }
};
void triad(triad_arrays& t, unsigned threads, double s) {
  loom::parallel::parallel_for(t.blocks(), threads, [&](std::size_t b, unsigned) {
    const std::size_t lo = b * triad_arrays::block, hi = std::min(t.n, lo + triad_arrays::block);
    double* __restrict a = t.a.get();
    const double* __restrict x = t.b.get();
    const double* __restrict y = t.c.get();
    for (std::size_t e = lo; e < hi; ++e) a[e] = x[e] + s * y[e];
  });
}

// SpMV -------------------------------------------------------------------------------------------
struct spmv_input {
  loom::tensor<double, loom::csr> A;
  loom::tensor<double, loom::dense_vector> x, y;
  std::vector<double> hy;
};
void hand_spmv(const spmv_input& in, std::vector<double>& y) {
  const auto& lv = in.A.level<1>();
  const std::int64_t* pos = lv.pos.data();
  const std::int32_t* crd = lv.crd.data();
  const double* val = in.A.values().data();
  const double* x = in.x.values().data();
  for (std::int64_t r = 0; r < in.A.extent(0); ++r) {
    double acc = 0;
    for (std::int64_t q = pos[r]; q < pos[r + 1]; ++q) acc += val[q] * x[crd[q]];
    y[static_cast<std::size_t>(r)] = acc;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // STREAM triad ---------------------------------------------------------------------------------
  auto tri = std::make_shared<lb::lazy<triad_arrays>>([] {
    auto t = std::make_unique<triad_arrays>();
    loom::parallel::parallel_for(t->blocks(), 2, [&](std::size_t b, unsigned) {  // first touch
      const std::size_t lo = b * triad_arrays::block, hi = std::min(t->n, lo + triad_arrays::block);
      for (std::size_t e = lo; e < hi; ++e) t->a[e] = 0, t->b[e] = 1, t->c[e] = 2;
    });
    return t;
  });
  add("triad", "3x20M_doubles", [tri](benchmark::State& s) {
    triad_arrays& t = tri->get();
    const unsigned threads = static_cast<unsigned>(loom::num_threads());
    for (auto _ : s) {
      triad(t, threads, 3.0);
      benchmark::DoNotOptimize(t.a.get());
      benchmark::ClobberMemory();
    }
    set_bytes(s, 24.0 * static_cast<double>(t.n));
  });

  // SpMV: 1M x 1M, 8..24 entries per row (~16M entries, ~200 MB of CSR) -------------------------
  auto spmv = std::make_shared<lb::lazy<spmv_input>>([] {
    auto in = std::make_unique<spmv_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(1'000'000, 1'000'000, 16, 1));
    const std::int64_t m = in->A.extent(0), n = in->A.extent(1);
    in->x = loom::tensor<double, loom::dense_vector>({n});
    in->y = loom::tensor<double, loom::dense_vector>({m});
    const auto xv = lb::dense_values(n, 7);
    std::copy(xv.begin(), xv.end(), in->x.values().begin());
    in->hy.assign(static_cast<std::size_t>(m), 0.0);
    hand_spmv(*in, in->hy);
    loom::parallel_scope scope({.threads = 2});
    in->y(i) = loom::sum(j, in->A(i, j) * in->x(j));
    lb::check_values("spmv: loom (2 threads) vs hand", in->y.values(), in->hy);
    return in;
  });
  auto spmv_bytes = [](const spmv_input& in) {
    const double m = static_cast<double>(in.A.extent(0)), n = static_cast<double>(in.A.extent(1)),
                 nnz = static_cast<double>(in.A.nnz());
    return 8 * (m + 1) + 12 * nnz + 8 * n + 8 * m;  // pos, crd + values, x, y
  };
  add("spmv", "uniform_1Mx1M_16M", [spmv, spmv_bytes](benchmark::State& s) {
    spmv_input& in = spmv->get();
    for (auto _ : s) {
      in.y(i) = loom::sum(j, in.A(i, j) * in.x(j));
      benchmark::DoNotOptimize(in.y.values().data());
      benchmark::ClobberMemory();
    }
    set_bytes(s, spmv_bytes(in));
  });
  // SpMV on a banded matrix: 2M x 2M, 16 entries per row within +-2000 of the diagonal (~32M
  // entries, ~400 MB): x is reused from cache, so the kernel streams A (bandwidth bound)
  auto banded = std::make_shared<lb::lazy<spmv_input>>([] {
    auto in = std::make_unique<spmv_input>();
    const std::int64_t n = 2'000'000, half = 2000;
    lb::rng g(21);
    lb::entries<2> e;
    e.shape = {n, n};
    for (std::int64_t r = 0; r < n; ++r) {
      const std::int64_t lo = std::max<std::int64_t>(0, r - half), hi = std::min(n, r + half + 1);
      for (std::int64_t c : lb::distinct_sorted(g, hi - lo, 16)) {
        e.crd.push_back({r, lo + c});
        e.val.push_back(g.value());
      }
    }
    in->A = lb::to_loom<loom::csr>(e);
    in->x = loom::tensor<double, loom::dense_vector>({n});
    in->y = loom::tensor<double, loom::dense_vector>({n});
    const auto xv = lb::dense_values(n, 8);
    std::copy(xv.begin(), xv.end(), in->x.values().begin());
    in->hy.assign(static_cast<std::size_t>(n), 0.0);
    hand_spmv(*in, in->hy);
    loom::parallel_scope scope({.threads = 2});
    in->y(i) = loom::sum(j, in->A(i, j) * in->x(j));
    lb::check_values("spmv banded: loom (2 threads) vs hand", in->y.values(), in->hy);
    return in;
  });
  add("spmv", "banded_2Mx2M_32M", [banded, spmv_bytes](benchmark::State& s) {
    spmv_input& in = banded->get();
    for (auto _ : s) {
      in.y(i) = loom::sum(j, in.A(i, j) * in.x(j));
      benchmark::DoNotOptimize(in.y.values().data());
      benchmark::ClobberMemory();
    }
    set_bytes(s, spmv_bytes(in));
  });
  benchmark::RegisterBenchmark("BM_spmv/banded_2Mx2M_32M/hand_serial",
                               [banded, spmv_bytes](benchmark::State& s) {
                                 spmv_input& in = banded->get();
                                 for (auto _ : s) {
                                   hand_spmv(in, in.hy);
                                   benchmark::DoNotOptimize(in.hy.data());
                                   benchmark::ClobberMemory();
                                 }
                                 set_bytes(s, spmv_bytes(in));
                                 s.counters["loom_threads"] = 1;
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MeasureProcessCPUTime()
      ->MinTime(0.5);
  benchmark::RegisterBenchmark("BM_spmv/uniform_1Mx1M_16M/hand_serial",
                               [spmv, spmv_bytes](benchmark::State& s) {
                                 spmv_input& in = spmv->get();
                                 for (auto _ : s) {
                                   hand_spmv(in, in.hy);
                                   benchmark::DoNotOptimize(in.hy.data());
                                   benchmark::ClobberMemory();
                                 }
                                 set_bytes(s, spmv_bytes(in));
                                 s.counters["loom_threads"] = 1;
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MeasureProcessCPUTime()
      ->MinTime(0.5);

  // SDDMM: C(i,j) = sum(k, S(i,j) U(i,k) V(j,k)), S 300K x 300K (~4.8M entries), K = 16 ----------
  struct sddmm_input {
    loom::tensor<double, loom::csr> S, C;
    loom::tensor<double, loom::dense_matrix> U, V;
  };
  constexpr std::int64_t rank = 16;
  auto sddmm = std::make_shared<lb::lazy<sddmm_input>>([] {
    auto in = std::make_unique<sddmm_input>();
    in->S = lb::to_loom<loom::csr>(lb::random_matrix(300'000, 300'000, 16, 2));
    const std::int64_t m = in->S.extent(0), n = in->S.extent(1);
    in->U = loom::tensor<double, loom::dense_matrix>({m, rank});
    in->V = loom::tensor<double, loom::dense_matrix>({n, rank});
    const auto u = lb::dense_values(m * rank, 3), v = lb::dense_values(n * rank, 4);
    std::copy(u.begin(), u.end(), in->U.values().begin());
    std::copy(v.begin(), v.end(), in->V.values().begin());
    in->C = loom::tensor<double, loom::csr>({m, n});
    loom::tensor<double, loom::csr> serial({m, n});
    {
      loom::parallel_scope scope({.threads = 1});
      serial(i, j) = loom::sum(k, in->S(i, j) * in->U(i, k) * in->V(j, k));
    }
    loom::parallel_scope scope({.threads = 2});
    in->C(i, j) = loom::sum(k, in->S(i, j) * in->U(i, k) * in->V(j, k));
    lb::check_csr("sddmm: 2 threads vs 1", in->C,
                  {m, n, serial.level<1>().pos, serial.level<1>().crd,
                   std::vector<double>(serial.values().begin(), serial.values().end())});
    return in;
  });
  add("sddmm", "uniform_300Kx300K_4.8M_K16", [sddmm](benchmark::State& s) {
    sddmm_input& in = sddmm->get();
    for (auto _ : s) {
      in.C(i, j) = loom::sum(k, in.S(i, j) * in.U(i, k) * in.V(j, k));
      benchmark::DoNotOptimize(in.C.values().data());
      benchmark::ClobberMemory();
    }
    const double m = static_cast<double>(in.S.extent(0)), n = static_cast<double>(in.S.extent(1)),
                 nnz = static_cast<double>(in.S.nnz());
    // S (pos, crd, values), U and V once each, C written (pos, crd, values)
    set_bytes(s, 2 * (8 * (m + 1) + 12 * nnz) + 8.0 * rank * (m + n));
  });

  // SpGEMM: C = A B, A = B 100K x 100K with ~8 entries per row (C: ~6.4M entries) ----------------
  struct spgemm_input {
    loom::tensor<double, loom::csr> A, B, C;
  };
  auto spgemm = std::make_shared<lb::lazy<spgemm_input>>([] {
    auto in = std::make_unique<spgemm_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(100'000, 100'000, 8, 5));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(100'000, 100'000, 8, 6));
    in->C = loom::tensor<double, loom::csr>({100'000, 100'000});
    return in;
  });
  add("spgemm", "uniform_100Kx100K_800K", [spgemm](benchmark::State& s) {
    spgemm_input& in = spgemm->get();
    for (auto _ : s) {
      in.C(i, j) = loom::sum(k, in.A(i, k) * in.B(k, j));
      benchmark::DoNotOptimize(in.C.values().data());
      benchmark::ClobberMemory();
    }
    s.counters["nnz_C"] = static_cast<double>(in.C.nnz());
  });

  // Sparse add: C = A + B, 500K x 500K, ~8 entries per row each (C: ~8M entries) -----------------
  auto add_in = std::make_shared<lb::lazy<spgemm_input>>([] {
    auto in = std::make_unique<spgemm_input>();
    in->A = lb::to_loom<loom::csr>(lb::random_matrix(500'000, 500'000, 8, 7));
    in->B = lb::to_loom<loom::csr>(lb::random_matrix(500'000, 500'000, 8, 8));
    in->C = loom::tensor<double, loom::csr>({500'000, 500'000});
    return in;
  });
  add("add", "uniform_500Kx500K_4M+4M", [add_in](benchmark::State& s) {
    spgemm_input& in = add_in->get();
    for (auto _ : s) {
      in.C(i, j) = in.A(i, j) + in.B(i, j);
      benchmark::DoNotOptimize(in.C.values().data());
      benchmark::ClobberMemory();
    }
    s.counters["nnz_C"] = static_cast<double>(in.C.nnz());
  });

  // MTTKRP: A(i,j) = sum(k, l, B(i,k,l) C(k,j) D(l,j)), B 2000^3 with 8M entries (CSF), rank 16 ----
  struct mttkrp_input {
    loom::tensor<double, loom::csf<3>> B;
    loom::tensor<double, loom::dense_matrix> C, D, A;
  };
  auto mttkrp = std::make_shared<lb::lazy<mttkrp_input>>([] {
    auto in = std::make_unique<mttkrp_input>();
    in->B = lb::to_loom<loom::csf<3>>(lb::random_tensor3({2000, 2000, 2000}, 8'000'000, 9));
    in->C = loom::tensor<double, loom::dense_matrix>({2000, rank});
    in->D = loom::tensor<double, loom::dense_matrix>({2000, rank});
    in->A = loom::tensor<double, loom::dense_matrix>({2000, rank});
    const auto c = lb::dense_values(2000 * rank, 10), d = lb::dense_values(2000 * rank, 11);
    std::copy(c.begin(), c.end(), in->C.values().begin());
    std::copy(d.begin(), d.end(), in->D.values().begin());
    return in;
  });
  add("mttkrp", "uniform_2000^3_8M_R16", [mttkrp](benchmark::State& s) {
    mttkrp_input& in = mttkrp->get();
    for (auto _ : s) {
      in.A(i, j) = loom::sum(k, l, in.B(i, k, l) * in.C(k, j) * in.D(l, j));
      benchmark::DoNotOptimize(in.A.values().data());
      benchmark::ClobberMemory();
    }
  });

  // TTM: Y(i,j,k) = sum(l, T(i,j,l) M(k,l)), T 1000^3 with 2M entries (CSF), M 16 x 1000, Y dense --
  struct ttm_input {
    loom::tensor<double, loom::csf<3>> T;
    loom::tensor<double, loom::dense_matrix> M;
    loom::tensor<double, loom::dense_n<3>> Y;
  };
  auto ttm = std::make_shared<lb::lazy<ttm_input>>([] {
    auto in = std::make_unique<ttm_input>();
    in->T = lb::to_loom<loom::csf<3>>(lb::random_tensor3({1000, 1000, 1000}, 2'000'000, 12));
    in->M = loom::tensor<double, loom::dense_matrix>({rank, 1000});
    in->Y = loom::tensor<double, loom::dense_n<3>>({1000, 1000, rank});
    const auto mv = lb::dense_values(rank * 1000, 13);
    std::copy(mv.begin(), mv.end(), in->M.values().begin());
    return in;
  });
  add("ttm", "uniform_1000^3_2M_R16", [ttm](benchmark::State& s) {
    ttm_input& in = ttm->get();
    for (auto _ : s) {
      in.Y(i, j, k) = loom::sum(l, in.T(i, j, l) * in.M(k, l));
      benchmark::DoNotOptimize(in.Y.values().data());
      benchmark::ClobberMemory();
    }
  });

  // Triangle query: sum(a,b,c, R(a,b) R(b,c) R(a,c)), R a symmetric random graph (CSF) ------------
  struct triangle_input {
    loom::tensor<std::int64_t, loom::csf<2>> R;
  };
  auto tri_in = std::make_shared<lb::lazy<triangle_input>>([] {
    auto e = lb::random_matrix(100'000, 100'000, 8, 14);
    lb::entries<2> sym;
    sym.shape = e.shape;
    for (auto c : e.crd) {
      sym.crd.push_back(c);
      sym.crd.push_back({c[1], c[0]});
    }
    std::vector<std::int64_t> ones(sym.crd.size(), 1);
    auto in = std::make_unique<triangle_input>();
    in->R = loom::from_coo<loom::csf<2>>(sym.shape, sym.crd, ones, loom::duplicates::last);
    return in;
  });
  add("triangle", "random_100K_nodes_1.6M_edges", [tri_in](benchmark::State& s) {
    triangle_input& in = tri_in->get();
    std::int64_t count = 0;
    for (auto _ : s) {
      count = loom::eval(loom::sum(i, j, k, in.R(i, j) * in.R(j, k) * in.R(i, k)));
      benchmark::DoNotOptimize(count);
    }
    s.counters["triangles_x6"] = static_cast<double>(count);
  });

  return lb::run(argc, argv);
}
