// Differential tests: sparse addition C(i,j) = A(i,j) + B(i,j) (union of supports), against the
// dense reference. The other B formats are in add.cpp, add_csc.cpp, add_coo_dense.cpp. This file: B
// in {csc, dcsc}; every A format; the semiring ((+,x) or (min,+)) and the output (dcsr, csr,
// dense_matrix, coo, csc) in rotation; `=` (over random prior contents) and `+=`.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <utility>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using semirings = mp_list<double, loom::min_plus<double>>;
using a_formats =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using b_formats = mp_list<loom::csc, loom::dcsc>;
using outputs = mp_list<loom::dcsr, loom::csr, loom::dense_matrix, loom::coo, loom::csc>;
// (A, B, T, C): every (A, B) pair once, the semiring and the output in rotation
using combos = lt::as_tuple<
    lt::with_rotating<lt::product_with_rotating<semirings, a_formats, b_formats>, outputs>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: sparse add C(i,j) = A(i,j) + B(i,j), B csc/dcsc", Combo,
                          add_csc) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(add_csc, combos);
