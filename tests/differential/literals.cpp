// Differential tests: scalar literals in expressions, against the dense reference; (+,x) and
// (min,+) in rotation (in (min,+), `A + 2` is min(A, 2) and `A * 3` is A + 3), every matrix format,
// outputs in rotation, `=` and `+=`. An added literal makes the result dense over the domain.
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

using semirings = mp_list<double, loom::min_plus<double>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) * 3", Combo, times_literal) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(i,j) * 3", {"C", "A"}, lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(i, j) * 3};
      });
}
TEST_CASE_TEMPLATE_APPLY(times_literal, unary_combos<semirings>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) + 2", Combo, plus_literal) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(i,j) + 2", {"C", "A"}, lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(i, j) + 2};
      });
}
TEST_CASE_TEMPLATE_APPLY(plus_literal, unary_combos<semirings>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = 2 * A(i,j) + B(i,j)", Combo, scaled_sum) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = 2 * A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), 2 * A(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(scaled_sum, binary_combos<semirings>);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j) + 1)", Combo, row_sum_plus_literal) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "y(i) = sum(j, A(i,j) + 1)", {"y", "A"}, row_shapes, [](auto& y, const auto& A) {
        return std::pair{y(i), loom::sum(j, A(i, j) + 1)};
      });
}
TEST_CASE_TEMPLATE_APPLY(row_sum_plus_literal, row_combos<semirings>);
