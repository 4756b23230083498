// Differential tests: larger operands (extents 37 to 61), where fibres are long enough for skips
// and searches to matter, against the dense reference: SpMV, SpMSpV, sparse add, element-wise
// multiply and SpGEMM; formats, semirings and outputs in rotation, six density pairs per seed,
// `=` and `+=`.
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

using semirings = mp_list<double, loom::min_plus<double>>;
using matrices =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using b_matrices = mp11::mp_rotate_left_c<matrices, 3>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dcsr, loom::csr, loom::dense_matrix, loom::coo>;

// (A, x, T, y)
using spmv_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, vectors>, semirings>, vectors>>;
// (A, B, T, C)
using matrix_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, b_matrices>, semirings>,
    outputs>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

lt::case_options larger() {
  return lt::case_options{.all_pairs = false, .extents = {{37, 53, 41, 9}, {61, 44, 39, 7}}};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: larger, y(i) = sum(j, A(i,j) * x(j))", Combo, spmv) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j) * x(j))", {"y", "A", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape1{e[1]}};
      },
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) * x(j))};
      },
      larger());
}
TEST_CASE_TEMPLATE_APPLY(spmv, spmv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: larger, C(i,j) = A(i,j) + B(i,j)", Combo, add) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(i, j)};
      },
      larger());
}
TEST_CASE_TEMPLATE_APPLY(add, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: larger, C(i,j) = A(i,j) * B(i,j)", Combo, emul) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) * B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) * B(i, j)};
      },
      larger());
}
TEST_CASE_TEMPLATE_APPLY(emul, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: larger, C(i,j) = sum(k, A(i,k) * B(k,j))", Combo, spgemm) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[2]}, shape2{e[2], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
      },
      larger());
}
TEST_CASE_TEMPLATE_APPLY(spgemm, matrix_combos);
