// The flagship sum((X - U V^T)^2) saturated: the extracted expression, every alternative and
// the run-time choice give the dense reference for X in csr and dcsr (saturation_flagship.hpp; a
// dense X in saturation_flagship_dense.cpp). That the choice follows the data, and
// explain_saturation, are in saturation_choice.cpp.
// SPDX-License-Identifier: BSL-1.0
#include "saturation_flagship.hpp"

#include <loom/format/format.hpp>

#include <doctest/doctest.h>

TEST_CASE_TEMPLATE("saturated sum((X - U V^T)^2) equals the reference", Format, loom::csr,
                   loom::dcsr) {
  loom_test_saturation::check_flagship<Format>();
}
