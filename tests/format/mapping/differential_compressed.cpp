// Differential tests of CSR written as a mapping and of dense row-major as a mapping against the
// dense reference (on a built-in CSR copy): 24 cases x 8 or 4 kernels.
// SPDX-License-Identifier: BSL-1.0
#include "differential.hpp"

TEST_CASE("differential mapping: csr as a mapping") {
  CHECK(mapping_test::run_differential<loom::mapping::csr>(
            "A=csr_mapping", [](std::int64_t, std::int64_t) { return true; }) == 192);
}
TEST_CASE("differential mapping: dense row-major as a mapping") {
  CHECK(mapping_test::run_differential<loom::mapping::dense_rowmajor, false>(
            "A=dense_rowmajor", [](std::int64_t, std::int64_t) { return true; }) == 96);
}
