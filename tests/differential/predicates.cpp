// Differential tests: comparisons (0/1 predicates), against the dense reference; double and int64
// in rotation, every matrix format, outputs in rotation, `=` and `+=`. `A < 2` and `A == B` hold
// where both are absent, so their results are dense over the domain. `where` is in where.cpp.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <utility>

#include "elementwise_formats.hpp"
#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using namespace loom_test::elementwise;  // the format lists (elementwise_formats.hpp)

using arithmetic = mp_list<double, std::int64_t>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) > 2", Combo, greater) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(i,j) > 2", {"C", "A"}, lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(i, j) > 2};
      });
}
TEST_CASE_TEMPLATE_APPLY(greater, unary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) < 2", Combo, less) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(i,j) < 2", {"C", "A"}, lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(i, j) < 2};
      });
}
TEST_CASE_TEMPLATE_APPLY(less, unary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) == B(i,j)", Combo, equal) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) == B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) == B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(equal, binary_combos<arithmetic>);
