// Differential tests: `where`, against the dense reference: C(i,j) = where(A(i,j) > 2, B(i,j))
// over double and int64, and C(i,j) = where(B(i,j), A(i,j)) with a tensor as the predicate over
// (+,x) and (min,+); every matrix format, outputs in rotation, `=` and `+=`.
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
using semirings = mp_list<double, loom::min_plus<double>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = where(A(i,j) > 2, B(i,j))", Combo,
                          where_comparison) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = where(A(i,j) > 2, B(i,j))", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::where(A(i, j) > 2, B(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(where_comparison, binary_combos<arithmetic>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = where(B(i,j), A(i,j))", Combo, where_tensor) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = where(B(i,j), A(i,j))", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::where(B(i, j), A(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(where_tensor, binary_combos<semirings>);
