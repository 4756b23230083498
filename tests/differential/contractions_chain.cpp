// Differential tests: the chain M(i,l) = sum(j, k, A(i,j) * B(j,k) * D(k,l)) and
// s = sum(i, x(i)) * sum(j, y(j)) (a product of two contracted factors), against the dense
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

TEST_CASE_TEMPLATE_DEFINE("differential: M(i,l) = sum(j, k, A(i,j) * B(j,k) * D(k,l))", Combo,
                          chain) {
  using T = mp11::mp_at_c<Combo, 3>;
  // M is e0 x e3, A is e0 x e1, B is e1 x e2, D is e2 x e3
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "M(i,l) = sum(j, k, A(i,j) * B(j,k) * D(k,l))", {"M", "A", "B", "D"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[3]}, shape2{e[0], e[1]}, shape2{e[1], e[2]},
                          shape2{e[2], e[3]}};
      },
      [](auto& M, const auto& A, const auto& B, const auto& D) {
        return std::pair{M(i, l), loom::sum(j, k, A(i, j) * B(j, k) * D(k, l))};
      },
      lt::case_options{.all_pairs = false});  // 6 density pairs: the reference is O(n^4) here
}
TEST_CASE_TEMPLATE_APPLY(chain, triple_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, x(i)) * sum(j, y(j)))", Combo,
                          product_of_sums) {
  using T = mp11::mp_at_c<Combo, 2>;
  // x has e0 entries, y has e1
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "s = eval(sum(i, x(i)) * sum(j, y(j)))", {"x", "y"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape1{e[1]}};
      },
      [](const auto& x, const auto& y) { return loom::sum(i, x(i)) * loom::sum(j, y(j)); });
}
TEST_CASE_TEMPLATE_APPLY(product_of_sums, vector_combos);
