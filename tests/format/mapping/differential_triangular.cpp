// Differential tests of the triangular and symmetric mappings against the dense reference (on a
// built-in CSR copy): 24 cases (4 seeds x 6 densities, sizes 1..16) x 8 or 4 kernels.
// SPDX-License-Identifier: BSL-1.0
#include "differential.hpp"

TEST_CASE("differential mapping: lower_packed") {
  CHECK(mapping_test::run_differential<loom::mapping::lower_packed>(
            "A=lower_packed", [](std::int64_t r, std::int64_t c) { return c <= r; }) == 192);
}
TEST_CASE("differential mapping: strict_lower_packed") {
  CHECK(mapping_test::run_differential<loom::mapping::strict_lower_packed, false>(
            "A=strict_lower_packed", [](std::int64_t r, std::int64_t c) { return c < r; }) == 96);
}
TEST_CASE("differential mapping: upper_packed") {
  CHECK(mapping_test::run_differential<loom::mapping::upper_packed, false>(
            "A=upper_packed", [](std::int64_t r, std::int64_t c) { return c >= r; }) == 96);
}
TEST_CASE("differential mapping: symmetric_packed") {
  CHECK(mapping_test::run_differential<loom::mapping::symmetric_packed, false>(
            "A=symmetric_packed", [](std::int64_t, std::int64_t) { return true; }, true) == 96);
}
