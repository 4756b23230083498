// Tests that single_include/loom/loom.hpp stands alone: only it and Boost are on the include path.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#ifndef LOOM_SINGLE_INCLUDE
#  error "not the single header: <loom/loom.hpp> must come from single_include/"
#endif

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

TEST_CASE("single header: SpMV through the public API") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  loom::tensor<double, loom::csr> A = loom::from_coo<loom::csr, double>(
      {3, 3}, std::vector<std::array<std::int64_t, 2>>{{0, 0}, {1, 2}, {2, 1}},
      std::vector<double>{1, 2, 3}, loom::duplicates::error);
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  x.at(0) = 1;
  x.at(1) = 2;
  x.at(2) = 3;
  y(i) = loom::sum(j, A(i, j) * x(j));
  CHECK(y.at(0) == 1);
  CHECK(y.at(1) == 6);
  CHECK(y.at(2) == 6);
}
