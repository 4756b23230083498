// examples/scipy: a loom kernel on scipy.sparse's own arrays (indptr, indices, data), without a
// copy and without pybind11: a C function over loom's views, loaded with ctypes (spmv.py).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cstdint>

extern "C" void loom_spmv(std::int64_t rows, std::int64_t cols, const std::int32_t* indptr,
                          const std::int32_t* indices, const double* data, const double* x,
                          double* y) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  const auto nnz = static_cast<std::size_t>(indptr[rows]);
  const auto A = loom::csr_view<const double, std::int32_t, std::int32_t>(
      rows, cols, {indptr, static_cast<std::size_t>(rows) + 1}, {indices, nnz}, {data, nnz});
  const auto xv = loom::dense_vector_view<const double>({x, static_cast<std::size_t>(cols)});
  auto yv = loom::dense_vector_view<double>({y, static_cast<std::size_t>(rows)});
  yv(i) = loom::sum(j, A(i, j) * xv(j));
}
