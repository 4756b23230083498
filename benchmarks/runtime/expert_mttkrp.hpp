// The MTTKRP baseline as an expert writes it, shared by every benchmark that compares loom with
// it: M(i,r) = sum(j, k, T(i,j,k) B(j,r) C(k,r)) over a CSF tensor, factored as t(r) = sum(k,
// T(i,j,k) C(k,r)) first, then M(i,r) += t(r) B(j,r), each rank loop vectorised (the including
// target compiles with -fopenmp-simd).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_RUNTIME_EXPERT_MTTKRP_HPP
#define LOOM_BENCHMARKS_RUNTIME_EXPERT_MTTKRP_HPP

#include <loom/loom.hpp>

#include <cstdint>
#include <vector>

namespace loom_bench {

/// A row of R doubles in `buffer` (resized) starting on a 64-byte line: a vector store split
/// across two lines is not forwarded to the next load of the row (4x slower at R = 16 when
/// `malloc` placed the temporary badly).
inline double* row_on_own_line(std::vector<double>& buffer, std::int64_t R) {
  buffer.resize(static_cast<std::size_t>(R) + 8);
  const auto misalignment = reinterpret_cast<std::uintptr_t>(buffer.data()) % 64 / 8;
  return buffer.data() + (8 - misalignment) % 8;
}

/// The rows of M of level-0 positions [p0_begin, p0_end) of T, added to M (row-major, R wide);
/// `t` is the temporary row (row_on_own_line). Distinct positions write distinct rows, so
/// threads may take disjoint position ranges, each with its own `t`.
template <class Csf3>
void expert_mttkrp_rows(const Csf3& T, const double* B, const double* C, std::int64_t R, double* M,
                        double* t, std::int64_t p0_begin, std::int64_t p0_end) {
  const auto &l0 = T.template level<0>(), &l1 = T.template level<1>(), &l2 = T.template level<2>();
  const double* tv = T.values().data();
  for (std::int64_t p0 = p0_begin; p0 < p0_end; ++p0) {
    double* mi = M + std::int64_t{l0.crd[p0]} * R;
    for (std::int64_t p1 = l1.pos[p0]; p1 < l1.pos[p0 + 1]; ++p1) {
#pragma omp simd
      for (std::int64_t q = 0; q < R; ++q) t[q] = 0;
      for (std::int64_t p2 = l2.pos[p1]; p2 < l2.pos[p1 + 1]; ++p2) {
        const double* ck = C + std::int64_t{l2.crd[p2]} * R;
        const double x = tv[p2];
#pragma omp simd
        for (std::int64_t q = 0; q < R; ++q) t[q] += x * ck[q];
      }
      const double* bj = B + std::int64_t{l1.crd[p1]} * R;
#pragma omp simd
      for (std::int64_t q = 0; q < R; ++q) mi[q] += t[q] * bj[q];
    }
  }
}

/// M = MTTKRP(T, B, C), serial; M keeps its storage between calls, as does `t_buffer`.
template <class Csf3>
void expert_mttkrp(const Csf3& T, const double* B, const double* C, std::int64_t R,
                   std::vector<double>& M, std::vector<double>& t_buffer) {
  M.assign(static_cast<std::size_t>(T.extent(0) * R), 0.0);
  double* t = row_on_own_line(t_buffer, R);
  const auto& l0 = T.template level<0>();
  expert_mttkrp_rows(T, B, C, R, M.data(), t, l0.pos[0], l0.pos[1]);
}

}  // namespace loom_bench

#endif  // LOOM_BENCHMARKS_RUNTIME_EXPERT_MTTKRP_HPP
