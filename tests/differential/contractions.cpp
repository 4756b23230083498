// Differential tests: expressions with several contractions, against the dense reference:
// y(i) = sum(j, A(i,j)) + sum(j, B(i,j)) (one index summed in two scopes), a sum of three
// products summed apart (each intersection reduced in its own loop; one may be empty where the
// others are not: a sparse output stores only touched rows); formats, semirings and outputs in
// rotation (contractions.hpp), `=` and `+=`. Five terms and a product distributed over sums are in
// contractions_terms.cpp; nested sums in contractions_nested.cpp, the chain and a product of sums
// in contractions_chain.cpp.
// SPDX-License-Identifier: BSL-1.0
#include "contractions.hpp"

#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <support/compare.hpp>

namespace {
using namespace loom_test_contractions;  // the operands in rotation
}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j)) + sum(j, B(i,j))", Combo, two_sums) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j)) + sum(j, B(i,j))", {"y", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}};
      },
      [](auto& y, const auto& A, const auto& B) {
        return std::pair{y(i), loom::sum(j, A(i, j)) + loom::sum(j, B(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(two_sums, row_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A*B) + sum(j, B*D) + sum(j, D*A)", Combo,
                          sum_of_products) {
  using T = mp11::mp_at_c<Combo, 3>;
  using A_t = mp11::mp_at_c<Combo, 0>;
  using B_t = mp11::mp_at_c<Combo, 1>;
  using D_t = mp11::mp_at_c<Combo, 2>;
  using y_t = std::conditional_t<std::is_same_v<mp11::mp_at_c<Combo, 4>, loom::dcsr>,
                                 loom::sparse_vector, loom::dense_vector>;
  lt::kernel_cases<T, y_t, A_t, B_t, D_t>(
      "y(i) = sum(j, A(i,j) * B(i,j)) + sum(j, B(i,j) * D(i,j)) + sum(j, D(i,j) * A(i,j))",
      {"y", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}};
      },
      [](auto& y, const auto& A, const auto& B, const auto& D) {
        return std::pair{y(i), loom::sum(j, A(i, j) * B(i, j)) + loom::sum(j, B(i, j) * D(i, j)) +
                                   loom::sum(j, D(i, j) * A(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sum_of_products, triple_combos);
