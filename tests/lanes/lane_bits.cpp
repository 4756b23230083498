// Deterministic sums do not depend on the target's lane width (stream/lanes.hpp): this program
// is built once per instruction set (tests/CMakeLists.txt: SSE2 only, AVX2 with FMA and
// -ffp-contract=fast, AVX-512 with 64-byte lanes), runs kernels on the vector path under
// loom::set_deterministic(true), and writes the bits of every result (--write FILE) or compares
// them with a file another build wrote (--compare FILE). Each result is also checked against a
// plain loop, and the target's own lanes (deterministic mode off) against the fixed ones.
// Exit codes: 0 passed, 1 failed, 77 this CPU lacks the build's instruction set (skipped).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

std::uint64_t state = 12345;
double next_value() {  // values of many magnitudes and signs, so that orders round differently
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  const double unit = static_cast<double>(state >> 11) * 0x1.0p-53;
  return (unit - 0.5) * std::ldexp(1.0, static_cast<int>((state >> 3) % 40) - 20);
}

template <class T> loom::tensor<T, loom::dense_matrix> dense(std::int64_t rows, std::int64_t cols) {
  loom::tensor<T, loom::dense_matrix> M({rows, cols});
  for (auto& v : M.values()) v = static_cast<T>(next_value());
  return M;
}

struct results {
  std::vector<std::string> lines;
  int failures = 0;
  template <class T> void add(const std::string& what, const T* v, std::size_t n) {
    for (std::size_t q = 0; q < n; ++q) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &v[q], sizeof(T));
      char buf[64];
      std::snprintf(buf, sizeof buf, " %016" PRIx64, bits);
      lines.push_back(what + "[" + std::to_string(q) + "]" + buf);
    }
  }
  void expect(bool ok, const std::string& what) {
    if (!ok) {
      std::fprintf(stderr, "lane_bits: %s\n", what.c_str());
      ++failures;
    }
  }
};

bool close(double a, double b, double scale) { return std::abs(a - b) <= 1e-9 * (scale + 1e-300); }

template <class T> void row_dots(results& out, std::int64_t R) {
  const std::int64_t n = 9;
  const auto U = dense<T>(n, R), V = dense<T>(n, R);
  loom::tensor<T, loom::dense_vector> x({n});
  loom::set_deterministic(true);
  x(i) = loom::sum(k, U(i, k) * V(i, k));
  const std::vector<T> fixed(x.values().begin(), x.values().end());
  out.add(std::string(sizeof(T) == 4 ? "rowdot.float" : "rowdot.double") + ".R" + std::to_string(R),
          fixed.data(), fixed.size());
  loom::set_deterministic(false);
  x(i) = loom::sum(k, U(i, k) * V(i, k));
  for (std::int64_t a = 0; a < n; ++a) {
    double want = 0, scale = 0;
    for (std::int64_t q = 0; q < R; ++q) {
      want += static_cast<double>(U.at(a, q)) * static_cast<double>(V.at(a, q));
      scale += std::abs(static_cast<double>(U.at(a, q)) * static_cast<double>(V.at(a, q)));
    }
    const double tol = sizeof(T) == 4 ? 1e-5 * scale / 1e-9 : scale;
    out.expect(close(static_cast<double>(fixed[static_cast<std::size_t>(a)]), want, tol),
               "row dot (deterministic) differs from the plain loop, R = " + std::to_string(R));
    out.expect(close(static_cast<double>(x.at(a)), want, tol),
               "row dot (lanes) differs from the plain loop, R = " + std::to_string(R));
  }
}

void sddmm_and_spmm(results& out, std::int64_t R) {
  const std::int64_t n = 12;
  std::vector<std::array<std::int64_t, 2>> crd;
  std::vector<double> vals;
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t b = (a * 5) % 3; b < n; b += 3) {
      crd.push_back({a, b});
      vals.push_back(next_value());
    }
  const auto S = loom::from_coo<loom::csr>({n, n}, crd, vals);
  const auto U = dense<double>(n, R), V = dense<double>(n, R), W = dense<double>(n, R);
  loom::set_deterministic(true);
  loom::tensor<double, loom::csr> C({n, n});
  C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k));
  out.add("sddmm.R" + std::to_string(R), C.values().data(), C.values().size());
  loom::tensor<double, loom::dense_matrix> D({n, R});
  D(i, k) = loom::sum(j, S(i, j) * U(j, k));
  out.add("spmm.R" + std::to_string(R), D.values().data(), D.values().size());
  D(i, k) = U(i, k) * V(i, k) + W(i, k);  // a product added: no fused multiply-add
  out.add("map.R" + std::to_string(R), D.values().data(), D.values().size());
  loom::set_deterministic(false);
  loom::tensor<double, loom::csr> E({n, n});
  E(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k));
  for (std::size_t p = 0; p < C.values().size(); ++p) {
    double scale = 0;
    const std::int64_t a = crd[p][0], b = crd[p][1];
    for (std::int64_t q = 0; q < R; ++q) scale += std::abs(U.at(a, q) * V.at(b, q));
    out.expect(close(C.values()[p], E.values()[p], scale * std::abs(vals[p])),
               "SDDMM: the target's lanes and the fixed ones differ beyond rounding");
  }
}
}  // namespace

int main(int argc, char** argv) {
#if defined(__AVX512F__)
  if (!__builtin_cpu_supports("avx512f")) return 77;
#elif defined(__AVX2__)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 77;
#endif
  if (argc != 3 ||
      (std::strcmp(argv[1], "--write") != 0 && std::strcmp(argv[1], "--compare") != 0)) {
    std::fprintf(stderr, "usage: lane_bits --write FILE | --compare FILE\n");
    return 2;
  }
  loom::set_num_threads(1);
  results out;
  for (std::int64_t R : {1, 3, 7, 8, 9, 13, 16, 31, 33, 64, 100}) {
    row_dots<double>(out, R);
    row_dots<float>(out, R);
    sddmm_and_spmm(out, R);
  }
  std::printf("lane_bits: %d lanes of double, %zu results\n", loom::stream::lanes::width<double>,
              out.lines.size());
  if (std::strcmp(argv[1], "--write") == 0) {
    std::ofstream f(argv[2]);
    for (const auto& line : out.lines) f << line << "\n";
    if (!f) {
      std::fprintf(stderr, "lane_bits: cannot write %s\n", argv[2]);
      return 1;
    }
  } else {
    std::ifstream f(argv[2]);
    if (!f) {
      std::fprintf(stderr, "lane_bits: cannot read %s (the SSE2 build writes it)\n", argv[2]);
      return 1;
    }
    std::string line;
    std::size_t q = 0;
    for (; std::getline(f, line); ++q)
      out.expect(q < out.lines.size() && line == out.lines[q],
                 "bits differ from the other lane width: " + line + " vs " +
                     (q < out.lines.size() ? out.lines[q] : std::string("(none)")));
    out.expect(q == out.lines.size(), "the file holds another number of results");
  }
  if (out.failures) std::fprintf(stderr, "lane_bits: %d failures\n", out.failures);
  return out.failures ? 1 : 0;
}
