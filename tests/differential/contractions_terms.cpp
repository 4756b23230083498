// Differential tests: y(i) = sum(j, (A+B+D)(i,j) * x(j)) + sum(j, x(j) * (B+D)(i,j)) (a contracted
// product distributed over the sums: five products, each reduced in its own loop) and
// C(i,j) = A + B + D + A*D + B (five terms: a balanced tree of unions), against the dense
// reference; formats, semirings and outputs in rotation (contractions.hpp), `=` and `+=`. Moved
// from contractions.cpp (no test unit over 30 s).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "contractions.hpp"
#include <support/compare.hpp>

namespace {
using namespace loom_test_contractions;  // the operands in rotation
}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, (A+B+D)(i,j) * x(j)) + sum(j, x * (B+D))",
                          Combo, sum_times_vector) {
  using T = mp11::mp_at_c<Combo, 3>;
  using sparse_out = std::is_same<mp11::mp_at_c<Combo, 4>, loom::dcsr>;
  using y_t = std::conditional_t<sparse_out::value, loom::sparse_vector, loom::dense_vector>;
  using x_t = std::conditional_t<sparse_out::value, loom::dense_vector, loom::sparse_vector>;
  lt::kernel_cases<T, y_t, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>, x_t>(
      "y(i) = sum(j, (A(i,j) + B(i,j) + D(i,j)) * x(j)) + sum(j, x(j) * (B(i,j) + D(i,j)))",
      {"y", "A", "B", "D", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[1]},
                          shape1{e[1]}};
      },
      [](auto& y, const auto& A, const auto& B, const auto& D, const auto& x) {
        return std::pair{y(i), loom::sum(j, (A(i, j) + B(i, j) + D(i, j)) * x(j)) +
                                   loom::sum(j, x(j) * (B(i, j) + D(i, j)))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sum_times_vector, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A + B + D + A*D + B", Combo, five_terms) {
  using T = mp11::mp_at_c<Combo, 3>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) + B(i,j) + D(i,j) + A(i,j) * D(i,j) + B(i,j)", {"C", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[1]},
                          shape2{e[0], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), A(i, j) + B(i, j) + D(i, j) + A(i, j) * D(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(five_terms, triple_combos);
