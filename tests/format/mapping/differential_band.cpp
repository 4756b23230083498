// Differential tests of the band, tridiagonal and Z-order mappings against the dense reference
// (on a built-in CSR copy): 24 cases x 8 or 4 kernels per mapping.
// SPDX-License-Identifier: BSL-1.0
#include "differential.hpp"

TEST_CASE("differential mapping: band<2>") {
  CHECK(mapping_test::run_differential<loom::mapping::band<2>>(
            "A=band<2>", [](std::int64_t r, std::int64_t c) { return std::abs(r - c) <= 2; }) ==
        192);
}
TEST_CASE("differential mapping: tridiagonal") {
  CHECK(mapping_test::run_differential<loom::mapping::tridiagonal, false>(
            "A=tridiagonal", [](std::int64_t r, std::int64_t c) { return std::abs(r - c) <= 1; }) ==
        96);
}
TEST_CASE("differential mapping: zorder") {
  CHECK(mapping_test::run_differential<loom::mapping::zorder, false>(
            "A=zorder", [](std::int64_t, std::int64_t) { return true; }) == 96);
}
