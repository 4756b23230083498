// SuiteSparse:GraphBLAS as a peer (optional: built only when CMake finds the library, which
// defines LOOM_BENCH_HAVE_GRAPHBLAS=1): copies of loom's operands as GrB objects, and the error
// check. The library runs in its default non-blocking mode; every timed call ends with
// GrB_wait(MATERIALIZE), so that pending work (and the sort of a jumbled result) is timed.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_PEERS_GRAPHBLAS_HPP
#define LOOM_BENCHMARKS_PEERS_GRAPHBLAS_HPP

#if LOOM_BENCH_HAVE_GRAPHBLAS

#  include "../runtime/support.hpp"
#  include "kernels.hpp"

// Debian's GraphBLAS.h (7.4) declares its C functions without extern "C"
extern "C" {
#  include <GraphBLAS.h>
}

#  include <cstdlib>
#  include <cstring>
#  include <string>
#  include <vector>

namespace loom_peers::grb {

inline void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS && info != GrB_NO_VALUE)
    loom_bench::fail(std::string("GraphBLAS: ") + what + " failed with GrB_Info " +
                     std::to_string(static_cast<int>(info)));
}

/// Starts GraphBLAS once and sets its thread count.
inline void init(int threads) {
  static bool started = false;
  if (!started) {
    check(GrB_init(GrB_NONBLOCKING), "GrB_init");
    started = true;
  }
  check(GxB_Global_Option_set_INT32(GxB_GLOBAL_NTHREADS, threads), "GxB_set(GxB_NTHREADS)");
}

/// An owning GrB_Matrix handle.
struct matrix {
  GrB_Matrix m = nullptr;
  matrix() = default;
  explicit matrix(GrB_Index rows, GrB_Index cols) {
    check(GrB_Matrix_new(&m, GrB_FP64, rows, cols), "GrB_Matrix_new");
  }
  matrix(const matrix&) = delete;
  matrix& operator=(const matrix&) = delete;
  matrix(matrix&& o) noexcept : m(o.m) { o.m = nullptr; }
  matrix& operator=(matrix&& o) noexcept {
    std::swap(m, o.m);
    return *this;
  }
  ~matrix() {
    if (m) GrB_Matrix_free(&m);
  }
  operator GrB_Matrix() const { return m; }
};

struct vector {
  GrB_Vector v = nullptr;
  vector() = default;
  vector(const vector&) = delete;
  vector& operator=(const vector&) = delete;
  ~vector() {
    if (v) GrB_Vector_free(&v);
  }
  operator GrB_Vector() const { return v; }
};

/// A copy of a loom CSR matrix (held by row, GraphBLAS' default).
inline matrix from_csr(const csr_t& A) {
  const auto& lv = A.level<1>();
  const auto rows = static_cast<std::size_t>(A.extent(0));
  std::vector<GrB_Index> I(static_cast<std::size_t>(A.nnz())), J(I.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (auto p = lv.pos[r]; p < lv.pos[r + 1]; ++p) {
      I[static_cast<std::size_t>(p)] = r;
      J[static_cast<std::size_t>(p)] = static_cast<GrB_Index>(lv.crd[static_cast<std::size_t>(p)]);
    }
  matrix M(static_cast<GrB_Index>(A.extent(0)), static_cast<GrB_Index>(A.extent(1)));
  check(GrB_Matrix_build_FP64(M, I.data(), J.data(), A.values().data(), I.size(), GrB_PLUS_FP64),
        "GrB_Matrix_build");
  check(GrB_Matrix_wait(M, GrB_MATERIALIZE), "GrB_wait");
  return M;
}

/// A full (dense, row-major) copy of a loom dense matrix.
inline matrix from_dense(const mat_t& U) {
  const std::size_t bytes = U.values().size() * sizeof(double);
  void* x = std::malloc(bytes);
  std::memcpy(x, U.values().data(), bytes);
  matrix M;
  check(GxB_Matrix_import_FullR(&M.m, GrB_FP64, static_cast<GrB_Index>(U.extent(0)),
                                static_cast<GrB_Index>(U.extent(1)), &x, bytes, false, nullptr),
        "GxB_Matrix_import_FullR");
  return M;
}

inline void from_dense(vector& v, const double* data, std::size_t n) {
  void* x = std::malloc(n * sizeof(double));
  std::memcpy(x, data, n * sizeof(double));
  check(GxB_Vector_import_Full(&v.v, GrB_FP64, n, &x, n * sizeof(double), false, nullptr),
        "GxB_Vector_import_Full");
}

/// The entries of a GraphBLAS matrix as sorted CSR arrays (for the result checks).
inline loom_bench::csr_arrays to_csr(GrB_Matrix M) {
  GrB_Index rows = 0, cols = 0, nvals = 0;
  check(GrB_Matrix_nrows(&rows, M), "GrB_Matrix_nrows");
  check(GrB_Matrix_ncols(&cols, M), "GrB_Matrix_ncols");
  check(GrB_Matrix_nvals(&nvals, M), "GrB_Matrix_nvals");
  std::vector<GrB_Index> I(nvals), J(nvals);
  std::vector<double> X(nvals);
  check(GrB_Matrix_extractTuples_FP64(I.data(), J.data(), X.data(), &nvals, M),
        "GrB_Matrix_extractTuples");
  std::vector<std::size_t> order(nvals);
  for (std::size_t k = 0; k < nvals; ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return I[a] != I[b] ? I[a] < I[b] : J[a] < J[b]; });
  loom_bench::csr_arrays c;
  c.rows = static_cast<std::int64_t>(rows);
  c.cols = static_cast<std::int64_t>(cols);
  c.pos.assign(rows + 1, 0);
  for (std::size_t k : order) {
    ++c.pos[I[k] + 1];
    c.crd.push_back(static_cast<std::int32_t>(J[k]));
    c.val.push_back(X[k]);
  }
  for (std::size_t r = 0; r < rows; ++r) c.pos[r + 1] += c.pos[r];
  return c;
}

/// A dense copy of a GraphBLAS vector (absent entries read as zero).
inline std::vector<double> to_dense(GrB_Vector v, std::size_t n) {
  GrB_Index nvals = 0;
  check(GrB_Vector_nvals(&nvals, v), "GrB_Vector_nvals");
  std::vector<GrB_Index> I(nvals);
  std::vector<double> X(nvals), out(n, 0.0);
  check(GrB_Vector_extractTuples_FP64(I.data(), X.data(), &nvals, v), "GrB_Vector_extractTuples");
  for (std::size_t k = 0; k < nvals; ++k) out[I[k]] = X[k];
  return out;
}

}  // namespace loom_peers::grb

#endif  // LOOM_BENCH_HAVE_GRAPHBLAS
#endif  // LOOM_BENCHMARKS_PEERS_GRAPHBLAS_HPP
