// Differential tests: loom::map of two operands with user callables, against the dense reference
// (double): C(i,j) = map(a - b + 1, A(i,j), B(i,j)) (f(0,0) != 0: dense over the domain) and
// C(i,j) = map(2ab, A(i,j), B(i,j)) (f(0,0) == 0 known only at run time); every matrix format,
// outputs in rotation, `=` and `+=`.
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

using reals = mp_list<double>;

struct difference_plus_one {
  double operator()(double a, double b) const { return a - b + 1; }
};
struct twice_product {
  double operator()(double a, double b) const { return 2 * a * b; }
};

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = map(a - b + 1, A(i,j), B(i,j))", Combo,
                          map2_dense) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = map([](double a, double b) { return a - b + 1; }, A(i,j), B(i,j))", {"C", "A", "B"},
      lt::same_matrix_shapes, [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::map(difference_plus_one{}, A(i, j), B(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map2_dense, binary_combos<reals>);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = map(2ab, A(i,j), B(i,j))", Combo,
                          map2_zero_preserving) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = map([](double a, double b) { return 2 * a * b; }, A(i,j), B(i,j))", {"C", "A", "B"},
      lt::same_matrix_shapes, [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::map(twice_product{}, A(i, j), B(i, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(map2_zero_preserving, binary_combos<reals>);
