// Differential tests of COO written as a mapping (rows not @unique: each run of a row is one
// iteration of the program's row loop) against the dense reference (on a built-in CSR copy):
// 24 cases x 8 kernels.
// SPDX-License-Identifier: BSL-1.0
#include "differential.hpp"

TEST_CASE("differential mapping: coo as a mapping (non-unique rows)") {
  CHECK(mapping_test::run_differential<loom::mapping::coo>(
            "A=coo_mapping", [](std::int64_t, std::int64_t) { return true; }) == 192);
}
