// loom::la's element-wise functions over dense operands: exp, log, sigmoid,
// abs, max, min, the comparisons and where, against the entry-by-entry arithmetic and the naive
// plan, at every density and three seeds (elementwise_check.hpp; the other formats are in
// elementwise_functions_*.cpp, the sparsity rules and SPORES' gradients in
// elementwise_functions.cpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/la.hpp>
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include "../support/random.hpp"
#include "elementwise_check.hpp"

TEST_CASE(
    "la element-wise functions over dense_matrix match the entry-by-entry arithmetic and the naive "
    "plan") {
  loom_test_elementwise::check_every_case<loom::dense_matrix>();
}
