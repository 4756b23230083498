// Differential tests: the other shipped semirings, against the dense reference: boolean (or,
// and), (max,+), (max,x) and (min,+) over int64, in SpMV y(i) = sum(j, A(i,j) * x(j)), SpGEMM
// C(i,j) = sum(k, A(i,k) * B(k,j)) and sparse add C(i,j) = A(i,j) + B(i,j); formats and outputs in
// rotation, `=` and `+=`.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
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

using semirings = mp_list<loom::boolean, loom::max_plus<double>, loom::max_times<double>,
                          loom::min_plus<std::int64_t>>;
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using b_matrices = mp11::mp_rotate_left_c<matrices, 2>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dcsr, loom::dense_matrix, loom::csr, loom::coo>;

// (T, A, x, y)
using spmv_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<semirings>, matrices>, vectors>, vectors>>;
// (T, A, B, C)
using matrix_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<semirings>, matrices>, b_matrices>,
    outputs>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: semirings, y(i) = sum(j, A(i,j) * x(j))", Combo, spmv) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "y(i) = sum(j, A(i,j) * x(j))", {"y", "A", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape1{e[1]}};
      },
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) * x(j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(spmv, spmv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: semirings, C(i,j) = sum(k, A(i,k) * B(k,j))", Combo,
                          spgemm) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[2]}, shape2{e[2], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(spgemm, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: semirings, C(i,j) = A(i,j) + B(i,j)", Combo, add) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(add, matrix_combos);
