// Differential tests of sums of mappings against the dense reference (on a built-in CSR copy):
// a symmetric matrix stored as lower_packed + transposed(strict_lower_packed) over one packed
// array, and a lower-triangular one as diagonal + strict_lower_compact; programs distributed
// over the sum (STOREL: sum over e1 + e2 = sum over e1 + sum over e2), one kernel per term.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_FORMAT_MAPPING_DIFFERENTIAL_SUM_HPP
#define LOOM_TESTS_FORMAT_MAPPING_DIFFERENTIAL_SUM_HPP

#include <span>
#include <vector>

#include "differential.hpp"

namespace sum_test {

namespace lm = loom::mapping;
namespace lt = loom::test;
using mapping_test::i;
using mapping_test::j;
using mapping_test::k;

// Runs the kernels over the sum S (terms built by `make` from the data) for every size, density
// and seed; `symmetric`: the data is mirrored, else it is lower-triangular.
template <class Make> inline int run_sum(const std::string& name, bool symmetric, Make&& make) {
  int cases = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    for (const lt::density d : lt::all_densities) {
      const std::int64_t n =
          mapping_test::sizes[(seed + static_cast<std::uint64_t>(d)) % mapping_test::sizes.size()];
      const auto data = mapping_test::structured(
          n, d, lt::mix_seed(seed, 9), [](std::int64_t r, std::int64_t c) { return c <= r; },
          symmetric);
      const auto R = lt::build<loom::csr>(data);
      lt::case_context ctx{
          "", name, "double", std::string(lt::density_name(d)), seed, std::to_string(n)};
      make(n, data, [&](const auto& S) {
        const auto x =
            lt::random_tensor<double, loom::dense_vector>({n}, lt::density::full, seed + 11);
        const auto B =
            lt::random_tensor<double, loom::csr>({n, n}, lt::rotated_density(2, seed), seed + 13);
        const auto D =
            lt::random_tensor<double, loom::dense_matrix>({n, 3}, lt::density::full, seed + 14);
        auto compare = [&](const std::string& what, auto out, auto&& program, int kernels) {
          ctx.expression = what;
          const auto want = lt::reference_eval(out, program(R));
          int ran_kernels = 0;
          const bool ran =
              lt::run_guarded(ctx, [&] { ran_kernels = lm::assign_distributed(out, program, S); });
          CHECK((ran && lt::check_tensor(*out.tensor, want, ctx)));
          CHECK(ran_kernels == kernels);
          ++cases;
        };
        loom::tensor<double, loom::dense_vector> y({n});
        compare(
            "y(i) = sum(j, S(i,j) * x(j))", y(i),
            [&](const auto& A) { return loom::sum(j, A(i, j) * x(j)); }, 2);
        compare(
            "y(j) = sum(i, S(i,j) * x(i))", y(j),
            [&](const auto& A) { return loom::sum(i, A(i, j) * x(i)); }, 2);
        loom::tensor<double, loom::dcsr> C({n, n});
        compare(
            "C(i,j) = S(i,j) * B(i,j)", C(i, j), [&](const auto& A) { return A(i, j) * B(i, j); },
            2);
        loom::tensor<double, loom::dense_matrix> F({n, 3});
        compare(
            "F(i,k) = sum(j, S(i,j) * D(j,k))", F(i, k),
            [&](const auto& A) { return loom::sum(j, A(i, j) * D(j, k)); }, 2);
        loom::tensor<double, loom::format<>> s;
        compare(
            "s = sum(i, sum(j, S(i,j)))", s(),
            [&](const auto& A) { return loom::sum(i, loom::sum(j, A(i, j))); }, 2);
        // not linear in S: the sum is materialised, one kernel
        loom::tensor<double, loom::dense_matrix> G({n, n});
        compare(
            "G(i,j) = S(i,j) * S(i,j)", G(i, j), [&](const auto& A) { return A(i, j) * A(i, j); },
            1);
      });
    }
  return cases;
}

}  // namespace sum_test

#endif  // LOOM_TESTS_FORMAT_MAPPING_DIFFERENTIAL_SUM_HPP
