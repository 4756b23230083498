// Shared machinery of the runtime benchmarks: deterministic generators, a Matrix Market reader,
// conversions to Eigen, result checks, and the registration helper that names benchmarks
// BM_<kernel>/<input>/<impl>.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_RUNTIME_SUPPORT_HPP
#define LOOM_BENCHMARKS_RUNTIME_SUPPORT_HPP

#include <loom/loom.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/SparseCore>
#include <benchmark/benchmark.h>

#ifndef LOOM_BENCH_DATA_DIR
#  define LOOM_BENCH_DATA_DIR "data/matrices"  // run from the repository root
#endif

namespace loom_bench {

// Random numbers ---------------------------------------------------------------------------------
// splitmix64: the same stream on every standard library (std distributions are not portable).
struct rng {
  std::uint64_t state;
  // the seed is hashed, so that nearby seeds do not give shifted copies of one sequence
  explicit rng(std::uint64_t seed) : state(mix(seed ^ 0x632BE59BD9B4E019ull)) {}
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t next() { return mix(state += 0x9E3779B97F4A7C15ull); }
  /// uniform in [0, n)
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(
        (static_cast<unsigned __int128>(next()) * static_cast<std::uint64_t>(n)) >> 64);
  }
  /// uniform in [0.5, 1.5): never zero, so no entry cancels
  double value() { return 0.5 + static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// Coordinate lists -------------------------------------------------------------------------------
/// Entries of an order-N tensor, coordinates in logical order.
template <std::size_t N> struct entries {
  std::array<std::int64_t, N> shape{};
  std::vector<std::array<std::int64_t, N>> crd;
  std::vector<double> val;
};

/// `count` distinct sorted values drawn uniformly from [0, n) (count <= n).
inline std::vector<std::int64_t> distinct_sorted(rng& g, std::int64_t n, std::int64_t count) {
  std::vector<std::int64_t> v;
  if (count * 4 > n) {  // dense enough: a Bernoulli walk over [0, n) hits `count` on average
    v.reserve(static_cast<std::size_t>(count));
    std::int64_t need = count;
    for (std::int64_t x = 0; x < n && need > 0; ++x)
      if (g.below(n - x) < need) {  // selection sampling (Knuth's algorithm S): exactly `count`
        v.push_back(x);
        --need;
      }
    return v;
  }
  v.reserve(static_cast<std::size_t>(count + count / 8 + 8));
  while (static_cast<std::int64_t>(v.size()) < count) {
    const std::int64_t missing = count - static_cast<std::int64_t>(v.size());
    for (std::int64_t t = 0; t < missing; ++t) v.push_back(g.below(n));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  if (static_cast<std::int64_t>(v.size()) > count) v.resize(static_cast<std::size_t>(count));
  return v;
}

/// An m x n matrix whose rows hold between per_row/2 and 3*per_row/2 uniformly placed entries;
/// entries come sorted row-major (or column-major when `by_column`, rows and columns swapped).
inline entries<2> random_matrix(std::int64_t m, std::int64_t n, std::int64_t per_row,
                                std::uint64_t seed, bool by_column = false) {
  rng g(seed);
  entries<2> e;
  e.shape = {m, n};
  const std::int64_t outer = by_column ? n : m, inner = by_column ? m : n;
  e.crd.reserve(static_cast<std::size_t>(outer * per_row));
  e.val.reserve(static_cast<std::size_t>(outer * per_row));
  for (std::int64_t o = 0; o < outer; ++o) {
    const std::int64_t count = std::min(inner, per_row / 2 + g.below(per_row + 1));
    for (std::int64_t c : distinct_sorted(g, inner, count)) {
      e.crd.push_back(by_column ? std::array<std::int64_t, 2>{c, o}
                                : std::array<std::int64_t, 2>{o, c});
      e.val.push_back(g.value());
    }
  }
  return e;
}

/// A vector of length n with `count` uniformly placed entries.
inline entries<1> random_vector(std::int64_t n, std::int64_t count, std::uint64_t seed) {
  rng g(seed);
  entries<1> e;
  e.shape = {n};
  for (std::int64_t c : distinct_sorted(g, n, count)) {
    e.crd.push_back({c});
    e.val.push_back(g.value());
  }
  return e;
}

/// An n0 x n1 x n2 tensor with about `nnz` uniform entries, sorted (duplicates drawn are merged).
inline entries<3> random_tensor3(std::array<std::int64_t, 3> shape, std::int64_t nnz,
                                 std::uint64_t seed) {
  rng g(seed);
  entries<3> e;
  e.shape = shape;
  const std::int64_t plane = shape[1] * shape[2];
  std::vector<std::int64_t> flat = distinct_sorted(g, shape[0] * plane, nnz);
  e.crd.reserve(flat.size());
  e.val.reserve(flat.size());
  for (std::int64_t f : flat) {
    e.crd.push_back({f / plane, (f / shape[2]) % shape[1], f % shape[2]});
    e.val.push_back(g.value());
  }
  return e;
}

// Matrix Market ----------------------------------------------------------------------------------
/// Where the real matrices live: $LOOM_BENCH_DATA, else the configured folder.
inline std::string data_dir() {
  if (const char* d = std::getenv("LOOM_BENCH_DATA")) return d;
  return LOOM_BENCH_DATA_DIR;
}

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "loom benchmark: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// A small reader of coordinate Matrix Market files (real, integer or pattern; general or
/// symmetric; pattern entries read as 1), used until loom's own reader (io/) is there.
inline entries<2> read_mtx(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail("cannot open " + path);
  std::string line;
  std::getline(in, line);
  std::istringstream banner(line);
  std::string mm, object, layout, field, symmetry;
  banner >> mm >> object >> layout >> field >> symmetry;
  for (std::string* s : {&layout, &field, &symmetry})
    std::transform(s->begin(), s->end(), s->begin(),
                   [](unsigned char c) { return std::tolower(c); });
  if (layout != "coordinate" || field == "complex" ||
      (symmetry != "general" && symmetry != "symmetric"))
    fail(path + ": only coordinate real/integer/pattern general/symmetric files are supported");
  const bool pattern = field == "pattern", symmetric = symmetry == "symmetric";
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  entries<2> e;
  std::int64_t nnz = 0;
  std::istringstream size(line);
  size >> e.shape[0] >> e.shape[1] >> nnz;
  e.crd.reserve(static_cast<std::size_t>(symmetric ? 2 * nnz : nnz));
  for (std::int64_t k = 0; k < nnz; ++k) {
    std::int64_t r = 0, c = 0;
    double v = 1;
    if (!(in >> r >> c)) fail(path + ": truncated after " + std::to_string(k) + " entries");
    if (!pattern) in >> v;
    e.crd.push_back({r - 1, c - 1});
    e.val.push_back(v);
    if (symmetric && r != c) {
      e.crd.push_back({c - 1, r - 1});
      e.val.push_back(v);
    }
  }
  return e;
}

/// A real matrix's entries: through loom's reader when io/ is there (dogfooding it), else
/// through read_mtx.
inline entries<2> load_matrix(const std::string& path) {
#if __has_include(<loom/io.hpp>)
  const auto A = loom::read_matrix_market<double, loom::csr>(path);
  entries<2> e;
  e.shape = A.shape();
  A.for_each_stored([&](const auto& c, double v) {
    e.crd.push_back({c[0], c[1]});
    e.val.push_back(v);
  });
  return e;
#else
  return read_mtx(path);
#endif
}

/// The real matrices of the suite that are present (name, path).
inline std::vector<std::pair<std::string, std::string>> real_matrices() {
  std::vector<std::pair<std::string, std::string>> found;
  for (const char* name : {"bcsstk13", "cryg2500", "pushpull", "zenios"}) {
    const std::string path = data_dir() + "/" + name + ".mtx";
    if (std::filesystem::exists(path))
      found.emplace_back(name, path);
    else
      std::fprintf(stderr, "loom benchmark: %s not found, its benchmarks are skipped\n",
                   path.c_str());
  }
  return found;
}

// loom and Eigen copies of the same entries --------------------------------------------------------
template <class Format, std::size_t N> loom::tensor<double, Format> to_loom(const entries<N>& e) {
  return loom::from_coo<Format>(e.shape, e.crd, e.val, loom::duplicates::sum);
}

/// The CSR (or CSC: Eigen column-major) arrays of a loom matrix, copied into Eigen storage.
template <int Options, class Tensor>
Eigen::SparseMatrix<double, Options, int> to_eigen(const Tensor& A) {
  const auto& lv = A.template level<1>();
  const std::int64_t outer = A.template level<0>().extent;
  const std::int64_t inner = A.template level_extent<1>();
  const std::int64_t rows = Options == Eigen::RowMajor ? outer : inner;
  const std::int64_t cols = Options == Eigen::RowMajor ? inner : outer;
  Eigen::SparseMatrix<double, Options, int> M(rows, cols);
  M.resizeNonZeros(static_cast<Eigen::Index>(A.nnz()));
  for (std::int64_t p = 0; p <= outer; ++p) M.outerIndexPtr()[p] = static_cast<int>(lv.pos[p]);
  std::copy(lv.crd.begin(), lv.crd.end(), M.innerIndexPtr());
  std::copy(A.values().begin(), A.values().end(), M.valuePtr());
  return M;
}

inline Eigen::SparseVector<double> to_eigen_vector(const entries<1>& e) {
  Eigen::SparseVector<double> v(static_cast<Eigen::Index>(e.shape[0]));
  v.reserve(static_cast<Eigen::Index>(e.crd.size()));
  for (std::size_t k = 0; k < e.crd.size(); ++k)
    v.insertBack(static_cast<Eigen::Index>(e.crd[k][0])) = e.val[k];
  return v;
}

inline std::vector<double> dense_values(std::int64_t n, std::uint64_t seed) {
  rng g(seed);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = g.value();
  return v;
}

// Checks -------------------------------------------------------------------------------------------
inline bool close(double a, double b, double rel = 1e-12) {
  return std::abs(a - b) <= rel * std::max({1.0, std::abs(a), std::abs(b)});
}

/// Aborts unless the two arrays agree entry by entry (relative tolerance `rel`).
template <class A, class B>
void check_values(const std::string& what, const A& got, const B& want, double rel = 1e-12) {
  const auto n = static_cast<std::size_t>(got.size()),
             n_want = static_cast<std::size_t>(want.size());
  if (n != n_want)
    fail(what + ": " + std::to_string(n) + " values, expected " + std::to_string(n_want));
  for (std::size_t k = 0; k < n; ++k)
    if (!close(static_cast<double>(got[k]), static_cast<double>(want[k]), rel))
      fail(what + ": value " + std::to_string(k) + " is " + std::to_string(got[k]) + ", expected " +
           std::to_string(want[k]));
}

template <class A, class B> void check_exact(const std::string& what, const A& got, const B& want) {
  const auto n = static_cast<std::size_t>(got.size()),
             n_want = static_cast<std::size_t>(want.size());
  if (n != n_want)
    fail(what + ": " + std::to_string(n) + " entries, expected " + std::to_string(n_want));
  for (std::size_t k = 0; k < n; ++k)
    if (static_cast<std::int64_t>(got[k]) != static_cast<std::int64_t>(want[k]))
      fail(what + ": entry " + std::to_string(k) + " is " + std::to_string(got[k]) + ", expected " +
           std::to_string(want[k]));
}

inline void check_scalar(const std::string& what, double got, double want, double rel = 1e-12) {
  if (!close(got, want, rel))
    fail(what + ": " + std::to_string(got) + ", expected " + std::to_string(want));
}

// Hand-written CSR (the baseline's own output type) ----------------------------------------------
struct csr_arrays {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> pos;
  std::vector<std::int32_t> crd;
  std::vector<double> val;
};

/// The hand-written baselines of the runtime and peer suites, on loom's own CSR arrays.
/// C = A * B by Gustavson's algorithm (a dense accumulator, touched columns sorted per row).
/// Writes into `c`, keeping its vectors' capacity (as a careful engineer's loop does);
/// the value-returning overload builds a new result.
template <class Csr> void hand_spgemm(const Csr& A, const Csr& B, csr_arrays& c) {
  const auto &a = A.template level<1>(), &b = B.template level<1>();
  const double *av = A.values().data(), *bv = B.values().data();
  c.rows = A.extent(0);
  c.cols = B.extent(1);
  c.pos.resize(static_cast<std::size_t>(c.rows) + 1);
  c.pos[0] = 0;
  c.crd.clear();
  c.val.clear();
  thread_local std::vector<double> acc;
  thread_local std::vector<std::int64_t> mark;
  thread_local std::vector<std::int32_t> touched;
  acc.resize(static_cast<std::size_t>(c.cols));
  mark.assign(static_cast<std::size_t>(c.cols), -1);
  for (std::int64_t r = 0; r < c.rows; ++r) {
    touched.clear();
    for (std::int64_t p = a.pos[r]; p < a.pos[r + 1]; ++p) {
      const std::int64_t kk = a.crd[p];
      const double x = av[p];
      for (std::int64_t q = b.pos[kk]; q < b.pos[kk + 1]; ++q) {
        const std::int32_t col = b.crd[q];
        if (mark[col] != r) {
          mark[col] = r;
          acc[col] = x * bv[q];
          touched.push_back(col);
        } else {
          acc[col] += x * bv[q];
        }
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::int32_t col : touched) {
      c.crd.push_back(col);
      c.val.push_back(acc[col]);
    }
    c.pos[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(c.crd.size());
  }
}
template <class Csr> csr_arrays hand_spgemm(const Csr& A, const Csr& B) {
  csr_arrays c;
  hand_spgemm(A, B, c);
  return c;
}

/// C = A + B: one merge per row, appending to arrays reserved for nnz(A) + nnz(B) entries, into
/// `c` (capacity kept between calls); the value-returning overload builds a new result.
template <class Csr> void hand_add(const Csr& A, const Csr& B, csr_arrays& c) {
  const auto &a = A.template level<1>(), &b = B.template level<1>();
  const double *av = A.values().data(), *bv = B.values().data();
  c.crd.clear();
  c.val.clear();
  c.rows = A.extent(0);
  c.cols = A.extent(1);
  c.pos.resize(static_cast<std::size_t>(c.rows) + 1);
  const auto cap = static_cast<std::size_t>(A.nnz() + B.nnz());
  c.crd.reserve(cap);  // reserved, not resized: no pass zero-filling the arrays
  c.val.reserve(cap);
  c.pos[0] = 0;
  for (std::int64_t r = 0; r < c.rows; ++r) {
    std::int64_t p = a.pos[r], q = b.pos[r];
    const std::int64_t pe = a.pos[r + 1], qe = b.pos[r + 1];
    while (p < pe && q < qe) {
      const std::int32_t x = a.crd[p], y = b.crd[q];
      if (x == y) {
        c.crd.push_back(x);
        c.val.push_back(av[p++] + bv[q++]);
      } else if (x < y) {
        c.crd.push_back(x);
        c.val.push_back(av[p++]);
      } else {
        c.crd.push_back(y);
        c.val.push_back(bv[q++]);
      }
    }
    for (; p < pe; ++p) {
      c.crd.push_back(a.crd[p]);
      c.val.push_back(av[p]);
    }
    for (; q < qe; ++q) {
      c.crd.push_back(b.crd[q]);
      c.val.push_back(bv[q]);
    }
    c.pos[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(c.crd.size());
  }
}
template <class Csr> csr_arrays hand_add(const Csr& A, const Csr& B) {
  csr_arrays c;
  hand_add(A, B, c);
  return c;
}

/// Aborts unless a loom CSR tensor holds exactly the hand-written CSR arrays (values to `rel`).
template <class Tensor>
void check_csr(const std::string& what, const Tensor& C, const csr_arrays& want,
               double rel = 1e-12) {
  check_exact(what + " (pos)", C.template level<1>().pos, want.pos);
  check_exact(what + " (crd)", C.template level<1>().crd, want.crd);
  check_values(what + " (values)", C.values(), want.val, rel);
}

// Registration -------------------------------------------------------------------------------------
/// Registers BM_<kernel>/<input>/<impl>; the caller registers the implementations of one input
/// next to each other, so that they run close together in time.
inline void add(const std::string& kernel, const std::string& input, const std::string& impl,
                std::function<void(benchmark::State&)> body) {
  benchmark::RegisterBenchmark(("BM_" + kernel + "/" + input + "/" + impl).c_str(),
                               [body = std::move(body)](benchmark::State& s) { body(s); })
      ->Unit(benchmark::kMillisecond);
}

/// Labels the benchmark with the work it did (entries touched per second and the input's size).
inline void label(benchmark::State& s, std::int64_t nnz, const std::string& what) {
  s.counters["nnz"] = static_cast<double>(nnz);
  s.SetItemsProcessed(s.iterations() * nnz);
  s.SetLabel(what);
}

/// Runs the benchmarks with the standard command line; returns main's exit code. The runtime
/// suite compares loom with sequential code, so loom runs on one thread unless LOOM_NUM_THREADS
/// asks for more (the peer comparison, peers/, has its own --threads option).
inline int run(int argc, char** argv) {
#if __has_include(<loom/parallel.hpp>)
  if (!std::getenv("LOOM_NUM_THREADS")) loom::set_num_threads(1);
  benchmark::AddCustomContext("loom_threads", std::to_string(loom::num_threads()));
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

/// A lazily built input shared by the implementations of one benchmark group; built (and
/// checked) the first time a benchmark of the group runs, outside any timed loop.
template <class T> class lazy {
 public:
  explicit lazy(std::function<std::unique_ptr<T>()> make) : make_(std::move(make)) {}
  T& get() {
    if (!value_) value_ = make_();
    return *value_;
  }

 private:
  std::function<std::unique_ptr<T>()> make_;
  std::unique_ptr<T> value_;
};

}  // namespace loom_bench

#endif  // LOOM_BENCHMARKS_RUNTIME_SUPPORT_HPP
