// Differential tests of loom::la expressions against the dense reference: the products and
// factorisations on the other format combinations (entry_points.hpp; the first combination, with
// every operation, in entry_points.cpp).
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <tuple>

#include "entry_points.hpp"

namespace {
using namespace loom_test_entry_points;  // the la test and its combinations
}  // namespace

TEST_CASE_TEMPLATE_APPLY(la_expressions, la_other_combos);
