// Differential tests: SpGEMM C(i,j) = sum(k, A(i,k) * B(k,j)), against the dense reference. This
// file: B row-major (csr, dcsr), the row-wise (Gustavson) shape. Every A format; outputs in
// rotation (csr, dcsr, dense_matrix, coo); (+,x) and (min,+); `=` over random prior contents and
// `+=`. The other B formats are in spgemm_inner.cpp and spgemm_coo_dense.cpp.
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
constexpr loom::index<"k"> k;

using semirings = mp_list<double, loom::min_plus<double>>;
using a_formats =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using b_formats = mp_list<loom::csr, loom::dcsr>;
using outputs = mp_list<loom::csr, loom::dcsr, loom::dense_matrix, loom::coo>;
using combos = lt::as_tuple<lt::product_with_rotating<outputs, semirings, a_formats, b_formats>>;

// C is e0 x e1, A is e0 x e2, B is e2 x e1
auto shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 2>{e[0], e[2]},
                    std::array<std::int64_t, 2>{e[2], e[1]}};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: spgemm C(i,j) = sum(k, A(i,k) * B(k,j)), B csr/dcsr",
                          Combo, spgemm) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"}, shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(spgemm, combos);
