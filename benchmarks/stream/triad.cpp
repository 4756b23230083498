// A STREAM-like memory-bandwidth measurement: McCalpin's four kernels (copy,
// scale, add, triad) on three arrays of doubles far larger than the last-level cache, with the
// thread count given on the command line. The triad's best rate is the bandwidth peak that
// BENCHMARKS.md measures memory-bound kernels (SpMV, SDDMM) against.
//
// Method, as in STREAM: each kernel runs `trials` times; the rate is bytes counted by STREAM's
// rule (copy, scale: 16 B per element; add, triad: 24 B; write-allocate traffic not counted)
// divided by the time of one run; the best (minimum-time) run is the headline, the median is
// kept too. Arrays are first touched by the threads that use them (first-touch placement). The
// result is checked against the closed-form values of the arrays after all trials.
//
// usage: stream_triad [--threads=N] [--elements=N] [--trials=N] [--out=FILE.json]
// SPDX-License-Identifier: BSL-1.0
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#ifdef _OPENMP
#  include <omp.h>
#endif

namespace {

struct result {
  const char* name;
  double bytes_per_element;
  std::vector<double> seconds;
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string arg(int argc, char** argv, const char* name, const char* fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int k = 1; k < argc; ++k)
    if (std::strncmp(argv[k], prefix.c_str(), prefix.size()) == 0) return argv[k] + prefix.size();
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = std::max(1, std::atoi(arg(argc, argv, "threads", "1").c_str()));
  // default: 3 x 160 MB, each array 5x the 32 MiB L3 (STREAM asks for 4x)
  const long n = std::atol(arg(argc, argv, "elements", "20000000").c_str());
  const int trials = std::max(2, std::atoi(arg(argc, argv, "trials", "10").c_str()));
  const std::string out = arg(argc, argv, "out", "");
#ifdef _OPENMP
  omp_set_num_threads(threads);
#else
  if (threads != 1) std::fprintf(stderr, "stream_triad: built without OpenMP, running 1 thread\n");
#endif
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  double* const A = a.get();
  double* const B = b.get();
  double* const C = c.get();
  const double scalar = 3.0;
#pragma omp parallel for schedule(static)
  for (long j = 0; j < n; ++j) {
    A[j] = 1.0;
    B[j] = 2.0;
    C[j] = 0.0;
  }
  std::vector<result> results = {
      {"copy", 16, {}}, {"scale", 16, {}}, {"add", 24, {}}, {"triad", 24, {}}};
  for (int t = 0; t < trials; ++t) {
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; ++j) C[j] = A[j];
    results[0].seconds.push_back(now() - t0);
    t0 = now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; ++j) B[j] = scalar * C[j];
    results[1].seconds.push_back(now() - t0);
    t0 = now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; ++j) C[j] = A[j] + B[j];
    results[2].seconds.push_back(now() - t0);
    t0 = now();
#pragma omp parallel for schedule(static)
    for (long j = 0; j < n; ++j) A[j] = B[j] + scalar * C[j];
    results[3].seconds.push_back(now() - t0);
  }
  // the values STREAM's kernels leave behind
  double ea = 1.0, eb = 2.0, ec = 0.0;
  for (int t = 0; t < trials; ++t) {
    ec = ea;
    eb = scalar * ec;
    ec = ea + eb;
    ea = eb + scalar * ec;
  }
  for (long j = 0; j < n; j += std::max(1L, n / 1000))
    if (std::abs(A[j] - ea) > 1e-8 * ea || std::abs(B[j] - eb) > 1e-8 * eb ||
        std::abs(C[j] - ec) > 1e-8 * ec) {
      std::fprintf(stderr, "stream_triad: wrong result at %ld\n", j);
      return 1;
    }
  std::string json = "{\n \"threads\": " + std::to_string(threads) +
                     ",\n \"elements\": " + std::to_string(n) +
                     ",\n \"array_bytes\": " + std::to_string(n * 8) +
                     ",\n \"trials\": " + std::to_string(trials) + ",\n \"kernels\": {";
  std::printf("STREAM-like, %d thread(s), %ld doubles per array (%.0f MB), %d trials\n", threads, n,
              n * 8 / 1e6, trials);
  for (std::size_t k = 0; k < results.size(); ++k) {
    auto& r = results[k];
    std::vector<double> s(r.seconds.begin() + 1, r.seconds.end());  // the first trial warms up
    std::sort(s.begin(), s.end());
    const double bytes = r.bytes_per_element * static_cast<double>(n);
    const double best = bytes / s.front() / 1e9, median = bytes / s[s.size() / 2] / 1e9;
    std::printf("  %-6s best %7.2f GB/s  median %7.2f GB/s\n", r.name, best, median);
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%s\n  \"%s\": {\"best_GBps\": %.3f, \"median_GBps\": %.3f, \"min_s\": %.6f}",
                  k ? "," : "", r.name, best, median, s.front());
    json += buf;
  }
  json += "\n }\n}\n";
  if (!out.empty()) {
    FILE* f = std::fopen(out.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "stream_triad: cannot write %s\n", out.c_str());
      return 1;
    }
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  return 0;
}
