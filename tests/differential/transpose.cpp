// Differential tests: transposes inside expressions, against the dense reference:
// C(i,j) = A(i,j) + B(j,i) (A, B in csr, csc, dcsr / csr, csc, coo; the semiring and the output in
// rotation) and the plain transpose C(i,j) = A(j,i) for every matrix format. `=` and `+=`.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <tuple>
#include <utility>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using semirings = mp_list<double, loom::min_plus<double>>;
using outputs = mp_list<loom::csr, loom::dense_matrix, loom::dcsr, loom::coo, loom::csc>;
using add_combos = lt::as_tuple<
    lt::product_with_rotating<outputs, semirings, mp_list<loom::csr, loom::csc, loom::dcsr>,
                              mp_list<loom::csr, loom::csc, loom::coo>>>;
using transpose_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::singletons<mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc,
                                             loom::coo, loom::dense_matrix>>,
                      semirings>,
    mp_list<loom::csr, loom::dense_matrix, loom::dcsc, loom::coo>>>;

using shape2 = std::array<std::int64_t, 2>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) + B(j,i)", Combo, add_transposed) {
  using T = mp11::mp_at_c<Combo, 0>;
  // C, A are e0 x e1; B is e1 x e0
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) + B(j,i)", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[1], e[0]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(j, i)};
      });
}
TEST_CASE_TEMPLATE_APPLY(add_transposed, add_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(j,i)", Combo, transpose) {
  using T = mp11::mp_at_c<Combo, 1>;
  // C is e0 x e1; A is e1 x e0
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(j,i)", {"C", "A"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[1], e[0]}};
      },
      [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(j, i)};
      });
}
TEST_CASE_TEMPLATE_APPLY(transpose, transpose_combos);
