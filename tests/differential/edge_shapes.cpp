// Differential tests: degenerate shapes (extents 1 and 0), against the dense reference: SpMV,
// sparse add, SpGEMM, TTV and a full sum with extents (1,1,1,1), (1,7,1,5), (6,1,5,1),
// (0,5,3,4) and (5,0,3,0); formats, semirings and outputs in rotation, `=` and `+=`.
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
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using b_matrices = mp11::mp_rotate_left_c<matrices, 2>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dcsr, loom::dense_matrix, loom::csr, loom::coo>;
using tensors3 = mp_list<loom::csf<3>, loom::coo_n<3>, loom::dense_n<3>>;

// (A, B, T, C)
using matrix_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, b_matrices>, semirings>,
    outputs>>;
// (A, x, T, y)
using spmv_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, vectors>, semirings>, vectors>>;
// (T3, v, T, Y)
using ttv_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<tensors3>, vectors>, semirings>, outputs>>;
// (A, T)
using sum_combos = lt::as_tuple<lt::with_rotating<lt::singletons<matrices>, semirings>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;
using shape3 = std::array<std::int64_t, 3>;

lt::case_options degenerate() {
  return lt::case_options{
      .extents = {{1, 1, 1, 1}, {1, 7, 1, 5}, {6, 1, 5, 1}, {0, 5, 3, 4}, {5, 0, 3, 0}}};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: degenerate shapes, y(i) = sum(j, A(i,j) * x(j))", Combo,
                          spmv) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "y(i) = sum(j, A(i,j) * x(j))", {"y", "A", "x"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape1{e[0]}, shape2{e[0], e[1]}, shape1{e[1]}};
      },
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) * x(j))};
      },
      degenerate());
}
TEST_CASE_TEMPLATE_APPLY(spmv, spmv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: degenerate shapes, C(i,j) = A(i,j) + B(i,j)", Combo, add) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(i, j)};
      },
      degenerate());
}
TEST_CASE_TEMPLATE_APPLY(add, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: degenerate shapes, C(i,j) = sum(k, A(i,k) * B(k,j))",
                          Combo, spgemm) {
  using T = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[2]}, shape2{e[2], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
      },
      degenerate());
}
TEST_CASE_TEMPLATE_APPLY(spgemm, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: degenerate shapes, Y(i,j) = sum(k, T(i,j,k) * v(k))",
                          Combo, ttv) {
  using V = mp11::mp_at_c<Combo, 2>;
  lt::kernel_cases<V, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "Y(i,j) = sum(k, T(i,j,k) * v(k))", {"Y", "T", "v"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape3{e[0], e[1], e[2]}, shape1{e[2]}};
      },
      [](auto& Y, const auto& T, const auto& v) {
        return std::pair{Y(i, j), loom::sum(k, T(i, j, k) * v(k))};
      },
      degenerate());
}
TEST_CASE_TEMPLATE_APPLY(ttv, ttv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: degenerate shapes, s = eval(sum(i, j, A(i,j)))", Combo,
                          sum_all) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 0>>(
      "s = eval(sum(i, j, A(i,j)))", {"A"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}};
      },
      [](const auto& A) { return loom::sum(i, j, A(i, j)); }, degenerate());
}
TEST_CASE_TEMPLATE_APPLY(sum_all, sum_combos);
