// Differential tests of loom::decompose on a triangle (every candidate) and on a sum over a product
// with + in it, against the dense reference (entry_points.hpp's check_decompose); moved from
// entry_points.cpp (no test unit over 30 s). Seeds × densities.
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

TEST_CASE("entry points: loom::decompose of a triangle, every candidate") {
  // three summed indices: more elimination prefixes (15) than loom::limits::elimination_orders
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density db, lt::density dc) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<double, loom::dcsr>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto B = lt::random_tensor<double, loom::csr>({e[1], e[2]}, db, lt::mix_seed(seed, 2));
    const auto C =
        lt::random_tensor<double, loom::dense_matrix>({e[0], e[2]}, dc, lt::mix_seed(seed, 3));
    loom::tensor<double, loom::format<>> s;
    auto ctx = context_of<loom::dcsr, loom::csr, loom::dense_matrix>(
        seed, e, lt::densities_text({{"A", da}, {"B", db}, {"C", dc}}), "A", "B", "C");
    ctx.expression = "s = sum(i, j, k, A(i,j) * B(j,k) * C(i,k))";
    check_decompose<true>(s(), loom::sum(i, j, k, A(i, j) * B(j, k) * C(i, k)), ctx);
  });
}

TEST_CASE("entry points: loom::decompose of a sum over a product with + in it") {
  // distributed into one sum-product per term, the second accumulated into the output
  const lt::case_group group;
  lt::for_each_case(false, [&](std::uint64_t seed, lt::density da, lt::density dx, lt::density dz) {
    const auto e = lt::extents_for_seed(seed);
    const auto A = lt::random_tensor<double, loom::dcsr>({e[0], e[1]}, da, lt::mix_seed(seed, 1));
    const auto x =
        lt::random_tensor<double, loom::sparse_vector>({e[1]}, dx, lt::mix_seed(seed, 2));
    const auto z = lt::random_tensor<double, loom::dense_vector>({e[1]}, dz, lt::mix_seed(seed, 3));
    const lt::density dy = lt::rotated_density(4, seed);
    auto y = lt::random_tensor<double, loom::sparse_vector>({e[0]}, dy, lt::mix_seed(seed, 100));
    auto ctx = context_of<loom::dcsr, loom::sparse_vector, loom::dense_vector, loom::sparse_vector>(
        seed, e, lt::densities_text({{"A", da}, {"x", dx}, {"z", dz}, {"y(before)", dy}}), "A", "x",
        "z", "y");
    ctx.expression = "y(i) = sum(j, A(i,j) * (x(j) + z(j)))";
    check_decompose<false>(y(i), loom::sum(j, A(i, j) * (x(j) + z(j))), ctx);
  });
}
