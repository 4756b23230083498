// Differential tests: C(i,j) = A(i,j) * B(j,i), an intersection with a transposed operand, against
// the dense reference: A, B in csr, csc, dcsr, coo; the semiring and the output in rotation;
// `=` and `+=`.
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
using formats = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo>;
using outputs = mp_list<loom::csr, loom::dense_matrix, loom::dcsr, loom::coo, loom::csc>;
template <class L> using semiring_first = mp11::mp_rotate_right_c<L, 1>;
using combos = lt::as_tuple<lt::with_rotating<
    mp11::mp_transform<semiring_first, lt::product_with_rotating<semirings, formats, formats>>,
    outputs>>;

using shape2 = std::array<std::int64_t, 2>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) * B(j,i)", Combo, mul_transposed) {
  using T = mp11::mp_at_c<Combo, 0>;
  // C, A are e0 x e1; B is e1 x e0
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) * B(j,i)", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[1], e[0]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) * B(j, i)};
      });
}
TEST_CASE_TEMPLATE_APPLY(mul_transposed, combos);
