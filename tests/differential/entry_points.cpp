// Differential tests of loom's entry points other than `=` and loom::eval:
// loom::la expressions against the dense reference (support/reference.hpp, on index notation
// written here by hand, not la's translation or the planner's), every operation and pattern on
// the first format combination (entry_points.hpp; the others in entry_points_la.cpp).
// loom::decompose is in entry_points_decompose.cpp, loom::matrix_chain in
// entry_points_matrix_chain.cpp, the relational queries against SQLite in
// entry_points_relational.cpp (one unit each: together they took 70 s under g++ -O0). Seeds × densities × a few format combinations; kept to few instantiations.
// SPDX-License-Identifier: BSL-1.0
#include "entry_points.hpp"

#include <doctest/doctest.h>

#include <tuple>

namespace {
using namespace loom_test_entry_points;  // the la test and its combinations
}  // namespace

TEST_CASE_TEMPLATE_APPLY(la_expressions, std::tuple<la_first_combo>);
