// Differential tests of loom::matrix_chain in every order, factors of several formats and
// densities, against the dense reference (support/reference.hpp); moved from entry_points.cpp
// (one unit per entry point).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "entry_points.hpp"
#include <support/compare.hpp>

namespace {
using namespace loom_test_entry_points;  // a case's description, the indices i, j, k, l
constexpr loom::index<"m"> m;
}  // namespace

// ------------------------------------------------------------------------------------------------
// loom::matrix_chain: every order, factors of several formats and densities
// ------------------------------------------------------------------------------------------------

TEST_CASE("entry points: loom::matrix_chain in every order against the dense reference") {
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density db, lt::density dc) {
    const auto e = lt::extents_for_seed(seed);
    const lt::density dd = lt::rotated_density(5, seed);
    const auto A =
        lt::random_tensor<double, loom::dense_matrix>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto B = lt::random_tensor<double, loom::dcsr>({e[1], e[2]}, db, lt::mix_seed(seed, 2));
    const auto C = lt::random_tensor<double, loom::csr>({e[2], e[3]}, dc, lt::mix_seed(seed, 3));
    // D has 3 columns, so the orders differ: ((AB)C)D, A(B(CD)) and (AB)(CD) all occur
    const auto D = lt::random_tensor<double, loom::csc>({e[3], 3}, dd, lt::mix_seed(seed, 4));
    loom::tensor<double, loom::dense_matrix> shape({e[0], 3});
    const auto expected =
        lt::reference_eval(shape(i, m), loom::sum(j, k, l, A(i, j) * B(j, k) * C(k, l) * D(l, m)));
    auto ctx = context_of<loom::dense_matrix, loom::dcsr, loom::csr, loom::csc>(
        seed, e, lt::densities_text({{"A", da}, {"B", db}, {"C", dc}, {"D", dd}}), "A", "B", "C",
        "D");
    for (const auto order : {loom::chain_order::optimized, loom::chain_order::greedy,
                             loom::chain_order::left_to_right}) {
      ctx.expression = lt::concat("matrix_chain(",
                                  order == loom::chain_order::optimized ? "optimized"
                                  : order == loom::chain_order::greedy  ? "greedy"
                                                                        : "left_to_right",
                                  ", A, B, C, D)");
      std::optional<loom::tensor<double, loom::csr>> M;
      if (lt::run_guarded(ctx, [&] { M.emplace(loom::matrix_chain(order, A, B, C, D)); }))
        lt::check_tensor(*M, expected, ctx);
    }
  });
}
