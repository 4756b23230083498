// The flagship sum((X - U V^T)^2) saturated over a dense X: the extracted expression, every
// alternative and the run-time choice give the dense reference (saturation_flagship.hpp; moved
// from saturation_flagship.cpp: no test unit over 30 s).
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/format.hpp>

#include <doctest/doctest.h>

#include "saturation_flagship.hpp"

TEST_CASE("saturated sum((X - U V^T)^2) equals the reference over a dense X") {
  loom_test_saturation::check_flagship<loom::dense_matrix>();
}
