// Differential tests of DCSR written as a mapping against the dense reference (on a built-in CSR
// copy): 24 cases x 8 kernels.
// SPDX-License-Identifier: BSL-1.0
#include "differential.hpp"

TEST_CASE("differential mapping: dcsr as a mapping") {
  CHECK(mapping_test::run_differential<loom::mapping::dcsr>(
            "A=dcsr_mapping", [](std::int64_t, std::int64_t) { return true; }) == 192);
}
