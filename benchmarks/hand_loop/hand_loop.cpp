// loom against the loop a careful engineer writes: inner product, A∘B, add, SpGEMM,
// SDDMM, the triangle query (on each matrix's symmetric pattern), SpMV and (A + B) x, on a generated matrix
// pair and real matrices against their transposes, and MTTKRP on a generated 3-tensor. The hand
// loops live in this file, so they are compiled with loom's flags, and keep their output buffers
// between calls; loom is timed writing into a fresh output ("fresh") and into the same output
// again ("reused"). One process, interleaved rounds, medians, results checked equal first.
// A second table sweeps the skew of two fibers to place skip::gallop_ratio.
//
// usage: hand_loop [--rounds N] [--only KERNEL] [--input NAME] [--out FILE.md]
//   KERNEL: inner, emul, add, spgemm, sddmm, triangle, triangle_star (the triangle query on a
//   star, against a generic join), spmv, spmv_sum, mttkrp, intersect (the skew sweep);
//   NAME: uniform_200K, bcsstk13, cryg2500, pushpull, star_1000 ... star_1000000, uniform_3d
//   (MTTKRP's input)
//   --out writes the tables as markdown, refused when the 1-minute load average exceeds 1.5
//   (another build running makes the ratios noise).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../runtime/expert_mttkrp.hpp"

namespace {

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;
constexpr loom::index<"l"> l;
using csr_t = loom::tensor<double, loom::csr>;
using dense_t = loom::tensor<double, loom::dense_matrix>;
using vec_t = loom::tensor<double, loom::dense_vector>;

#ifndef LOOM_BENCH_DATA_DIR
#  define LOOM_BENCH_DATA_DIR "data/matrices"  // run from the repository root
#endif

csr_t random_csr(std::int64_t n, int per_row, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::uniform_real_distribution<double> val(-1, 1);
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < n; ++r)
    for (int q = 0; q < per_row; ++q) {
      c.push_back({r, col(rng)});
      v.push_back(val(rng));
    }
  return loom::from_coo<loom::csr>({n, n}, c, v, loom::duplicates::sum);
}

csr_t transpose_of(const csr_t& A) {
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  A.for_each_stored([&](const auto& x, double y) {
    c.push_back({x[1], x[0]});
    v.push_back(y * 0.5 + 0.25);
  });
  return loom::from_coo<loom::csr>({A.shape()[1], A.shape()[0]}, c, v, loom::duplicates::sum);
}

// ---- the hand-written loops: raw CSR arrays, output vectors kept between calls ----
struct csr_arrays {
  std::vector<std::int64_t> pos;
  std::vector<std::int32_t> crd;
  std::vector<double> val;
};

double hand_inner(const csr_t& A, const csr_t& B) {
  const auto &ap = A.level<1>().pos, &bp = B.level<1>().pos;
  const auto &ac = A.level<1>().crd, &bc = B.level<1>().crd;
  const double *av = A.values().data(), *bv = B.values().data();
  double s = 0;
  for (std::int64_t r = 0; r < A.shape()[0]; ++r) {
    std::int64_t p = ap[r], pe = ap[r + 1], q = bp[r], qe = bp[r + 1];
    while (p < pe && q < qe) {
      const auto x = ac[p], y = bc[q];
      if (x == y)
        s += av[p++] * bv[q++];
      else if (x < y)
        ++p;
      else
        ++q;
    }
  }
  return s;
}

void hand_emul(const csr_t& A, const csr_t& B, csr_arrays& C) {
  const auto &ap = A.level<1>().pos, &bp = B.level<1>().pos;
  const auto &ac = A.level<1>().crd, &bc = B.level<1>().crd;
  const double *av = A.values().data(), *bv = B.values().data();
  const std::int64_t m = A.shape()[0];
  C.pos.assign(static_cast<std::size_t>(m) + 1, 0);
  C.crd.clear();
  C.val.clear();
  for (std::int64_t r = 0; r < m; ++r) {
    std::int64_t p = ap[r], pe = ap[r + 1], q = bp[r], qe = bp[r + 1];
    while (p < pe && q < qe) {
      const auto x = ac[p], y = bc[q];
      if (x == y) {
        C.crd.push_back(x);
        C.val.push_back(av[p++] * bv[q++]);
      } else if (x < y) {
        ++p;
      } else {
        ++q;
      }
    }
    C.pos[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(C.crd.size());
  }
}

void hand_add(const csr_t& A, const csr_t& B, csr_arrays& C) {
  const auto &ap = A.level<1>().pos, &bp = B.level<1>().pos;
  const auto &ac = A.level<1>().crd, &bc = B.level<1>().crd;
  const double *av = A.values().data(), *bv = B.values().data();
  const std::int64_t m = A.shape()[0];
  C.pos.assign(static_cast<std::size_t>(m) + 1, 0);
  C.crd.clear();
  C.val.clear();
  for (std::int64_t r = 0; r < m; ++r) {
    std::int64_t p = ap[r], pe = ap[r + 1], q = bp[r], qe = bp[r + 1];
    while (p < pe && q < qe) {
      const auto x = ac[p], y = bc[q];
      if (x == y) {
        C.crd.push_back(x);
        C.val.push_back(av[p++] + bv[q++]);
      } else if (x < y) {
        C.crd.push_back(x);
        C.val.push_back(av[p++]);
      } else {
        C.crd.push_back(y);
        C.val.push_back(bv[q++]);
      }
    }
    for (; p < pe; ++p) {
      C.crd.push_back(ac[p]);
      C.val.push_back(av[p]);
    }
    for (; q < qe; ++q) {
      C.crd.push_back(bc[q]);
      C.val.push_back(bv[q]);
    }
    C.pos[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(C.crd.size());
  }
}

struct spgemm_workspace {
  std::vector<double> acc;
  std::vector<char> seen;
  std::vector<std::int32_t> row;
};

void hand_spgemm(const csr_t& A, const csr_t& B, csr_arrays& C, spgemm_workspace& w) {
  const auto &ap = A.level<1>().pos, &bp = B.level<1>().pos;
  const auto &ac = A.level<1>().crd, &bc = B.level<1>().crd;
  const double *av = A.values().data(), *bv = B.values().data();
  const std::int64_t m = A.shape()[0], n = B.shape()[1];
  w.acc.resize(static_cast<std::size_t>(n));
  w.seen.resize(static_cast<std::size_t>(n));
  C.pos.assign(static_cast<std::size_t>(m) + 1, 0);
  C.crd.clear();
  C.val.clear();
  for (std::int64_t r = 0; r < m; ++r) {
    w.row.clear();
    for (std::int64_t p = ap[r]; p < ap[r + 1]; ++p)
      for (std::int64_t q = bp[ac[p]]; q < bp[ac[p] + 1]; ++q) {
        const std::int32_t c = bc[q];
        if (!w.seen[c]) {
          w.seen[c] = 1;
          w.row.push_back(c);
        }
        w.acc[c] += av[p] * bv[q];
      }
    std::sort(w.row.begin(), w.row.end());
    for (const std::int32_t c : w.row) {
      C.crd.push_back(c);
      C.val.push_back(w.acc[c]);
      w.acc[c] = 0;
      w.seen[c] = 0;
    }
    C.pos[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(C.crd.size());
  }
}

// the output's pattern is A's: a values array only; the dot product vectorised (-fopenmp-simd)
void hand_sddmm(const csr_t& A, const dense_t& U, const dense_t& V, std::vector<double>& out) {
  const auto& ap = A.level<1>().pos;
  const auto& ac = A.level<1>().crd;
  const double* av = A.values().data();
  const std::int64_t K = U.shape()[1];
  const double *u = U.values().data(), *v = V.values().data();
  out.resize(static_cast<std::size_t>(A.nnz()));
  for (std::int64_t r = 0; r < A.shape()[0]; ++r)
    for (std::int64_t p = ap[r]; p < ap[r + 1]; ++p) {
      const double *ur = u + r * K, *vr = v + std::int64_t{ac[p]} * K;
      double s = 0;
#pragma omp simd reduction(+ : s)
      for (std::int64_t q = 0; q < K; ++q) s += ur[q] * vr[q];
      out[static_cast<std::size_t>(p)] = av[p] * s;
    }
}

void hand_spmv(const csr_t& A, const double* x, double* y) {
  const auto& ap = A.level<1>().pos;
  const auto& ac = A.level<1>().crd;
  const double* av = A.values().data();
  for (std::int64_t r = 0; r < A.shape()[0]; ++r) {
    double s = 0;
    for (std::int64_t p = ap[r]; p < ap[r + 1]; ++p) s += av[p] * x[ac[p]];
    y[r] = s;
  }
}

// y = (A + B) x as a careful engineer writes it: two dot products per row, no merge of the rows
void hand_spmv_sum(const csr_t& A, const csr_t& B, const double* x, double* y) {
  const auto &ap = A.level<1>().pos, &bp = B.level<1>().pos;
  const auto &ac = A.level<1>().crd, &bc = B.level<1>().crd;
  const double *av = A.values().data(), *bv = B.values().data();
  for (std::int64_t r = 0; r < A.shape()[0]; ++r) {
    double s = 0, t = 0;
    for (std::int64_t p = ap[r]; p < ap[r + 1]; ++p) s += av[p] * x[ac[p]];
    for (std::int64_t p = bp[r]; p < bp[r + 1]; ++p) t += bv[p] * x[bc[p]];
    y[r] = s + t;
  }
}

// the triangle query over a symmetric pattern: for each stored (r, m), the merge of rows r and m
double hand_triangles(const csr_t& A) {
  const auto& pos = A.level<1>().pos;
  const auto& crd = A.level<1>().crd;
  const double* val = A.values().data();
  double total = 0;
  for (std::int64_t r = 0; r < A.shape()[0]; ++r)
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

// M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r)) as an expert writes it (expert_mttkrp.hpp)
void hand_mttkrp(const loom::tensor<double, loom::csf<3>>& T, const dense_t& B, const dense_t& C,
                 std::vector<double>& M, std::vector<double>& t) {
  loom_bench::expert_mttkrp(T, B.values().data(), C.values().data(), B.shape()[1], M, t);
}

// The triangle query as a generic join writes it: for each stored (r, m), the intersection of
// rows r and m, each side galloping to the other's coordinate (a worst-case optimal join: on the
// star instance one side of every intersection has one entry and the other n)
std::int64_t gallop_to(const std::int32_t* crd, std::int64_t at, std::int64_t end,
                       std::int64_t key) {
  std::int64_t step = 1, probe = at;
  while (probe < end && crd[probe] < key) {
    at = probe + 1;
    probe += step;
    step *= 2;
  }
  return std::lower_bound(crd + at, crd + std::min(probe, end), key) - crd;
}
double hand_generic_join_triangles(const csr_t& A) {
  const auto& pos = A.level<1>().pos;
  const std::int32_t* crd = A.level<1>().crd.data();
  const double* val = A.values().data();
  double total = 0;
  for (std::int64_t r = 0; r < A.shape()[0]; ++r)
    for (std::int64_t p = pos[r]; p < pos[r + 1]; ++p) {
      const std::int64_t m = crd[p];
      std::int64_t x = pos[r], y = pos[m];
      const std::int64_t x_end = pos[r + 1], y_end = pos[m + 1];
      double row = 0;
      while (x < x_end && y < y_end) {
        if (crd[x] < crd[y])
          x = gallop_to(crd, x, x_end, crd[y]);
        else if (crd[y] < crd[x])
          y = gallop_to(crd, y, y_end, crd[x]);
        else
          row += val[y++] * val[x++];
      }
      total += val[p] * row;
    }
  return total;
}

// The star instance: R = S = T = {(1, x), (x, 1)} for x < n (an n-leaf star around vertex 1)
csr_t star_graph(std::int64_t n) {
  std::vector<std::array<std::int64_t, 2>> c;
  for (std::int64_t x = 0; x < n; ++x) {
    c.push_back({1, x});
    if (x != 1) c.push_back({x, 1});
  }
  return loom::from_coo<loom::csr>({n, n}, c, std::vector<double>(c.size(), 1.0));
}

// The pattern of A + Aᵀ with unit values (a simple undirected graph for the triangle query).
csr_t symmetric_pattern(const csr_t& A) {
  std::vector<std::array<std::int64_t, 2>> c;
  A.for_each_stored([&](const auto& x, double) {
    if (x[0] == x[1]) return;
    c.push_back({x[0], x[1]});
    c.push_back({x[1], x[0]});
  });
  std::vector<double> v(c.size(), 1.0);
  auto S = loom::from_coo<loom::csr>(A.shape(), c, v, loom::duplicates::sum);
  for (double& x : S.values()) x = 1.0;
  return S;
}

// ---- timing ----
double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = -1;
  f >> l;
  return l;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "hand_loop: %s\n", what.c_str());
  std::exit(1);
}

void check_csr(const std::string& what, const csr_t& C, const csr_arrays& H) {
  if (C.nnz() != static_cast<std::int64_t>(H.val.size()) ||
      !std::equal(H.crd.begin(), H.crd.end(), C.level<1>().crd.begin()))
    fail(what + ": loom's pattern differs from the hand loop's");
  double scale = 0;
  for (double x : H.val) scale = std::max(scale, std::abs(x));
  for (std::size_t q = 0; q < H.val.size(); ++q)
    if (std::abs(H.val[q] - C.values()[q]) > 1e-9 * scale + 1e-12)
      fail(what + ": values differ at entry " + std::to_string(q));
}

struct implementation {
  std::string name;
  std::function<void()> run;
};

struct row {
  std::string input, kernel;
  double hand_ms;
  std::vector<std::pair<std::string, double>> ratios;
};

// Times each implementation `rounds` times, interleaved; a sample repeats a call to >= 2 ms.
row measure(const std::string& input, const std::string& kernel, std::vector<implementation> impls,
            int rounds) {
  for (auto& im : impls) im.run();  // warm: caches, plans, outputs
  const double t0 = now_ms();
  impls.back().run();
  const int reps = std::max(1, static_cast<int>(2.0 / std::max(now_ms() - t0, 1e-4)));
  std::map<std::string, std::vector<double>> t;
  for (int r = 0; r < rounds; ++r)
    for (auto& im : impls) {
      const double s = now_ms();
      for (int q = 0; q < reps; ++q) im.run();
      t[im.name].push_back((now_ms() - s) / reps);
    }
  row out{input, kernel, median(t["hand"]), {}};
  for (auto& im : impls)
    if (im.name != "hand") out.ratios.emplace_back(im.name, median(t[im.name]) / out.hand_ms);
  std::printf("%-13s %-7s hand %9.4f ms", input.c_str(), kernel.c_str(), out.hand_ms);
  for (auto& [n, r] : out.ratios) std::printf("   %s %.2fx", n.c_str(), r);
  std::printf("\n");
  std::fflush(stdout);
  return out;
}

// The triangle query on S's pattern, loom against `hand`, checked equal first.
row measure_triangles(const std::string& input, const csr_t& S, double (*hand)(const csr_t&),
                      int rounds) {
  double sink = 0;
  const auto loom_triangles = [&] {
    return loom::eval(loom::sum(i, j, k, S(i, j) * S(j, k) * S(i, k)));
  };
  const double want = hand(S), got = loom_triangles();
  if (std::abs(want - got) > 1e-9 * std::abs(want)) fail(input + " triangle: loom differs");
  row r = measure(
      input, "triangle",
      {{"reused", [&] { sink += loom_triangles(); }}, {"hand", [&] { sink += hand(S); }}}, rounds);
  if (sink == 0.123) std::printf("\n");
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7;
  std::string only, only_input, out_path;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    auto value = [&] {
      if (a + 1 >= argc) fail("missing value after " + arg);
      return std::string(argv[++a]);
    };
    if (arg == "--rounds")
      rounds = std::max(1, std::atoi(value().c_str()));
    else if (arg == "--only")
      only = value();
    else if (arg == "--input")
      only_input = value();
    else if (arg == "--out")
      out_path = value();
    else
      fail("unknown option " + arg + " (--rounds N, --only KERNEL, --input NAME, --out FILE.md)");
  }
  const double load_at_start = load_average();
  loom::set_num_threads(1);  // the hand loops are serial

  std::vector<std::pair<std::string, std::pair<csr_t, csr_t>>> inputs;
  if (only_input.empty() || only_input == "uniform_200K")
    inputs.push_back({"uniform_200K", {random_csr(200000, 10, 1), random_csr(200000, 10, 2)}});
  for (const std::string nm : {"bcsstk13", "cryg2500", "pushpull"}) {
    if (!only_input.empty() && only_input != nm) continue;
    auto A = loom::read_matrix_market<double, loom::csr>(std::string(LOOM_BENCH_DATA_DIR) + "/" +
                                                         nm + ".mtx");
    auto B = transpose_of(A);
    inputs.push_back({nm, {std::move(A), std::move(B)}});
  }

  std::vector<row> rows;
  auto wanted = [&](const char* kernel) { return only.empty() || only == kernel; };
  for (auto& [name, AB] : inputs) {
    const csr_t& A = AB.first;
    const csr_t& B = AB.second;
    const std::int64_t m = A.shape()[0], n = A.shape()[1];
    csr_t C({m, n});
    csr_arrays H;
    if (wanted("inner")) {
      double sink = 0;
      const double want = hand_inner(A, B), got = loom::eval(loom::sum(i, j, A(i, j) * B(i, j)));
      if (std::abs(want - got) > 1e-9 * std::abs(want) + 1e-12) fail(name + " inner: loom differs");
      rows.push_back(
          measure(name, "inner",
                  {{"reused", [&] { sink += loom::eval(loom::sum(i, j, A(i, j) * B(i, j))); }},
                   {"hand", [&] { sink += hand_inner(A, B); }}},
                  rounds));
      if (sink == 0.123) std::printf("\n");
    }
    if (wanted("emul")) {
      C(i, j) = A(i, j) * B(i, j);
      hand_emul(A, B, H);
      check_csr(name + " emul", C, H);
      rows.push_back(measure(name, "emul",
                             {{"fresh",
                               [&] {
                                 csr_t D({m, n});
                                 D(i, j) = A(i, j) * B(i, j);
                               }},
                              {"reused", [&] { C(i, j) = A(i, j) * B(i, j); }},
                              {"hand", [&] { hand_emul(A, B, H); }}},
                             rounds));
    }
    if (wanted("add")) {
      C(i, j) = A(i, j) + B(i, j);
      hand_add(A, B, H);
      check_csr(name + " add", C, H);
      rows.push_back(measure(name, "add",
                             {{"fresh",
                               [&] {
                                 csr_t D({m, n});
                                 D(i, j) = A(i, j) + B(i, j);
                               }},
                              {"reused", [&] { C(i, j) = A(i, j) + B(i, j); }},
                              {"hand", [&] { hand_add(A, B, H); }}},
                             rounds));
    }
    if (wanted("spgemm") &&
        name != "uniform_200K") {  // 20M output entries: minutes, not a kernel test
      spgemm_workspace w;
      C(i, j) = loom::sum(k, A(i, k) * B(k, j));
      hand_spgemm(A, B, H, w);
      check_csr(name + " spgemm", C, H);
      rows.push_back(measure(name, "spgemm",
                             {{"fresh",
                               [&] {
                                 csr_t D({m, n});
                                 D(i, j) = loom::sum(k, A(i, k) * B(k, j));
                               }},
                              {"reused", [&] { C(i, j) = loom::sum(k, A(i, k) * B(k, j)); }},
                              {"hand", [&] { hand_spgemm(A, B, H, w); }}},
                             rounds));
    }
    if (wanted("sddmm")) {
      const std::int64_t K = 32;
      dense_t U({m, K}), V({n, K});
      for (std::int64_t q = 0; q < m * K; ++q)
        U.values()[static_cast<std::size_t>(q)] = 0.001 * static_cast<double>(q % 97);
      for (std::int64_t q = 0; q < n * K; ++q)
        V.values()[static_cast<std::size_t>(q)] = 0.002 * static_cast<double>(q % 89);
      std::vector<double> out;
      C(i, j) = loom::sum(k, A(i, j) * U(i, k) * V(j, k));
      hand_sddmm(A, U, V, out);
      H.crd.assign(A.level<1>().crd.begin(), A.level<1>().crd.end());
      H.val = out;
      check_csr(name + " sddmm", C, H);
      rows.push_back(
          measure(name, "sddmm",
                  {{"fresh",
                    [&] {
                      csr_t D({m, n});
                      D(i, j) = loom::sum(k, A(i, j) * U(i, k) * V(j, k));
                    }},
                   {"reused", [&] { C(i, j) = loom::sum(k, A(i, j) * U(i, k) * V(j, k)); }},
                   {"hand", [&] { hand_sddmm(A, U, V, out); }}},
                  rounds));
    }
    // (not on uniform_200K: a random graph's triangle query is a second of cache misses per call)
    if (wanted("triangle") && A.shape()[0] == A.shape()[1] && name != "uniform_200K") {
      rows.push_back(measure_triangles(name, symmetric_pattern(A), hand_triangles, rounds));
    }
    if (wanted("spmv")) {
      vec_t x({n}), y({m});
      for (std::int64_t q = 0; q < n; ++q)
        x.values()[static_cast<std::size_t>(q)] = 1.0 + static_cast<double>(q % 7);
      std::vector<double> yh(static_cast<std::size_t>(m));
      rows.push_back(measure(name, "spmv",
                             {{"reused", [&] { y(i) = loom::sum(j, A(i, j) * x(j)); }},
                              {"hand", [&] { hand_spmv(A, x.values().data(), yh.data()); }}},
                             rounds));
    }
    if (wanted("spmv_sum") && A.shape() == B.shape()) {  // (A + B) x: one SpMV per matrix
      vec_t x({n}), y({m});
      for (std::int64_t q = 0; q < n; ++q)
        x.values()[static_cast<std::size_t>(q)] = 1.0 + static_cast<double>(q % 7);
      std::vector<double> yh(static_cast<std::size_t>(m));
      hand_spmv_sum(A, B, x.values().data(), yh.data());
      y(i) = loom::sum(j, (A(i, j) + B(i, j)) * x(j));
      for (std::size_t q = 0; q < yh.size(); ++q)
        if (std::abs(yh[q] - y.values()[q]) > 1e-9 * (1 + std::abs(yh[q])))
          fail(name + " spmv_sum: loom differs at row " + std::to_string(q));
      rows.push_back(measure(name, "spmv_sum",
                             {{"reused", [&] { y(i) = loom::sum(j, (A(i, j) + B(i, j)) * x(j)); }},
                              {"hand", [&] { hand_spmv_sum(A, B, x.values().data(), yh.data()); }}},
                             rounds));
    }
  }

  // the triangle query on the star instance, against the generic join (galloping intersections)
  if (wanted("triangle_star"))
    for (const std::int64_t n : {1000, 10000, 100000, 1000000}) {
      const std::string name = "star_" + std::to_string(n);
      if (!only_input.empty() && only_input != name) continue;
      rows.push_back(measure_triangles(name, star_graph(n), hand_generic_join_triangles, rounds));
    }

  // MTTKRP on a generated 3-tensor (uniform entries), rank 16, into a dense matrix kept between calls
  if (wanted("mttkrp") && (only_input.empty() || only_input == "uniform_3d")) {
    const std::int64_t n = 400, nnz = 2000000, R = 16;
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::int64_t> coord(0, n - 1);
    std::vector<std::array<std::int64_t, 3>> c(static_cast<std::size_t>(nnz));
    std::vector<double> v(static_cast<std::size_t>(nnz));
    for (std::size_t q = 0; q < c.size(); ++q) {
      c[q] = {coord(rng), coord(rng), coord(rng)};
      v[q] = 0.001 * static_cast<double>(q % 1000);
    }
    const auto T = loom::from_coo<loom::csf<3>>({n, n, n}, c, v, loom::duplicates::sum);
    dense_t B({n, R}), C({n, R}), M({n, R});
    for (std::int64_t q = 0; q < n * R; ++q) {
      B.values()[static_cast<std::size_t>(q)] = 0.01 * static_cast<double>(q % 53);
      C.values()[static_cast<std::size_t>(q)] = 0.02 * static_cast<double>(q % 59);
    }
    std::vector<double> hM(static_cast<std::size_t>(n * R));
    M(i, k) = loom::sum(j, loom::sum(l, T(i, j, l) * B(j, k) * C(l, k)));
    std::vector<double> tmp;
    hand_mttkrp(T, B, C, hM, tmp);
    for (std::size_t q = 0; q < hM.size(); ++q)
      if (std::abs(hM[q] - M.values()[q]) > 1e-9 * (std::abs(hM[q]) + 1))
        fail("mttkrp: loom differs");
    // the outputs' offsets from a 64-byte line (malloc aligns to 16): the same machine code takes
    // 9.5 or 16 ms from one binary to the next (hand_loop_notes.md)
    const auto line_offset = [](const double* p) {
      return reinterpret_cast<std::uintptr_t>(p) % 64;
    };
    std::printf("mttkrp: output offset from a 64-byte line: loom %zu, hand %zu; factors %zu, %zu\n",
                static_cast<std::size_t>(line_offset(M.values().data())),
                static_cast<std::size_t>(line_offset(hM.data())),
                static_cast<std::size_t>(line_offset(B.values().data())),
                static_cast<std::size_t>(line_offset(C.values().data())));
    rows.push_back(measure(
        "uniform_3d", "mttkrp",
        {{"fresh",
          [&] {
            dense_t D({n, R});
            D(i, k) = loom::sum(j, loom::sum(l, T(i, j, l) * B(j, k) * C(l, k)));
          }},
         {"reused", [&] { M(i, k) = loom::sum(j, loom::sum(l, T(i, j, l) * B(j, k) * C(l, k))); }},
         {"hand", [&] { hand_mttkrp(T, B, C, hM, tmp); }}},
        rounds));
  }

  // skew sweep: rows of 64 entries against rows 64·R long, inner product, merge vs leapfrog
  std::vector<row> sweep;
  if (wanted("intersect")) {
    for (const int ratio : {1, 4, 16, 32, 64, 256}) {
      const std::int64_t rows_n = 2000, short_len = 64, n = short_len * ratio * 4;
      std::mt19937_64 rng(7);
      std::vector<std::array<std::int64_t, 2>> ca, cb;
      std::vector<double> va, vb;
      for (std::int64_t r = 0; r < rows_n; ++r) {
        std::uniform_int_distribution<std::int64_t> col(0, n - 1);
        for (std::int64_t q = 0; q < short_len; ++q) ca.push_back({r, col(rng)}), va.push_back(1.0);
        for (std::int64_t q = 0; q < short_len * ratio; ++q)
          cb.push_back({r, col(rng)}), vb.push_back(1.0);
      }
      const auto A = loom::from_coo<loom::csr>({rows_n, n}, ca, va, loom::duplicates::sum);
      const auto B = loom::from_coo<loom::csr>({rows_n, n}, cb, vb, loom::duplicates::sum);
      loom::tensor<double, loom::format<>> z;
      using loom::stream::skip::per_loop;
      using loom::stream::skip::standard;
      double sink = 0;
      sweep.push_back(measure(
          "skew " + std::to_string(ratio), "intersect",
          {{"default", [&] { sink += loom::eval(loom::sum(i, j, A(i, j) * B(i, j))); }},
           {"leapfrog",
            [&] {
              loom::assign(
                  z(), loom::sum(i, j, A(i, j) * B(i, j)),
                  loom::options<
                      loom::opt::fixed_skips<per_loop<standard, loom::stream::skip::leapfrog>>>{});
            }},
           {"hand", [&] { sink += hand_inner(A, B); }}},
          rounds));
      if (sink == 0.5) std::printf("\n");
    }
  }

  const double load_at_end = load_average();
  std::printf("load average (1 min): %.2f at the start, %.2f at the end\n", load_at_start,
              load_at_end);
  if (!out_path.empty()) {
    if (std::max(load_at_start, load_at_end) > 1.5)
      fail("the 1-minute load average exceeded 1.5: not writing " + out_path +
           " (run with nothing else compiling)");
    std::ofstream f(out_path);
    f << "| input | kernel | hand (ms) | loom fresh / hand | loom reused / hand "
         "|\n|---|---|---:|---:|---:|\n";
    for (const row& r : rows) {
      double fresh = -1, reused = -1;
      for (const auto& [nm, x] : r.ratios) {
        if (nm == "fresh")
          fresh = x;
        else
          reused = x;  // "reused", or "loom" where no output is built (inner product, SpMV)
      }
      char fresh_text[32] = "—";
      if (fresh >= 0) std::snprintf(fresh_text, sizeof fresh_text, "%.2f×", fresh);
      char line[256];
      std::snprintf(line, sizeof line, "| %s | %s | %.4f | %s | %.2f× |\n", r.input.c_str(),
                    r.kernel.c_str(), r.hand_ms, fresh_text, reused);
      f << line;
    }
    if (!sweep.empty()) {
      f << "\n| fibers (short × ratio) | hand merge (ms) | loom default / hand | leapfrog only / "
           "hand |\n|---|---:|---:|---:|\n";
      for (const row& r : sweep) {
        char line[256];
        std::snprintf(line, sizeof line, "| 64 × %s | %.4f | %.2f× | %.2f× |\n",
                      r.input.substr(5).c_str(), r.hand_ms, r.ratios[0].second, r.ratios[1].second);
        f << line;
      }
    }
    f << "\nload average (1 min): " << load_at_start << " at the start, " << load_at_end
      << " at the end\n";
    std::printf("wrote %s\n", out_path.c_str());
  }
}
