// The kernels whose innermost loop is dense (a rank or feature index), each timed against the
// loop a careful engineer writes for it: the dense loop vectorised with `#pragma omp simd`
// (this file is compiled with -fopenmp-simd; loom's headers use no pragma), factored as an expert
// would (MTTKRP sums over k before scaling by B), output buffers reused. Beside it: the same loop
// without the pragma ("scalar"), Eigen where it has the operation, and SuiteSparse:GraphBLAS when
// it is installed. loom is timed writing into a fresh output and into the same output again,
// and, for the reductions, under loom::set_deterministic(true) ("loom-det").
// One process, interleaved rounds, medians; every result is checked against the hand loop's
// first.
//
//   sddmm    C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k))   Eigen: row .dot(); GraphBLAS: C<S> = U V'
//   spmm     C(i,k) = sum(j, S(i,j) * B(j,k))            Eigen: S * B;      GraphBLAS: GrB_mxm
//   spmm_t   C(i,k) = sum(j, S(j,i) * B(j,k))            Eigen: S' * B;     GraphBLAS: GrB_mxm (S')
//   rowdot   x(i) = sum(k, U(i,k) * V(i,k))              Eigen: U.cwiseProduct(V).rowwise().sum()
//   mttkrp   M(i,r) = sum(j,k, T(i,j,k) * B(j,r) * C(k,r))
//   ttm      Y(i,j,r) = sum(k, T(i,j,k) * U(k,r))
//
// usage: dense_inner [--rounds N] [--only KERNEL] [--input NAME] [--ranks 8,16,...]
//                    [--threads N] [--out FILE.md] [--append]
//   NAME: uniform_40K (generated, 40K x 40K, about 10 per row: U and V pass the L3 from R = 32),
//   bcsstk13, cryg2500, pushpull (real matrices, LOOM_BENCH_DATA or the configured folder).
//   --out writes the table as markdown (--append: after what the file holds), refused when the
//   1-minute load average exceeds 1.5. --threads sets loom's threads (the hand loops, Eigen and
//   GraphBLAS stay on one), so the ratios at 2 threads show loom's scaling.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../peers/graphblas.hpp"
#include "../peers/kernels.hpp"
#include "../runtime/support.hpp"
#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace {

namespace lb = loom_bench;
using loom_peers::csf3_t;
using loom_peers::csr_t;
using loom_peers::mat_t;
using vec_t = loom::tensor<double, loom::dense_vector>;
using dense3_t = loom::tensor<double, loom::format<loom::dense, loom::dense, loom::dense>>;
using eigen_csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
using eigen_rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using eigen_map = Eigen::Map<const eigen_rows>;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"r"> r;

mat_t random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  mat_t M({rows, cols});
  const auto v = lb::dense_values(rows * cols, seed);
  std::copy(v.begin(), v.end(), M.values().begin());
  return M;
}

// ---- the hand loops: raw arrays, outputs kept between calls; VEC is the pragma ----
#define LOOM_HAND_LOOPS(SUFFIX, VEC, VEC_SUM)                                                     \
  void sddmm_##SUFFIX(const csr_t& S, const mat_t& U, const mat_t& V, std::vector<double>& out) { \
    const auto& pos = S.level<1>().pos;                                                           \
    const auto& crd = S.level<1>().crd;                                                           \
    const double* sv = S.values().data();                                                         \
    const std::int64_t R = U.extent(1);                                                           \
    const double *u = U.values().data(), *v = V.values().data();                                  \
    out.resize(static_cast<std::size_t>(S.nnz()));                                                \
    double* o = out.data();                                                                       \
    for (std::int64_t a = 0; a < S.extent(0); ++a)                                                \
      for (std::int64_t p = pos[a]; p < pos[a + 1]; ++p) {                                        \
        const double *ua = u + a * R, *vb = v + std::int64_t{crd[p]} * R;                         \
        double s = 0;                                                                             \
        VEC_SUM                                                                                   \
        for (std::int64_t q = 0; q < R; ++q) s += ua[q] * vb[q];                                  \
        o[p] = sv[p] * s;                                                                         \
      }                                                                                           \
  }                                                                                               \
  void spmm_##SUFFIX(const csr_t& S, const mat_t& B, std::vector<double>& out) {                  \
    const auto& pos = S.level<1>().pos;                                                           \
    const auto& crd = S.level<1>().crd;                                                           \
    const double* sv = S.values().data();                                                         \
    const std::int64_t R = B.extent(1);                                                           \
    const double* b = B.values().data();                                                          \
    out.resize(static_cast<std::size_t>(S.extent(0) * R));                                        \
    for (std::int64_t a = 0; a < S.extent(0); ++a) {                                              \
      double* c = out.data() + a * R;                                                             \
      VEC for (std::int64_t q = 0; q < R; ++q) c[q] = 0;                                          \
      for (std::int64_t p = pos[a]; p < pos[a + 1]; ++p) {                                        \
        const double s = sv[p];                                                                   \
        const double* bj = b + std::int64_t{crd[p]} * R;                                          \
        VEC for (std::int64_t q = 0; q < R; ++q) c[q] += s * bj[q];                               \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  void spmm_t_##SUFFIX(const csr_t& S, const mat_t& B, std::vector<double>& out) {                \
    const auto& pos = S.level<1>().pos;                                                           \
    const auto& crd = S.level<1>().crd;                                                           \
    const double* sv = S.values().data();                                                         \
    const std::int64_t R = B.extent(1);                                                           \
    const double* b = B.values().data();                                                          \
    out.assign(static_cast<std::size_t>(S.extent(1) * R), 0.0);                                   \
    for (std::int64_t a = 0; a < S.extent(0); ++a) {                                              \
      const double* ba = b + a * R;                                                               \
      for (std::int64_t p = pos[a]; p < pos[a + 1]; ++p) {                                        \
        const double s = sv[p];                                                                   \
        double* c = out.data() + std::int64_t{crd[p]} * R;                                        \
        VEC for (std::int64_t q = 0; q < R; ++q) c[q] += s * ba[q];                               \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  void rowdot_##SUFFIX(const mat_t& U, const mat_t& V, std::vector<double>& out) {                \
    const std::int64_t R = U.extent(1);                                                           \
    const double *u = U.values().data(), *v = V.values().data();                                  \
    out.resize(static_cast<std::size_t>(U.extent(0)));                                            \
    for (std::int64_t a = 0; a < U.extent(0); ++a) {                                              \
      const double *ua = u + a * R, *va = v + a * R;                                              \
      double s = 0;                                                                               \
      VEC_SUM                                                                                     \
      for (std::int64_t q = 0; q < R; ++q) s += ua[q] * va[q];                                    \
      out[static_cast<std::size_t>(a)] = s;                                                       \
    }                                                                                             \
  }                                                                                               \
  /* the expert's MTTKRP: t(r) = sum(k, T(i,j,k) C(k,r)) first, then M(i,r) += t(r) B(j,r) */     \
  void mttkrp_##SUFFIX(const csf3_t& T, const mat_t& B, const mat_t& C, std::vector<double>& M,   \
                       std::vector<double>& t) {                                                  \
    const auto &l0 = T.level<0>(), &l1 = T.level<1>(), &l2 = T.level<2>();                        \
    const double* tv = T.values().data();                                                         \
    const std::int64_t R = B.extent(1);                                                           \
    const double *b = B.values().data(), *c = C.values().data();                                  \
    M.assign(static_cast<std::size_t>(T.extent(0) * R), 0.0);                                     \
    t.resize(static_cast<std::size_t>(R) + 8); /* tr on its own 64-byte line: a split store */    \
    double* tr = t.data() + (8 - reinterpret_cast<std::uintptr_t>(t.data()) % 64 / 8) % 8;        \
    for (std::int64_t p0 = l0.pos[0]; p0 < l0.pos[1]; ++p0) {                                     \
      double* mi = M.data() + std::int64_t{l0.crd[p0]} * R;                                       \
      for (std::int64_t p1 = l1.pos[p0]; p1 < l1.pos[p0 + 1]; ++p1) {                             \
        VEC for (std::int64_t q = 0; q < R; ++q) tr[q] = 0;                                       \
        for (std::int64_t p2 = l2.pos[p1]; p2 < l2.pos[p1 + 1]; ++p2) {                           \
          const double* ck = c + std::int64_t{l2.crd[p2]} * R;                                    \
          const double x = tv[p2];                                                                \
          VEC for (std::int64_t q = 0; q < R; ++q) tr[q] += x * ck[q];                            \
        }                                                                                         \
        const double* bj = b + std::int64_t{l1.crd[p1]} * R;                                      \
        VEC for (std::int64_t q = 0; q < R; ++q) mi[q] += tr[q] * bj[q];                          \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  void ttm_##SUFFIX(const csf3_t& T, const mat_t& U, std::vector<double>& Y) {                    \
    const auto &l0 = T.level<0>(), &l1 = T.level<1>(), &l2 = T.level<2>();                        \
    const double* tv = T.values().data();                                                         \
    const std::int64_t R = U.extent(1), n1 = T.extent(1);                                         \
    const double* u = U.values().data();                                                          \
    Y.assign(static_cast<std::size_t>(T.extent(0) * n1 * R), 0.0);                                \
    for (std::int64_t p0 = l0.pos[0]; p0 < l0.pos[1]; ++p0)                                       \
      for (std::int64_t p1 = l1.pos[p0]; p1 < l1.pos[p0 + 1]; ++p1) {                             \
        double* y = Y.data() + (std::int64_t{l0.crd[p0]} * n1 + l1.crd[p1]) * R;                  \
        for (std::int64_t p2 = l2.pos[p1]; p2 < l2.pos[p1 + 1]; ++p2) {                           \
          const double* uk = u + std::int64_t{l2.crd[p2]} * R;                                    \
          const double x = tv[p2];                                                                \
          VEC for (std::int64_t q = 0; q < R; ++q) y[q] += x * uk[q];                             \
        }                                                                                         \
      }                                                                                           \
  }

#define LOOM_PRAGMA(x) _Pragma(#x)
LOOM_HAND_LOOPS(simd, LOOM_PRAGMA(omp simd), LOOM_PRAGMA(omp simd reduction(+ : s)))
LOOM_HAND_LOOPS(scalar, , )
#undef LOOM_HAND_LOOPS

// ---- timing ----
std::string offsets_of(const void* loom_out, const void* hand_out) {
  return std::to_string(reinterpret_cast<std::uintptr_t>(loom_out) % 64) + "/" +
         std::to_string(reinterpret_cast<std::uintptr_t>(hand_out) % 64);
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct contender {
  std::string name;
  std::function<void()> run;
};

/// Medians of `rounds` interleaved rounds; each round runs every contender once (after one
/// warm-up call each), repeating a call until it has taken 20 ms.
std::vector<double> medians(const std::vector<contender>& cs, int rounds) {
  std::vector<std::vector<double>> t(cs.size());
  std::vector<int> reps(cs.size(), 1);
  for (std::size_t c = 0; c < cs.size(); ++c) {
    const double t0 = now_ms();
    cs[c].run();
    const double once = std::max(now_ms() - t0, 1e-3);
    reps[c] = std::max(1, static_cast<int>(20.0 / once));
  }
  for (int round = 0; round < rounds; ++round)
    for (std::size_t c = 0; c < cs.size(); ++c) {
      const double t0 = now_ms();
      for (int q = 0; q < reps[c]; ++q) cs[c].run();
      t[c].push_back((now_ms() - t0) / reps[c]);
    }
  std::vector<double> m;
  for (auto& v : t) {
    std::sort(v.begin(), v.end());
    m.push_back(v[v.size() / 2]);
  }
  return m;
}

void check_close(const std::string& what, const double* got, const double* want, std::size_t n) {
  for (std::size_t q = 0; q < n; ++q)
    if (!lb::close(got[q], want[q], 1e-10))
      lb::fail(what + ": differs from the hand loop at " + std::to_string(q) + ": " +
               std::to_string(got[q]) + " vs " + std::to_string(want[q]));
}

struct table {
  std::vector<std::string> columns;  // after kernel, input, R, hand ms
  std::vector<std::string> rows;
  // `offsets`: the dense outputs' byte offsets past a 64-byte line, loom's and the hand loop's
  // (a 64-byte vector store across two lines costs about two: the allocator's lottery)
  void add(const std::string& kernel, const std::string& input, std::int64_t R,
           const std::vector<contender>& cs, const std::vector<double>& ms,
           const std::string& offsets = "") {
    // cs[0] is the vectorised hand loop: every other time as a ratio to it
    std::ostringstream line;
    line << "| " << kernel << " | " << input << " | " << R << " | ";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", ms[0]);
    line << buf;
    for (std::size_t c = 1; c < cs.size(); ++c) {
      std::snprintf(buf, sizeof buf, " | %s %.2f", cs[c].name.c_str(), ms[c] / ms[0]);
      line << buf;
    }
    if (!offsets.empty()) line << " | offsets " << offsets;
    line << " |";
    rows.push_back(line.str());
    std::printf("%s\n", rows.back().c_str());
    std::fflush(stdout);
  }
};

struct options {
  int rounds = 7;
  std::string only, input, out;
  std::vector<std::int64_t> ranks{8, 16, 32, 64, 128, 256};
  int threads = 1;
  bool append = false;
};

bool wanted(const options& o, const std::string& kernel) {
  return o.only.empty() || o.only == kernel;
}

void matrix_kernels(const options& o, const std::string& name, const csr_t& S, table& tab) {
  const std::int64_t m = S.extent(0), n = S.extent(1);
  const eigen_csr Se = lb::to_eigen<Eigen::RowMajor>(S);
#if LOOM_BENCH_HAVE_GRAPHBLAS
  const auto Sg = loom_peers::grb::from_csr(S);
#endif
  for (const std::int64_t R : o.ranks) {
    // U, V, B: dense factors with R columns; rows of S's extents
    const mat_t U = random_dense(m, R, 1 + R), V = random_dense(n, R, 2 + R);
    const mat_t B = random_dense(n, R, 3 + R), Bt = random_dense(m, R, 4 + R);
    const eigen_map Ue(U.values().data(), m, R), Ve(V.values().data(), n, R);
    const eigen_map Be(B.values().data(), n, R), Bte(Bt.values().data(), m, R);
    std::vector<double> hv, hs;
    if (wanted(o, "sddmm")) {
      csr_t C({m, n});
      C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k));
      sddmm_simd(S, U, V, hv);
      check_close("sddmm", C.values().data(), hv.data(), hv.size());
      std::vector<double> ev(hv.size());
      const auto& pos = S.level<1>().pos;
      const auto& crd = S.level<1>().crd;
      std::vector<contender> cs{
          {"hand", [&] { sddmm_simd(S, U, V, hv); }},
          {"loom", [&] { C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k)); }},
          {"loom-fresh",
           [&] {
             csr_t D({m, n});
             D(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k));
           }},
          {"loom-det",
           [&] {
             loom::set_deterministic(true);  // eight fixed partial sums
             C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k));
             loom::set_deterministic(false);
           }},
          {"scalar", [&] { sddmm_scalar(S, U, V, hs); }},
          {"eigen", [&] {
             const double* sv = S.values().data();
             for (std::int64_t a = 0; a < m; ++a)
               for (std::int64_t p = pos[a]; p < pos[a + 1]; ++p)
                 ev[static_cast<std::size_t>(p)] = sv[p] * Ue.row(a).dot(Ve.row(crd[p]));
           }}};
#if LOOM_BENCH_HAVE_GRAPHBLAS
      namespace g = loom_peers::grb;
      const auto Ug = g::from_dense(U), Vg = g::from_dense(V);
      g::matrix Cg(static_cast<GrB_Index>(m), static_cast<GrB_Index>(n));
      GrB_Descriptor desc = nullptr;
      g::check(GrB_Descriptor_new(&desc), "GrB_Descriptor_new");
      g::check(GrB_Descriptor_set(desc, GrB_MASK, GrB_STRUCTURE), "mask structure");
      g::check(GrB_Descriptor_set(desc, GrB_INP1, GrB_TRAN), "transpose V");
      g::check(GrB_Descriptor_set(desc, GrB_OUTP, GrB_REPLACE), "replace");
      cs.push_back({"graphblas", [&] {
                      g::check(GrB_mxm(Cg, Sg, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, Ug, Vg, desc),
                               "GrB_mxm");
                      g::check(GrB_Matrix_eWiseMult_BinaryOp(Cg, nullptr, nullptr, GrB_TIMES_FP64,
                                                             Cg, Sg, nullptr),
                               "GrB_eWiseMult");
                      g::check(GrB_Matrix_wait(Cg, GrB_MATERIALIZE), "GrB_wait");
                    }});
#endif
      tab.add("sddmm", name, R, cs, medians(cs, o.rounds));
#if LOOM_BENCH_HAVE_GRAPHBLAS
      GrB_Descriptor_free(&desc);
#endif
    }
    if (wanted(o, "spmm")) {
      mat_t C({m, R});
      C(i, k) = loom::sum(j, S(i, j) * B(j, k));
      spmm_simd(S, B, hv);
      check_close("spmm", C.values().data(), hv.data(), hv.size());
      eigen_rows Ce(m, R);
      std::vector<contender> cs{{"hand", [&] { spmm_simd(S, B, hv); }},
                                {"loom", [&] { C(i, k) = loom::sum(j, S(i, j) * B(j, k)); }},
                                {"loom-fresh",
                                 [&] {
                                   mat_t D({m, R});
                                   D(i, k) = loom::sum(j, S(i, j) * B(j, k));
                                 }},
                                {"scalar", [&] { spmm_scalar(S, B, hs); }},
                                {"eigen", [&] { Ce.noalias() = Se * Be; }}};
#if LOOM_BENCH_HAVE_GRAPHBLAS
      namespace g = loom_peers::grb;
      const auto Bg = g::from_dense(B);
      g::matrix Cg(static_cast<GrB_Index>(m), static_cast<GrB_Index>(R));
      cs.push_back(
          {"graphblas", [&] {
             g::check(GrB_mxm(Cg, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, Sg, Bg, nullptr),
                      "GrB_mxm");
             g::check(GrB_Matrix_wait(Cg, GrB_MATERIALIZE), "GrB_wait");
           }});
#endif
      tab.add("spmm", name, R, cs, medians(cs, o.rounds), offsets_of(C.values().data(), hv.data()));
    }
    if (wanted(o, "spmm_t")) {
      mat_t C({n, R});
      C(i, k) = loom::sum(j, S(j, i) * Bt(j, k));
      spmm_t_simd(S, Bt, hv);
      check_close("spmm_t", C.values().data(), hv.data(), hv.size());
      eigen_rows Ce(n, R);
      std::vector<contender> cs{{"hand", [&] { spmm_t_simd(S, Bt, hv); }},
                                {"loom", [&] { C(i, k) = loom::sum(j, S(j, i) * Bt(j, k)); }},
                                {"loom-fresh",
                                 [&] {
                                   mat_t D({n, R});
                                   D(i, k) = loom::sum(j, S(j, i) * Bt(j, k));
                                 }},
                                {"scalar", [&] { spmm_t_scalar(S, Bt, hs); }},
                                {"eigen", [&] { Ce.noalias() = Se.transpose() * Bte; }}};
#if LOOM_BENCH_HAVE_GRAPHBLAS
      namespace g = loom_peers::grb;
      const auto Bg = g::from_dense(Bt);
      g::matrix Cg(static_cast<GrB_Index>(n), static_cast<GrB_Index>(R));
      GrB_Descriptor desc = nullptr;
      g::check(GrB_Descriptor_new(&desc), "GrB_Descriptor_new");
      g::check(GrB_Descriptor_set(desc, GrB_INP0, GrB_TRAN), "transpose S");
      cs.push_back({"graphblas", [&] {
                      g::check(
                          GrB_mxm(Cg, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, Sg, Bg, desc),
                          "GrB_mxm");
                      g::check(GrB_Matrix_wait(Cg, GrB_MATERIALIZE), "GrB_wait");
                    }});
#endif
      tab.add("spmm_t", name, R, cs, medians(cs, o.rounds),
              offsets_of(C.values().data(), hv.data()));
#if LOOM_BENCH_HAVE_GRAPHBLAS
      GrB_Descriptor_free(&desc);
#endif
    }
    if (wanted(o, "rowdot")) {
      const mat_t& W = U;
      const mat_t X = random_dense(m, R, 5 + R);
      const eigen_map Xe(X.values().data(), m, R);
      vec_t x({m});
      x(i) = loom::sum(k, W(i, k) * X(i, k));
      rowdot_simd(W, X, hv);
      check_close("rowdot", x.values().data(), hv.data(), hv.size());
      Eigen::VectorXd xe(m);
      std::vector<contender> cs{
          {"hand", [&] { rowdot_simd(W, X, hv); }},
          {"loom", [&] { x(i) = loom::sum(k, W(i, k) * X(i, k)); }},
          {"loom-fresh",
           [&] {
             vec_t y({m});
             y(i) = loom::sum(k, W(i, k) * X(i, k));
           }},
          {"loom-det",
           [&] {
             loom::set_deterministic(true);
             x(i) = loom::sum(k, W(i, k) * X(i, k));
             loom::set_deterministic(false);
           }},
          {"scalar", [&] { rowdot_scalar(W, X, hs); }},
          {"eigen", [&] { xe.noalias() = Ue.cwiseProduct(Xe).rowwise().sum(); }}};
      tab.add("rowdot", name, R, cs, medians(cs, o.rounds));
    }
  }
}

void tensor_kernels(const options& o, table& tab) {
  // MTTKRP over 2000^3 with 2M entries; TTM over 200^3 with 1M (its output is dense in i, j)
  const auto T = lb::to_loom<loom::csf<3>>(lb::random_tensor3({2000, 2000, 2000}, 2000000, 7));
  const auto T2 = lb::to_loom<loom::csf<3>>(lb::random_tensor3({200, 200, 200}, 1000000, 8));
  for (const std::int64_t R : o.ranks) {
    std::vector<double> hv, hs, t;
    if (wanted(o, "mttkrp")) {
      const std::int64_t n = T.extent(0);
      const mat_t B = random_dense(n, R, 11 + R), C = random_dense(n, R, 12 + R);
      mat_t M({n, R});
      M(i, r) = loom::sum(j, loom::sum(k, T(i, j, k) * B(j, r) * C(k, r)));
      mttkrp_simd(T, B, C, hv, t);
      check_close("mttkrp", M.values().data(), hv.data(), hv.size());
      std::vector<contender> cs{
          {"hand", [&] { mttkrp_simd(T, B, C, hv, t); }},
          {"loom", [&] { M(i, r) = loom::sum(j, loom::sum(k, T(i, j, k) * B(j, r) * C(k, r))); }},
          {"loom-fresh",
           [&] {
             mat_t D({n, R});
             D(i, r) = loom::sum(j, loom::sum(k, T(i, j, k) * B(j, r) * C(k, r)));
           }},
          {"scalar", [&] { mttkrp_scalar(T, B, C, hs, t); }}};
      tab.add("mttkrp", "uniform_2000^3", R, cs, medians(cs, o.rounds),
              offsets_of(M.values().data(), hv.data()));
    }
    if (wanted(o, "ttm") && R <= 64) {  // Y holds 200^2 R doubles
      const std::int64_t n = T2.extent(0);
      const mat_t U = random_dense(n, R, 13 + R);
      dense3_t Y({n, n, R});
      Y(i, j, r) = loom::sum(k, T2(i, j, k) * U(k, r));
      ttm_simd(T2, U, hv);
      check_close("ttm", Y.values().data(), hv.data(), hv.size());
      std::vector<contender> cs{{"hand", [&] { ttm_simd(T2, U, hv); }},
                                {"loom", [&] { Y(i, j, r) = loom::sum(k, T2(i, j, k) * U(k, r)); }},
                                {"loom-fresh",
                                 [&] {
                                   dense3_t Z({n, n, R});
                                   Z(i, j, r) = loom::sum(k, T2(i, j, k) * U(k, r));
                                 }},
                                {"scalar", [&] { ttm_scalar(T2, U, hs); }}};
      tab.add("ttm", "uniform_200^3", R, cs, medians(cs, o.rounds),
              offsets_of(Y.values().data(), hv.data()));
    }
  }
}

double load_average() {
  double l = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = 0;
    std::fclose(f);
  }
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) lb::fail(arg + " needs a value");
      return argv[++a];
    };
    if (arg == "--rounds")
      o.rounds = std::stoi(value());
    else if (arg == "--only")
      o.only = value();
    else if (arg == "--input")
      o.input = value();
    else if (arg == "--threads")
      o.threads = std::stoi(value());
    else if (arg == "--out")
      o.out = value();
    else if (arg == "--append")
      o.append = true;
    else if (arg == "--ranks") {
      o.ranks.clear();
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');) o.ranks.push_back(std::stoll(item));
    } else {
      lb::fail("unknown argument " + arg +
               " (usage: dense_inner [--rounds N] [--only KERNEL] [--input NAME] [--ranks 8,16] "
               "[--threads N] [--out FILE.md] [--append])");
    }
  }
  if (!o.out.empty() && load_average() > 1.5)
    lb::fail("the 1-minute load average is " + std::to_string(load_average()) +
             ": another process is running, the ratios would be noise; not writing " + o.out);
  loom::set_num_threads(o.threads);
  Eigen::setNbThreads(1);
#if LOOM_BENCH_HAVE_GRAPHBLAS
  loom_peers::grb::init(1);
#endif
  table tab;
  std::printf(
      "| kernel | input | R | vectorised hand loop, ms | ratios to it "
      "|\n|---|---|---:|---:|---|\n");
  std::vector<std::pair<std::string, csr_t>> inputs;
  if (o.input.empty() || o.input == "uniform_40K")
    inputs.emplace_back("uniform_40K",
                        lb::to_loom<loom::csr>(lb::random_matrix(40000, 40000, 10, 40)));
  for (const auto& [name, path] : lb::real_matrices())
    if ((o.input.empty() && name != "zenios") || o.input == name)
      inputs.emplace_back(name, lb::to_loom<loom::csr>(lb::load_matrix(path)));
  for (const auto& [name, S] : inputs) matrix_kernels(o, name, S, tab);
  if (o.input.empty() || o.input == "tensors") tensor_kernels(o, tab);
  if (!o.out.empty()) {
    std::ofstream f(o.out, o.append ? std::ios::app : std::ios::trunc);
    f << "\n*loom on " << o.threads << " thread(s)*, " << o.rounds << " rounds\n\n"
      << "| kernel | input | R | vectorised hand loop, ms | ratios to it "
         "|\n|---|---|---:|---:|---|\n";
    for (const auto& row : tab.rows) f << row << "\n";
    if (!f) lb::fail("cannot write " + o.out);
  }
  return 0;
}
