// loom's kernels of the peer comparison, declared here and each defined in its own translation
// unit (kernels/<name>.cpp): the way docs/build-cost.md recommends to keep heavy kernels out of
// the files that call them. Each TU is also linked alone into `binsize.<name>` to measure the
// binary size one kernel adds (tools/binary_size.py).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_PEERS_KERNELS_HPP
#define LOOM_BENCHMARKS_PEERS_KERNELS_HPP

#include <loom/format.hpp>

namespace loom_peers {

using csr_t = loom::tensor<double, loom::csr>;
using vec_t = loom::tensor<double, loom::dense_vector>;
using mat_t = loom::tensor<double, loom::dense_matrix>;
using csf3_t = loom::tensor<double, loom::csf<3>>;

/// y(i) = sum(j, A(i,j) * x(j))
void spmv(const csr_t& A, const vec_t& x, vec_t& y);
/// C(i,j) = sum(k, A(i,k) * B(k,j)), C assembled afresh
void spgemm(const csr_t& A, const csr_t& B, csr_t& C);
/// C(i,j) = A(i,j) + B(i,j), C assembled afresh
void add(const csr_t& A, const csr_t& B, csr_t& C);
/// C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k)), C assembled afresh (the pattern of S)
void sddmm(const csr_t& S, const mat_t& U, const mat_t& V, csr_t& C);
/// M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r))
void mttkrp(const csf3_t& T, const mat_t& B, const mat_t& C, mat_t& M);
/// sum(i, j, k, A(i,j) * A(j,k) * A(i,k)): ordered triangles of a symmetric 0/1 pattern
double triangles(const csr_t& A);

}  // namespace loom_peers

#endif  // LOOM_BENCHMARKS_PEERS_KERNELS_HPP
