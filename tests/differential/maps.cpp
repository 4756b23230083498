// Differential tests: loom::map of one operand with user callables, against the dense reference
// (double); every matrix format, outputs in rotation, `=` and `+=`. f(0) != 0 (v + 1) makes the
// result dense over the domain, also inside a sum; f(0) == 0 known only at run time (v * v) must
// give the same values either way. Two-operand maps are in maps_binary.cpp.
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

using reals = mp_list<double>;

// y(i) = map(v + 1, sum(j, A(i,j))): row-major formats; column-major ones in the pending build
using row_major = mp_list<loom::csr, loom::dcsr, loom::coo, loom::dense_matrix>;
using column_major = mp_list<loom::csc, loom::dcsc>;
using map_of_sum_combos =
    lt::as_tuple<lt::with_rotating<mp11::mp_product<mp_list, row_major, reals>, vector_outputs>>;
using map_of_sum_pending_combos =
    lt::as_tuple<mp11::mp_product<mp_list, column_major, reals, vector_outputs>>;

struct plus_one {
  double operator()(double v) const { return v + 1; }
};
struct square {
  double operator()(double v) const { return v * v; }
};

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = map(v + 1, A(i,j))", Combo, map_plus_one) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = map([](double v) { return v + 1; }, A(i,j))", {"C", "A"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A) {
        return std::pair{C(i, j), loom::map(plus_one{}, A(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map_plus_one, unary_combos<reals>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = map(v * v, A(i,j))", Combo, map_square) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = map([](double v) { return v * v; }, A(i,j))", {"C", "A"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A) {
        return std::pair{C(i, j), loom::map(square{}, A(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map_square, unary_combos<reals>);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, map(v + 1, A(i,j)))", Combo,
                          row_sum_of_map) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "y(i) = sum(j, map([](double v) { return v + 1; }, A(i,j)))", {"y", "A"}, row_shapes,
      [](auto& y, const auto& A) {
        return std::pair{y(i), loom::sum(j, loom::map(plus_one{}, A(i, j)))};
      });
}
TEST_CASE_TEMPLATE_APPLY(row_sum_of_map, row_combos<reals>);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = map(v + 1, sum(j, A(i,j)))", Combo, map_of_sum) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "y(i) = map([](double v) { return v + 1; }, sum(j, A(i,j)))", {"y", "A"}, row_shapes,
      [](auto& y, const auto& A) {
        return std::pair{y(i), loom::map(plus_one{}, loom::sum(j, A(i, j)))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map_of_sum, map_of_sum_combos);

// Column-major operands: the sum's index is outer in storage, so the planner transposes them
// (a sum consumed by a non-linear function is reduced before its free index moves).
TEST_CASE_TEMPLATE_APPLY(map_of_sum, map_of_sum_pending_combos);
