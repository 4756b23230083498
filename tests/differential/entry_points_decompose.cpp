// Differential tests of loom::decompose on a chain (the planner's choice and each forced candidate,
// with sorted and with dense intermediates) and on a map of it, against the dense reference
// (entry_points.hpp's check_decompose); moved from entry_points.cpp (one unit per
// entry point; a triangle and a sum over + in entry_points_decompose_joins.cpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "entry_points.hpp"
#include <support/compare.hpp>

namespace {
using namespace loom_test_entry_points;  // check_decompose, i, j, k, l, square
}  // namespace

// ------------------------------------------------------------------------------------------------
// loom::decompose: a chain (nested sums), a map at the root
// ------------------------------------------------------------------------------------------------

TEST_CASE("entry points: loom::decompose of a chain, every candidate, and of a map of it") {
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density db, lt::density dc) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<double, loom::csr>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto B = lt::random_tensor<double, loom::dcsr>({e[1], e[2]}, db, lt::mix_seed(seed, 2));
    const auto C =
        lt::random_tensor<double, loom::dense_matrix>({e[2], e[3]}, dc, lt::mix_seed(seed, 3));
    const lt::density dm = lt::rotated_density(2, seed);
    auto M = lt::random_tensor<double, loom::csr>({e[0], e[3]}, dm, lt::mix_seed(seed, 100));
    auto ctx = context_of<loom::csr, loom::dcsr, loom::dense_matrix, loom::csr>(
        seed, e, lt::densities_text({{"A", da}, {"B", db}, {"C", dc}, {"M(before)", dm}}), "A", "B",
        "C", "M");
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    ctx.expression = "M(i,l) = sum(j, sum(k, A(i,j) * B(j,k) * C(k,l)))";
    check_decompose<true>(M(i, l), rhs, ctx);
    // the sums decomposed (the same instantiation), then f applied
    ctx.expression = "M(i,l) = map(square, sum(j, sum(k, A(i,j) * B(j,k) * C(k,l))))";
    check_decompose<false>(M(i, l), loom::map(square, rhs), ctx);
  });
}
