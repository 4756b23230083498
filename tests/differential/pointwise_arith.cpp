// Differential tests: the arithmetic-only pointwise operations (unary minus, subtraction, division
// by a scalar), against the dense reference; double and int64 in rotation, every matrix format,
// outputs in rotation, `=` and `+=`. int64 division truncates and so does not commute with a sum:
// y(i) = sum(j, A(i,j)) / 2 must divide the sum, not its terms.
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

#ifndef LOOM_DIFFERENTIAL_PENDING
#  define LOOM_DIFFERENTIAL_PENDING 0
#endif

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using namespace loom_test::elementwise;  // the format lists (elementwise_formats.hpp)

using arithmetic = mp_list<double, std::int64_t>;

// y(i) = sum(j, A(i,j)) / 2: double over every format; int64 (division does not commute with the
// sum) over the row-major formats, and over the column-major ones only in the pending build
using row_major = mp_list<loom::csr, loom::dcsr, loom::coo, loom::dense_matrix>;
using column_major = mp_list<loom::csc, loom::dcsc>;
using divided_combos = lt::as_tuple<mp11::mp_append<
    lt::with_rotating<mp11::mp_product<mp_list, matrices, mp_list<double>>, vector_outputs>,
    lt::with_rotating<mp11::mp_product<mp_list, row_major, mp_list<std::int64_t>>,
                      vector_outputs>>>;
using divided_pending_combos =
    lt::as_tuple<mp11::mp_product<mp_list, column_major, mp_list<std::int64_t>, vector_outputs>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = -A(i,j)", Combo, negate) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = -A(i,j)", {"C", "A"}, lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), -A(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(negate, unary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) - B(i,j)", Combo, subtract) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) - B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) - B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(subtract, binary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) / 4", Combo, divide) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(i,j) / 4", {"C", "A"}, lt::same_matrix_shapes, [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(i, j) / 4};
      });
}
TEST_CASE_TEMPLATE_APPLY(divide, unary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = -(A(i,j) * B(i,j)) + B(i,j)", Combo,
                          negate_product) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = -(A(i,j) * B(i,j)) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), -(A(i, j) * B(i, j)) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(negate_product, binary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j)) / 2", Combo, row_sum_divided) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "y(i) = sum(j, A(i,j)) / 2", {"y", "A"}, row_shapes, [](auto& y, const auto& A) {
        return std::pair{y(i), loom::sum(j, A(i, j)) / 2};
      });
}
TEST_CASE_TEMPLATE_APPLY(row_sum_divided, divided_combos);

// Column-major operands: the sum's index is outer in storage, so the planner transposes them
// (a sum consumed by a non-linear function is reduced before its free index moves).
TEST_CASE_TEMPLATE_APPLY(row_sum_divided, divided_pending_combos);
