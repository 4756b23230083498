// Differential tests: y(i) = sum(j, A(i,j) * sum(k, B(j,k))) (a sum nested in a product) and
// C(i,j) = sum(k, A(i,k) * B(k,j)) + D(i,j), against the dense reference; formats, semirings and
// outputs in rotation (contractions.hpp), `=` and `+=`. Moved from contractions.cpp (no
// test unit over 30 s); the chain and a product of sums are in contractions_chain.cpp.
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

TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = sum(j, A(i,j) * sum(k, B(j,k)))", Combo,
                          nested_sum) {
  using T = mp11::mp_at_c<Combo, 2>;
  // y has e0 entries, A is e0 x e1, B is e1 x e2
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j) * sum(k, B(j,k)))", {"y", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape2{e[1], e[2]}};
      },
      [](auto& y, const auto& A, const auto& B) {
        return std::pair{y(i), loom::sum(j, A(i, j) * loom::sum(k, B(j, k)))};
      });
}
TEST_CASE_TEMPLATE_APPLY(nested_sum, row_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = sum(k, A(i,k) * B(k,j)) + D(i,j)", Combo,
                          product_plus) {
  using T = mp11::mp_at_c<Combo, 3>;
  // C, D are e0 x e1, A is e0 x e2, B is e2 x e1
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j)) + D(i,j)", {"C", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[2]}, shape2{e[2], e[1]},
                          shape2{e[0], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j)) + D(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(product_plus, triple_combos);
