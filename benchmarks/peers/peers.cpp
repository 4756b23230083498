// Peers in one run: loom against a hand-written kernel, Eigen and
// SuiteSparse:GraphBLAS, on the same inputs, in one binary whose repetitions are interleaved at
// random; scipy.sparse is timed by scipy_runner.py on the same inputs, exported by this binary
// (--export=DIR) with the hand-written kernel's results, which scipy must reproduce.
//
// Workloads (BM_<workload>/<input>/<system>/t<threads>):
//   spmv       y(i) = sum(j, A(i,j) * x(j))                    GrB_mxv, Eigen A * x
//   spgemm     C(i,j) = sum(k, A(i,k) * B(k,j))                GrB_mxm, Eigen A * B
//   add        C(i,j) = A(i,j) + B(i,j)                        GrB_eWiseAdd, Eigen A + B
//   sddmm      C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k))       GrB_mxm masked by S (dot products),
//                                                              then GrB_eWiseMult with S; no Eigen
//   mttkrp     M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r))  hand only (no peer has it)
//   triangles  sum(i, j, k, A(i,j) * A(j,k) * A(i,k))          GrB_mxm masked by A, GrB_reduce;
//                                                              Eigen (A * A).cwiseProduct(A).sum()
//   sweep_spmv, sweep_add: the same kernels on uniform inputs of growing size (nnz scaling)
//
// Export: --export=DIR writes each input (and the hand-written kernel's result) for
// scipy_runner.py when the benchmarks first build it; with --export_only=1 the binary builds and
// writes every input (optionally only those whose workload/input contains --export_filter=TEXT)
// and runs no benchmark.
//
// Threads: --threads=LIST (e.g. "1 2"; or LOOM_BENCH_THREADS) registers every system at each
// thread count (BM_<workload>/<input>/<system>/t<N>, all interleaved); each benchmark sets every
// system's thread count before it runs: GraphBLAS's
// GxB_NTHREADS, Eigen::setNbThreads, the OpenMP loops of the hand-written kernels that have an
// obvious parallel form (spmv, sddmm, mttkrp, triangles; spgemm and add stay sequential), and
// loom::set_num_threads (docs/parallel.md). With more than one thread the benchmark measures wall
// time (Google Benchmark's CPU time is the calling thread's).
// SPDX-License-Identifier: BSL-1.0
#include "../runtime/expert_mttkrp.hpp"
#include "graphblas.hpp"
#include "inputs.hpp"
#include "kernels.hpp"
#include <Eigen/Dense>

#if __has_include(<loom/parallel.hpp>)
#  include <loom/parallel.hpp>
#endif

#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#ifdef _OPENMP
#  include <omp.h>
#endif

namespace {

using namespace loom_peers;
namespace lb = loom_bench;
using eigen_csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

int g_threads = 1;               // the thread count of the benchmark running now
int g_loom_threads = 1;          // the thread count loom actually runs with
std::vector<int> g_thread_list;  // --threads: every system is registered at each of them

/// Sets loom's thread count (loom::set_num_threads, docs/parallel.md); returns the count loom
/// will use. Without the parallel API loom is sequential.
int set_loom_threads(int n) {
#if __has_include(<loom/parallel.hpp>)
  loom::set_num_threads(n);
  return loom::num_threads();
#else
  (void)n;
  return 1;
#endif
}

/// Sets the thread count of every system: loom, GraphBLAS, Eigen and the hand-written kernels.
void set_threads(int n) {
  g_threads = n;
  g_loom_threads = set_loom_threads(n);
  Eigen::setNbThreads(n);
#if LOOM_BENCH_HAVE_GRAPHBLAS
  grb::init(n);
#endif
}

// Export for scipy_runner.py ------------------------------------------------------------------------
// DIR/manifest.jsonl: one JSON object per input; arrays as raw little-endian files next to it
// (pos int64, crd int32, values float64, dense arrays row-major float64).
class exporter {
 public:
  explicit exporter(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    // appended to: run_benchmarks.sh runs one process per input (and empties DIR first)
    manifest_.open(dir_ / "manifest.jsonl", std::ios::app);
  }
  template <class T> std::string raw(const std::string& stem, const T* data, std::size_t n) {
    std::ofstream f(dir_ / stem, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(T)));
    if (!f) lb::fail("export: cannot write " + (dir_ / stem).string());
    return "\"" + stem + "\"";
  }
  std::string csr(const std::string& stem, const csr_t& A) {
    const auto& lv = A.level<1>();
    return csr(stem, A.extent(0), A.extent(1), lv.pos.data(), lv.crd.data(), A.values().data(),
               A.nnz());
  }
  std::string csr(const std::string& stem, const lb::csr_arrays& c) {
    return csr(stem, c.rows, c.cols, c.pos.data(), c.crd.data(), c.val.data(),
               static_cast<std::int64_t>(c.val.size()));
  }
  template <class P, class C>
  std::string csr(const std::string& stem, std::int64_t rows, std::int64_t cols, const P* pos,
                  const C* crd, const double* val, std::int64_t nnz) {
    static_assert(sizeof(P) == 8 && sizeof(C) == 4, "export: pos must be 64-bit and crd 32-bit");
    return "{\"kind\":\"csr\",\"shape\":[" + std::to_string(rows) + "," + std::to_string(cols) +
           "],\"nnz\":" + std::to_string(nnz) +
           ",\"pos\":" + raw(stem + ".pos", pos, static_cast<std::size_t>(rows) + 1) +
           ",\"crd\":" + raw(stem + ".crd", crd, static_cast<std::size_t>(nnz)) +
           ",\"val\":" + raw(stem + ".val", val, static_cast<std::size_t>(nnz)) + "}";
  }
  std::string dense(const std::string& stem, const double* data, std::vector<std::int64_t> shape) {
    std::size_t n = 1;
    std::string s = "{\"kind\":\"dense\",\"shape\":[";
    for (std::size_t k = 0; k < shape.size(); ++k) {
      n *= static_cast<std::size_t>(shape[k]);
      s += (k ? "," : "") + std::to_string(shape[k]);
    }
    return s + "],\"val\":" + raw(stem + ".val", data, n) + "}";
  }
  static std::string scalar(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "{\"kind\":\"scalar\",\"value\":%.17g}", v);
    return buf;
  }
  void item(const std::string& workload, const std::string& input, std::int64_t nnz,
            const std::vector<std::pair<std::string, std::string>>& operands,
            const std::string& reference) {
    manifest_ << "{\"workload\":\"" << workload << "\",\"input\":\"" << input
              << "\",\"nnz\":" << nnz << ",\"operands\":{";
    for (std::size_t k = 0; k < operands.size(); ++k)
      manifest_ << (k ? "," : "") << "\"" << operands[k].first << "\":" << operands[k].second;
    manifest_ << "},\"reference\":" << reference << "}\n";
    manifest_.flush();
  }
  std::string stem(const std::string& workload, const std::string& input,
                   const std::string& name) const {
    return workload + "." + input + "." + name;
  }

 private:
  std::filesystem::path dir_;
  std::ofstream manifest_;
};

exporter* g_exporter = nullptr;

// Registration -----------------------------------------------------------------------------------------
struct group {
  std::string workload, input;
  std::function<void(exporter&)> export_fn;
};
std::vector<group>& groups() {
  static std::vector<group> g;
  return g;
}

template <class In> using system_body = std::function<void(In&)>;

/// Registers BM_<workload>/<input>/<system> for every system, side by side, on one lazily built
/// input (`make` builds and checks it); `export_fn` writes it for scipy.
template <class In>
void add_group(
    const std::string& workload, const std::string& input,
    std::function<std::unique_ptr<In>()> make,
    std::vector<std::pair<std::string, system_body<In>>> systems,
    std::function<std::int64_t(const In&)> nnz, const std::string& what,
    std::function<void(In&, exporter&, const std::string&, const std::string&)> export_fn,
    std::function<double(const In&)> bytes = {}) {
  // with --export, an input is written for scipy_runner.py when the benchmarks first build it
  auto data = std::make_shared<lb::lazy<In>>([=] {
    auto in = make();
    if (g_exporter && workload != "mttkrp") export_fn(*in, *g_exporter, workload, input);
    return in;
  });
  for (const int threads : g_thread_list)
    for (auto& [system, body] : systems) {
      const std::string name =
          "BM_" + workload + "/" + input + "/" + system + "/t" + std::to_string(threads);
      const bool is_loom = system == "loom";  // clang 14 captures no structured binding
      auto* b = benchmark::RegisterBenchmark(name.c_str(), [=, body = body](benchmark::State& s) {
        In& in = data->get();
        set_threads(threads);
        for (auto _ : s) {
          body(in);
          benchmark::ClobberMemory();
        }
        lb::label(s, nnz(in), what);
        s.counters["threads"] = is_loom ? g_loom_threads : g_threads;
        // the bytes a kernel must move at least (each array once), for bandwidth = bytes / time
        if (bytes) s.counters["bytes"] = bytes(in);
      });
      b->Unit(benchmark::kMillisecond);
      // Google Benchmark's CPU time is the calling thread's: with worker threads only wall time
      // is the time of the call
      if (threads > 1) b->UseRealTime();
    }
  groups().push_back({workload, input, [=](exporter& ex) {
                        auto in = make();
                        export_fn(*in, ex, workload, input);
                      }});
}

// Checks shared by the workloads ------------------------------------------------------------------------
void check_eigen_csr(const std::string& what, const eigen_csr& M, const lb::csr_arrays& want,
                     double rel = 1e-10) {
  lb::check_exact(what + " (pos)",
                  std::vector<std::int64_t>(M.outerIndexPtr(), M.outerIndexPtr() + want.rows + 1),
                  want.pos);
  lb::check_exact(what + " (crd)",
                  std::vector<std::int32_t>(M.innerIndexPtr(), M.innerIndexPtr() + M.nonZeros()),
                  want.crd);
  lb::check_values(what + " (values)",
                   std::vector<double>(M.valuePtr(), M.valuePtr() + M.nonZeros()), want.val, rel);
}

#if LOOM_BENCH_HAVE_GRAPHBLAS  // GraphBLAS's results are checked against the hand loop's
void check_same_csr(const std::string& what, const lb::csr_arrays& got, const lb::csr_arrays& want,
                    double rel = 1e-10) {
  lb::check_exact(what + " (pos)", got.pos, want.pos);
  lb::check_exact(what + " (crd)", got.crd, want.crd);
  lb::check_values(what + " (values)", got.val, want.val, rel);
}
#endif

// SpMV ----------------------------------------------------------------------------------------------------
struct spmv_in {
  csr_t A;
  vec_t x, y;
  eigen_csr eA;
  Eigen::VectorXd ex, ey;
  std::vector<double> hy;
#if LOOM_BENCH_HAVE_GRAPHBLAS
  grb::matrix gA;
  grb::vector gx, gy;
#endif
};

void hand_spmv(spmv_in& in) {
  const auto& lv = in.A.level<1>();
  const std::int64_t* pos = lv.pos.data();
  const std::int32_t* crd = lv.crd.data();
  const double *val = in.A.values().data(), *x = in.x.values().data();
  double* y = in.hy.data();
  const std::int64_t rows = in.A.extent(0);
#pragma omp parallel for schedule(static) num_threads(g_threads) if (g_threads > 1)
  for (std::int64_t r = 0; r < rows; ++r) {
    double acc = 0;
    for (std::int64_t q = pos[r]; q < pos[r + 1]; ++q) acc += val[q] * x[crd[q]];
    y[r] = acc;
  }
}

void register_spmv(const std::string& workload, const std::string& name,
                   std::function<lb::entries<2>()> entries) {
  auto make = [=] {
    auto in = std::make_unique<spmv_in>();
    in->A = lb::to_loom<loom::csr>(entries());
    const std::int64_t m = in->A.extent(0), n = in->A.extent(1);
    in->x = vec_t({n});
    in->y = vec_t({m});
    const auto xv = lb::dense_values(n, 7);
    std::copy(xv.begin(), xv.end(), in->x.values().begin());
    in->hy.assign(static_cast<std::size_t>(m), 0.0);
    hand_spmv(*in);
    spmv(in->A, in->x, in->y);
    lb::check_values(workload + "/" + name + ": loom vs hand", in->y.values(), in->hy);
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    in->ex = Eigen::Map<const Eigen::VectorXd>(xv.data(), n);
    in->ey = Eigen::VectorXd::Zero(m);
    in->ey.noalias() = in->eA * in->ex;
    lb::check_values(workload + "/" + name + ": eigen vs hand", in->ey, in->hy, 1e-10);
#if LOOM_BENCH_HAVE_GRAPHBLAS
    in->gA = grb::from_csr(in->A);
    grb::from_dense(in->gx, xv.data(), static_cast<std::size_t>(n));
    grb::check(GrB_Vector_new(&in->gy.v, GrB_FP64, static_cast<GrB_Index>(m)), "GrB_Vector_new");
    grb::check(
        GrB_mxv(in->gy, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in->gA, in->gx, nullptr),
        "GrB_mxv");
    grb::check(GrB_Vector_wait(in->gy, GrB_MATERIALIZE), "GrB_wait");
    lb::check_values(workload + "/" + name + ": graphblas vs hand",
                     grb::to_dense(in->gy, static_cast<std::size_t>(m)), in->hy, 1e-10);
#endif
    return in;
  };
  std::vector<std::pair<std::string, system_body<spmv_in>>> systems = {
    {"hand",
     [](spmv_in& in) {
       hand_spmv(in);
       benchmark::DoNotOptimize(in.hy.data());
     }},
    {"loom",
     [](spmv_in& in) {
       spmv(in.A, in.x, in.y);
       benchmark::DoNotOptimize(in.y.values().data());
     }},
    {"eigen",
     [](spmv_in& in) {
       in.ey.noalias() = in.eA * in.ex;
       benchmark::DoNotOptimize(in.ey.data());
     }},
#if LOOM_BENCH_HAVE_GRAPHBLAS
    {"graphblas",
     [](spmv_in& in) {
       grb::check(
           GrB_mxv(in.gy, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in.gA, in.gx, nullptr),
           "GrB_mxv");
       grb::check(GrB_Vector_wait(in.gy, GrB_MATERIALIZE), "GrB_wait");
     }},
#endif
  };
  add_group<spmv_in>(
      workload, name, make, systems, [](const spmv_in& in) { return in.A.nnz(); }, "CSR x dense",
      [](spmv_in& in, exporter& ex, const std::string& w, const std::string& i) {
        ex.item(w, i, in.A.nnz(),
                {{"A", ex.csr(ex.stem(w, i, "A"), in.A)},
                 {"x", ex.dense(ex.stem(w, i, "x"), in.x.values().data(), {in.A.extent(1)})}},
                ex.dense(ex.stem(w, i, "ref"), in.hy.data(), {in.A.extent(0)}));
      },
      [](const spmv_in& in) {  // A's values, crd and pos read, x read, y written
        return 12.0 * static_cast<double>(in.A.nnz()) +
               8.0 * static_cast<double>(in.A.extent(0) + 1) +
               8.0 * static_cast<double>(in.A.extent(1) + in.A.extent(0));
      });
}

// SpGEMM and add: CSR x CSR -> CSR, CSR + CSR -> CSR ------------------------------------------------------
struct binary_in {
  csr_t A, B, C;
  eigen_csr eA, eB, eC;
  lb::csr_arrays want;
  lb::csr_arrays hand_out;  // the hand-written kernel's output, kept between calls (its capacity)
#if LOOM_BENCH_HAVE_GRAPHBLAS
  grb::matrix gA, gB, gC;
#endif
};

lb::csr_arrays hand_spgemm(const binary_in& in) { return lb::hand_spgemm(in.A, in.B); }

lb::csr_arrays hand_add(const binary_in& in) { return lb::hand_add(in.A, in.B); }

void register_binary(const std::string& workload, const std::string& name,
                     std::function<std::pair<lb::entries<2>, lb::entries<2>>()> entries) {
  const bool mul = workload.find("spgemm") != std::string::npos;
  auto make = [=] {
    auto in = std::make_unique<binary_in>();
    {
      auto [a, b] = entries();
      in->A = lb::to_loom<loom::csr>(a);
      in->B = lb::to_loom<loom::csr>(b);
    }
    in->C = csr_t({in->A.extent(0), in->B.extent(1)});
    in->want = mul ? hand_spgemm(*in) : hand_add(*in);
    if (mul)
      spgemm(in->A, in->B, in->C);
    else
      add(in->A, in->B, in->C);
    lb::check_csr(workload + "/" + name + ": loom vs hand", in->C, in->want);
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    in->eB = lb::to_eigen<Eigen::RowMajor>(in->B);
    if (mul)
      in->eC = in->eA * in->eB;
    else
      in->eC = in->eA + in->eB;
    check_eigen_csr(workload + "/" + name + ": eigen vs hand", in->eC, in->want);
#if LOOM_BENCH_HAVE_GRAPHBLAS
    in->gA = grb::from_csr(in->A);
    in->gB = grb::from_csr(in->B);
    in->gC = grb::matrix(static_cast<GrB_Index>(in->A.extent(0)),
                         static_cast<GrB_Index>(in->B.extent(1)));
    if (mul)
      grb::check(
          GrB_mxm(in->gC, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in->gA, in->gB, nullptr),
          "GrB_mxm");
    else
      grb::check(GrB_Matrix_eWiseAdd_BinaryOp(in->gC, nullptr, nullptr, GrB_PLUS_FP64, in->gA,
                                              in->gB, nullptr),
                 "GrB_eWiseAdd");
    grb::check(GrB_Matrix_wait(in->gC, GrB_MATERIALIZE), "GrB_wait");
    check_same_csr(workload + "/" + name + ": graphblas vs hand", grb::to_csr(in->gC), in->want);
#endif
    return in;
  };
  std::vector<std::pair<std::string, system_body<binary_in>>> systems;
  if (mul) {
    systems = {
      {"hand",
       [](binary_in& in) {
         lb::hand_spgemm(in.A, in.B, in.hand_out);
         benchmark::DoNotOptimize(in.hand_out.val.data());
       }},
      {"loom",
       [](binary_in& in) {
         spgemm(in.A, in.B, in.C);
         benchmark::DoNotOptimize(in.C.values().data());
       }},
      {"eigen",
       [](binary_in& in) {
         in.eC = in.eA * in.eB;
         benchmark::DoNotOptimize(in.eC.valuePtr());
       }},
#if LOOM_BENCH_HAVE_GRAPHBLAS
      {"graphblas",
       [](binary_in& in) {
         grb::check(
             GrB_mxm(in.gC, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in.gA, in.gB, nullptr),
             "GrB_mxm");
         grb::check(GrB_Matrix_wait(in.gC, GrB_MATERIALIZE), "GrB_wait");
       }},
#endif
    };
  } else {
    systems = {
      {"hand",
       [](binary_in& in) {
         lb::hand_add(in.A, in.B, in.hand_out);
         benchmark::DoNotOptimize(in.hand_out.val.data());
       }},
      {"loom",
       [](binary_in& in) {
         add(in.A, in.B, in.C);
         benchmark::DoNotOptimize(in.C.values().data());
       }},
      {"eigen",
       [](binary_in& in) {
         in.eC = in.eA + in.eB;
         benchmark::DoNotOptimize(in.eC.valuePtr());
       }},
#if LOOM_BENCH_HAVE_GRAPHBLAS
      {"graphblas",
       [](binary_in& in) {
         grb::check(GrB_Matrix_eWiseAdd_BinaryOp(in.gC, nullptr, nullptr, GrB_PLUS_FP64, in.gA,
                                                 in.gB, nullptr),
                    "GrB_eWiseAdd");
         grb::check(GrB_Matrix_wait(in.gC, GrB_MATERIALIZE), "GrB_wait");
       }},
#endif
    };
  }
  add_group<binary_in>(
      workload, name, make, systems,
      [mul](const binary_in& in) { return mul ? in.C.nnz() : in.A.nnz() + in.B.nnz(); },
      mul ? "CSR x CSR -> CSR" : "CSR + CSR -> CSR",
      [mul](binary_in& in, exporter& ex, const std::string& w, const std::string& i) {
        ex.item(w, i, mul ? in.C.nnz() : in.A.nnz() + in.B.nnz(),
                {{"A", ex.csr(ex.stem(w, i, "A"), in.A)}, {"B", ex.csr(ex.stem(w, i, "B"), in.B)}},
                ex.csr(ex.stem(w, i, "ref"), in.want));
      });
}

// SDDMM ----------------------------------------------------------------------------------------------------
struct sddmm_in {
  csr_t S, C;
  mat_t U, V;
  lb::csr_arrays want;
  lb::csr_arrays hand_out;  // kept between calls
#if LOOM_BENCH_HAVE_GRAPHBLAS
  grb::matrix gS, gU, gV, gT, gC;
#endif
};

// The result with the pattern of S (pos and crd copied, values computed), as loom builds one,
// into `c`, whose vectors keep their capacity between calls.
void hand_sddmm(const sddmm_in& in, lb::csr_arrays& c) {
  const auto& s = in.S.level<1>();
  const double *sv = in.S.values().data(), *u = in.U.values().data(), *v = in.V.values().data();
  const std::int64_t R = in.U.extent(1), rows = in.S.extent(0);
  c.rows = rows;
  c.cols = in.S.extent(1);
  c.pos.assign(s.pos.begin(), s.pos.end());
  c.crd.assign(s.crd.begin(), s.crd.end());
  c.val.resize(c.crd.size());
  double* out = c.val.data();
#pragma omp parallel for schedule(dynamic, 256) num_threads(g_threads) if (g_threads > 1)
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* ur = u + r * R;
    for (std::int64_t p = s.pos[r]; p < s.pos[r + 1]; ++p) {
      const double* vc = v + static_cast<std::int64_t>(s.crd[p]) * R;
      double acc = 0;
#pragma omp simd reduction(+ : acc)
      for (std::int64_t q = 0; q < R; ++q) acc += ur[q] * vc[q];
      out[p] = sv[p] * acc;
    }
  }
}

lb::csr_arrays hand_sddmm(const sddmm_in& in) {
  lb::csr_arrays c;
  hand_sddmm(in, c);
  return c;
}

void register_sddmm(const std::string& name, std::int64_t rank,
                    std::function<lb::entries<2>()> entries) {
  const std::string workload = "sddmm";
  auto make = [=] {
    auto in = std::make_unique<sddmm_in>();
    in->S = lb::to_loom<loom::csr>(entries());
    const std::int64_t m = in->S.extent(0), n = in->S.extent(1);
    in->U = mat_t({m, rank});
    in->V = mat_t({n, rank});
    const auto uv = lb::dense_values(m * rank, 11), vv = lb::dense_values(n * rank, 12);
    std::copy(uv.begin(), uv.end(), in->U.values().begin());
    std::copy(vv.begin(), vv.end(), in->V.values().begin());
    in->C = csr_t({m, n});
    in->want = hand_sddmm(*in);
    sddmm(in->S, in->U, in->V, in->C);
    lb::check_csr(workload + "/" + name + ": loom vs hand", in->C, in->want, 1e-10);
#if LOOM_BENCH_HAVE_GRAPHBLAS
    in->gS = grb::from_csr(in->S);
    in->gU = grb::from_dense(in->U);
    in->gV = grb::from_dense(in->V);
    in->gT = grb::matrix(static_cast<GrB_Index>(m), static_cast<GrB_Index>(n));
    in->gC = grb::matrix(static_cast<GrB_Index>(m), static_cast<GrB_Index>(n));
    grb::check(GrB_mxm(in->gT, in->gS, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in->gU, in->gV,
                       GrB_DESC_RST1),
               "GrB_mxm");
    grb::check(GrB_Matrix_eWiseMult_BinaryOp(in->gC, nullptr, nullptr, GrB_TIMES_FP64, in->gS,
                                             in->gT, nullptr),
               "GrB_eWiseMult");
    grb::check(GrB_Matrix_wait(in->gC, GrB_MATERIALIZE), "GrB_wait");
    check_same_csr(workload + "/" + name + ": graphblas vs hand", grb::to_csr(in->gC), in->want);
#endif
    return in;
  };
  std::vector<std::pair<std::string, system_body<sddmm_in>>> systems = {
    {"hand",
     [](sddmm_in& in) {
       hand_sddmm(in, in.hand_out);
       benchmark::DoNotOptimize(in.hand_out.val.data());
     }},
    {"loom",
     [](sddmm_in& in) {
       sddmm(in.S, in.U, in.V, in.C);
       benchmark::DoNotOptimize(in.C.values().data());
     }},
#if LOOM_BENCH_HAVE_GRAPHBLAS
    {"graphblas",
     [](sddmm_in& in) {
       grb::check(GrB_mxm(in.gT, in.gS, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in.gU, in.gV,
                          GrB_DESC_RST1),
                  "GrB_mxm");
       grb::check(GrB_Matrix_eWiseMult_BinaryOp(in.gC, nullptr, nullptr, GrB_TIMES_FP64, in.gS,
                                                in.gT, nullptr),
                  "GrB_eWiseMult");
       grb::check(GrB_Matrix_wait(in.gC, GrB_MATERIALIZE), "GrB_wait");
     }},
#endif
  };
  add_group<sddmm_in>(
      workload, name, make, systems, [](const sddmm_in& in) { return in.S.nnz(); },
      "CSR .* (dense x dense^T), rank " + std::to_string(rank),
      [](sddmm_in& in, exporter& ex, const std::string& w, const std::string& i) {
        ex.item(w, i, in.S.nnz(),
                {{"S", ex.csr(ex.stem(w, i, "S"), in.S)},
                 {"U", ex.dense(ex.stem(w, i, "U"), in.U.values().data(),
                                {in.U.extent(0), in.U.extent(1)})},
                 {"V", ex.dense(ex.stem(w, i, "V"), in.V.values().data(),
                                {in.V.extent(0), in.V.extent(1)})}},
                ex.csr(ex.stem(w, i, "ref"), in.want));
      },
      [](const sddmm_in& in) {  // S read, C's values, crd and pos written, U and V read
        return 24.0 * static_cast<double>(in.S.nnz()) +
               16.0 * static_cast<double>(in.S.extent(0) + 1) +
               8.0 * static_cast<double>(in.U.values().size() + in.V.values().size());
      });
}

// MTTKRP (no peer has it) -----------------------------------------------------------------------------------
struct mttkrp_in {
  csf3_t T;
  mat_t B, C, M;
  std::vector<double> hM;
};

// as an expert writes it (expert_mttkrp.hpp), over threads by level-0 position
void hand_mttkrp(mttkrp_in& in) {
  const auto& l0 = in.T.level<0>();
  const std::int64_t R = in.B.extent(1);
  std::fill(in.hM.begin(), in.hM.end(), 0.0);
  // every position of level 0 is a distinct i: its rows of M are written by one thread only
#pragma omp parallel num_threads(g_threads) if (g_threads > 1)
  {
    std::vector<double> buffer;
    double* t = loom_bench::row_on_own_line(buffer, R);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t p0 = l0.pos[0]; p0 < l0.pos[1]; ++p0)
      loom_bench::expert_mttkrp_rows(in.T, in.B.values().data(), in.C.values().data(), R,
                                     in.hM.data(), t, p0, p0 + 1);
  }
}

void register_mttkrp(const std::string& name, std::array<std::int64_t, 3> shape, std::int64_t nnz,
                     std::int64_t rank) {
  auto make = [=] {
    auto in = std::make_unique<mttkrp_in>();
    in->T = lb::to_loom<loom::csf<3>>(lb::random_tensor3(shape, nnz, 51));
    in->B = mat_t({shape[1], rank});
    in->C = mat_t({shape[2], rank});
    in->M = mat_t({shape[0], rank});
    const auto bv = lb::dense_values(shape[1] * rank, 52),
               cv = lb::dense_values(shape[2] * rank, 53);
    std::copy(bv.begin(), bv.end(), in->B.values().begin());
    std::copy(cv.begin(), cv.end(), in->C.values().begin());
    in->hM.assign(static_cast<std::size_t>(shape[0] * rank), 0.0);
    hand_mttkrp(*in);
    mttkrp(in->T, in->B, in->C, in->M);
    lb::check_values("mttkrp/" + name + ": loom vs hand", in->M.values(), in->hM, 1e-10);
    return in;
  };
  std::vector<std::pair<std::string, system_body<mttkrp_in>>> systems = {
      {"hand",
       [](mttkrp_in& in) {
         hand_mttkrp(in);
         benchmark::DoNotOptimize(in.hM.data());
       }},
      {"loom",
       [](mttkrp_in& in) {
         mttkrp(in.T, in.B, in.C, in.M);
         benchmark::DoNotOptimize(in.M.values().data());
       }},
  };
  add_group<mttkrp_in>(
      "mttkrp", name, make, systems, [](const mttkrp_in& in) { return in.T.nnz(); },
      "CSF3 x dense x dense, rank " + std::to_string(rank),
      [](mttkrp_in&, exporter&, const std::string&, const std::string&) {});
}

// Triangles ---------------------------------------------------------------------------------------------------
struct triangles_in {
  csr_t A;
  eigen_csr eA;
  double want = 0;
#if LOOM_BENCH_HAVE_GRAPHBLAS
  grb::matrix gA, gC;
#endif
};

double hand_triangles(const csr_t& A) {
  const auto& a = A.level<1>();
  const std::int64_t* pos = a.pos.data();
  const std::int32_t* crd = a.crd.data();
  const double* val = A.values().data();
  const std::int64_t rows = A.extent(0);
  double total = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : total) \
    num_threads(g_threads) if (g_threads > 1)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t p = pos[r]; p < pos[r + 1]; ++p) {
      const std::int64_t m = crd[p];
      std::int64_t x = pos[r], y = pos[m];
      double row = 0;
      while (x < pos[r + 1] && y < pos[m + 1]) {
        if (crd[x] < crd[y])
          ++x;
        else if (crd[y] < crd[x])
          ++y;
        else
          row += val[y++] * val[x++];
      }
      total += val[p] * row;
    }
  return total;
}

// Eigen's idiom: the full product A * A, then the entries that A has (no masked product)
double eigen_triangles(const eigen_csr& A) {
  const eigen_csr AA = A * A;
  return AA.cwiseProduct(A).sum();
}

void register_triangles(const std::string& name, std::function<lb::entries<2>()> entries) {
  auto make = [=] {
    auto in = std::make_unique<triangles_in>();
    in->A = lb::to_loom<loom::csr>(symmetric_pattern(entries()));
    in->want = hand_triangles(in->A);
    lb::check_scalar("triangles/" + name + ": loom vs hand", triangles(in->A), in->want);
    in->eA = lb::to_eigen<Eigen::RowMajor>(in->A);
    lb::check_scalar("triangles/" + name + ": eigen vs hand", eigen_triangles(in->eA), in->want);
#if LOOM_BENCH_HAVE_GRAPHBLAS
    in->gA = grb::from_csr(in->A);
    in->gC = grb::matrix(static_cast<GrB_Index>(in->A.extent(0)),
                         static_cast<GrB_Index>(in->A.extent(0)));
    double s = 0;
    grb::check(GrB_mxm(in->gC, in->gA, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in->gA, in->gA,
                       GrB_DESC_RST1),
               "GrB_mxm");
    grb::check(GrB_Matrix_reduce_FP64(&s, nullptr, GrB_PLUS_MONOID_FP64, in->gC, nullptr),
               "GrB_reduce");
    lb::check_scalar("triangles/" + name + ": graphblas vs hand", s, in->want);
#endif
    return in;
  };
  std::vector<std::pair<std::string, system_body<triangles_in>>> systems = {
    {"hand", [](triangles_in& in) { benchmark::DoNotOptimize(hand_triangles(in.A)); }},
    {"loom", [](triangles_in& in) { benchmark::DoNotOptimize(triangles(in.A)); }},
    {"eigen", [](triangles_in& in) { benchmark::DoNotOptimize(eigen_triangles(in.eA)); }},
#if LOOM_BENCH_HAVE_GRAPHBLAS
    {"graphblas",
     [](triangles_in& in) {
       double s = 0;
       grb::check(GrB_mxm(in.gC, in.gA, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, in.gA, in.gA,
                          GrB_DESC_RST1),
                  "GrB_mxm");
       grb::check(GrB_Matrix_reduce_FP64(&s, nullptr, GrB_PLUS_MONOID_FP64, in.gC, nullptr),
                  "GrB_reduce");
       benchmark::DoNotOptimize(s);
     }},
#endif
  };
  add_group<triangles_in>(
      "triangles", name, make, systems, [](const triangles_in& in) { return in.A.nnz(); },
      "sum A .* (A A), symmetric 0/1 pattern",
      [](triangles_in& in, exporter& ex, const std::string& w, const std::string& i) {
        ex.item(w, i, in.A.nnz(), {{"A", ex.csr(ex.stem(w, i, "A"), in.A)}},
                exporter::scalar(in.want));
      });
}

// The inputs -----------------------------------------------------------------------------------------------
void register_all() {
  // the two largest of the shared real matrices (84K and 198K stored entries; cryg2500 and zenios,
  // 12K and 15K, measure little but call overhead, which the runtime suite covers)
  auto real = lb::real_matrices();
  std::erase_if(real, [](const auto& m) { return m.first != "bcsstk13" && m.first != "pushpull"; });
  auto square = [](const lb::entries<2>& e) { return e.shape[0] == e.shape[1]; };

  // SpMV: ~6M entries each (72 MB of CSR, beyond the 32 MiB L3)
  register_spmv("spmv", "uniform_1M",
                [] { return lb::random_matrix(1'000'000, 1'000'000, 6, 101); });
  register_spmv("spmv", "powerlaw_1M", [] { return power_law_matrix(1'000'000, 6'000'000, 102); });
  register_spmv("spmv", "banded_1M", [] { return banded_matrix(1'000'000, 64, 6, 103); });
  for (const auto& [name, path] : real)
    register_spmv("spmv", name, [path = path] { return lb::load_matrix(path); });

  // SpGEMM: A * B with 8 entries per row (uniform, banded) or A * A (power-law: hubs make rows long)
  register_binary("spgemm", "uniform_200K", [] {
    return std::pair{lb::random_matrix(200'000, 200'000, 8, 111),
                     lb::random_matrix(200'000, 200'000, 8, 112)};
  });
  register_binary("spgemm", "powerlaw_100K", [] {
    auto a = power_law_matrix(100'000, 500'000, 113);
    auto b = a;
    return std::pair{std::move(a), std::move(b)};
  });
  register_binary("spgemm", "banded_250K", [] {
    return std::pair{banded_matrix(250'000, 32, 8, 114), banded_matrix(250'000, 32, 8, 115)};
  });
  for (const auto& [name, path] : real)
    register_binary("spgemm", name, [path = path, square] {
      auto a = lb::load_matrix(path);
      if (!square(a)) lb::fail("spgemm: " + path + " is not square");
      auto b = a;
      return std::pair{std::move(a), std::move(b)};
    });

  // add: two different matrices of the same kind (~4M + 4M entries, 48 MB of CSR each), A + A^T
  // for the real ones
  register_binary("add", "uniform_500K", [] {
    return std::pair{lb::random_matrix(500'000, 500'000, 8, 121),
                     lb::random_matrix(500'000, 500'000, 8, 122)};
  });
  register_binary("add", "powerlaw_500K", [] {
    return std::pair{power_law_matrix(500'000, 4'000'000, 123),
                     power_law_matrix(500'000, 4'000'000, 124)};
  });
  register_binary("add", "banded_500K", [] {
    return std::pair{banded_matrix(500'000, 32, 8, 125), banded_matrix(500'000, 32, 8, 126)};
  });
  for (const auto& [name, path] : real)
    register_binary("add", name, [path = path] {
      auto a = lb::load_matrix(path);
      auto t = transposed(a);
      return std::pair{std::move(a), std::move(t)};
    });

  // SDDMM: rank 32, S with ~3M entries (U and V are 51 MB each)
  register_sddmm("uniform_200K", 32, [] { return lb::random_matrix(200'000, 200'000, 16, 131); });
  register_sddmm("powerlaw_200K", 32, [] { return power_law_matrix(200'000, 3'200'000, 132); });
  register_sddmm("banded_200K", 32, [] { return banded_matrix(200'000, 64, 16, 133); });
  for (const auto& [name, path] : real)
    register_sddmm(name, 32, [path = path] { return lb::load_matrix(path); });

  // MTTKRP: rank 16, 4M entries
  register_mttkrp("uniform_1Kx1Kx1K", {1000, 1000, 1000}, 4'000'000, 16);
  register_mttkrp("uniform_100Kx100Kx100", {100'000, 100'000, 100}, 4'000'000, 16);

  // triangles on symmetric 0/1 patterns
  register_triangles("powerlaw_100K", [] { return power_law_matrix(100'000, 500'000, 141); });
  register_triangles("uniform_200K", [] { return lb::random_matrix(200'000, 200'000, 5, 142); });
  register_triangles("banded_200K", [] { return banded_matrix(200'000, 16, 5, 143); });
  for (const auto& [name, path] : real)
    register_triangles(name, [path = path] { return lb::load_matrix(path); });

  // nnz scaling: uniform n x n with 8 entries per row, n from 16K to 1M (128K to 8M entries)
  for (std::int64_t n : {16'384, 65'536, 262'144, 1'048'576}) {
    const std::string name = "uniform_" + std::to_string(n / 1024) + "K";
    register_spmv("sweep_spmv", name, [n] {
      return lb::random_matrix(n, n, 8, 200 + static_cast<std::uint64_t>(n % 997));
    });
    register_binary("sweep_add", name, [n] {
      return std::pair{lb::random_matrix(n, n, 8, 300 + static_cast<std::uint64_t>(n % 997)),
                       lb::random_matrix(n, n, 8, 400 + static_cast<std::uint64_t>(n % 997))};
    });
  }
}

/// Removes `--name=value` from argv and returns value (or "").
std::string take_flag(int& argc, char** argv, const std::string& name) {
  const std::string prefix = "--" + name + "=";
  std::string value;
  int out = 1;
  for (int k = 1; k < argc; ++k) {
    if (std::strncmp(argv[k], prefix.c_str(), prefix.size()) == 0)
      value = argv[k] + prefix.size();
    else
      argv[out++] = argv[k];
  }
  argc = out;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  std::string threads = take_flag(argc, argv, "threads");
  if (threads.empty())
    if (const char* t = std::getenv("LOOM_BENCH_THREADS")) threads = t;
  for (char& c : threads)
    if (c == ',') c = ' ';
  {
    std::istringstream list(threads);
    for (int t; list >> t;)
      if (t >= 1 && std::find(g_thread_list.begin(), g_thread_list.end(), t) == g_thread_list.end())
        g_thread_list.push_back(t);
  }
  if (g_thread_list.empty()) g_thread_list = {1};
  const std::string export_dir = take_flag(argc, argv, "export");
  const std::string export_filter = take_flag(argc, argv, "export_filter");
  set_threads(g_thread_list.front());
#if LOOM_BENCH_HAVE_GRAPHBLAS
  int version[3] = {0, 0, 0};
  GxB_Global_Option_get_INT32(GxB_LIBRARY_VERSION, version);
  benchmark::AddCustomContext("graphblas", std::to_string(version[0]) + "." +
                                               std::to_string(version[1]) + "." +
                                               std::to_string(version[2]));
#endif
  std::string thread_list;
  for (int t : g_thread_list) thread_list += (thread_list.empty() ? "" : " ") + std::to_string(t);
  benchmark::AddCustomContext("threads", thread_list);
  benchmark::AddCustomContext("eigen", std::to_string(EIGEN_WORLD_VERSION) + "." +
                                           std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                           std::to_string(EIGEN_MINOR_VERSION));
#ifdef _OPENMP
  benchmark::AddCustomContext("openmp", std::to_string(_OPENMP));
#endif
  const bool export_only = !take_flag(argc, argv, "export_only").empty();
  register_all();
  std::unique_ptr<exporter> lazy_export;
  if (!export_dir.empty() && !export_only) {  // export while benchmarking, as inputs are built
    lazy_export = std::make_unique<exporter>(export_dir);
    g_exporter = lazy_export.get();
  } else if (!export_dir.empty()) {  // only write the inputs and the hand-written results
    exporter ex(export_dir);
    for (const auto& g : groups()) {
      const std::string id = g.workload + "/" + g.input;
      if (g.workload == "mttkrp") continue;  // no Python peer has MTTKRP
      if (!export_filter.empty() && id.find(export_filter) == std::string::npos) continue;
      std::fprintf(stderr, "export %s\n", id.c_str());
      g.export_fn(ex);
    }
    return 0;
  }
  // not lb::run: that one pins loom to one thread for the sequential runtime suite
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
