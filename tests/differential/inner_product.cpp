// Differential tests: inner products to a scalar with loom::eval, against the dense reference:
// s = sum(i, j, A(i,j) * B(i,j)) for every pair of matrix formats (the semiring rotating between
// (+,x) and (min,+)), and the vector dot product s = sum(i, x(i) * y(i)) for dense and sparse x, y.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <tuple>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using semirings = mp_list<double, loom::min_plus<double>>;
using matrices =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
// (A, B, semiring): the semiring rotates over the 36 format pairs
template <class L> using semiring_first = mp11::mp_rotate_right_c<L, 1>;
using matrix_combos = lt::as_tuple<
    mp11::mp_transform<semiring_first, lt::product_with_rotating<semirings, matrices, matrices>>>;
using vector_combos = lt::as_tuple<mp11::mp_product<mp_list, semirings, vectors, vectors>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, j, A(i,j) * B(i,j)))", Combo,
                          inner_product) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "s = eval(sum(i, j, A(i,j) * B(i,j)))", {"A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        const std::array<std::int64_t, 2> s{e[0], e[1]};
        return std::tuple{s, s};
      },
      [](const auto& A, const auto& B) { return loom::sum(i, j, A(i, j) * B(i, j)); });
}
TEST_CASE_TEMPLATE_APPLY(inner_product, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, x(i) * y(i)))", Combo, dot) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "s = eval(sum(i, x(i) * y(i)))", {"x", "y"},
      [](const std::array<std::int64_t, 4>& e) {
        const std::array<std::int64_t, 1> s{e[1]};
        return std::tuple{s, s};
      },
      [](const auto& x, const auto& y) { return loom::sum(i, x(i) * y(i)); });
}
TEST_CASE_TEMPLATE_APPLY(dot, vector_combos);
