// Differential tests: one tensor read twice, the output read on the right-hand side, and repeated
// indices, against the dense reference (square matrices): C(i,j) = A(i,j) * A(i,j),
// C(i,k) = sum(j, A(i,j) * A(j,k)), s = sum(i, j, A(i,j) * A(j,i)), C(i,j) = C(j,i) + A(i,j) and
// x(i) = sum(j, A(i,j) * x(j)) (the reference reads the output's contents before the assignment),
// y(i) = A(i,i) and the trace s = sum(i, A(i,i)); formats, semirings and outputs in rotation.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>
#include <utility>

#include <support/compare.hpp>

#ifndef LOOM_DIFFERENTIAL_PENDING
#  define LOOM_DIFFERENTIAL_PENDING 0
#endif

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using semirings = mp_list<double, loom::min_plus<double>>;
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dcsr, loom::dense_matrix, loom::csr, loom::coo>;

// (A, T, C)
using matrix_combos = lt::as_tuple<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, semirings>, outputs>>;
// (A, T, y)
using vector_combos = lt::as_tuple<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, semirings>, vectors>>;
// (A, T)
using scalar_combos = lt::as_tuple<lt::with_rotating<lt::singletons<matrices>, semirings>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

auto square(const std::array<std::int64_t, 4>& e) {
  return std::tuple{shape2{e[0], e[0]}, shape2{e[0], e[0]}};
}
auto vector_and_square(const std::array<std::int64_t, 4>& e) {
  return std::tuple{shape1{e[0]}, shape2{e[0], e[0]}};
}
auto square_input(const std::array<std::int64_t, 4>& e) { return std::tuple{shape2{e[0], e[0]}}; }

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) * A(i,j)", Combo, self_product) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = A(i,j) * A(i,j)", {"C", "A"}, square, [](auto& C, const auto& A) {
        return std::pair{C(i, j), A(i, j) * A(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(self_product, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,k) = sum(j, A(i,j) * A(j,k))", Combo, square_matrix) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,k) = sum(j, A(i,j) * A(j,k))", {"C", "A"}, square, [](auto& C, const auto& A) {
        return std::pair{C(i, k), loom::sum(j, A(i, j) * A(j, k))};
      });
}
TEST_CASE_TEMPLATE_APPLY(square_matrix, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, j, A(i,j) * A(j,i)))", Combo,
                          symmetric_part) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 0>>(
      "s = eval(sum(i, j, A(i,j) * A(j,i)))", {"A"}, square_input,
      [](const auto& A) { return loom::sum(i, j, A(i, j) * A(j, i)); });
}
TEST_CASE_TEMPLATE_APPLY(symmetric_part, scalar_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = C(j,i) + A(i,j), C read and written", Combo,
                          output_read_transposed) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "C(i,j) = C(j,i) + A(i,j)", {"C", "A"}, square, [](auto& C, const auto& A) {
        return std::pair{C(i, j), C(j, i) + A(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(output_read_transposed, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: x(i) = sum(j, A(i,j) * x(j)), x read and written", Combo,
                          output_read_in_contraction) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "x(i) = sum(j, A(i,j) * x(j))", {"x", "A"}, vector_and_square, [](auto& x, const auto& A) {
        return std::pair{x(i), loom::sum(j, A(i, j) * x(j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(output_read_in_contraction, vector_combos);

// loom rejects repeated indices within one access ("an access uses the same index for two modes
// (a diagonal); this is not supported yet"); these two kernels are compiled only with
// -DLOOM_DIFFERENTIAL_PENDING=1 until it supports them.
#if LOOM_DIFFERENTIAL_PENDING
TEST_CASE_TEMPLATE_DEFINE("differential: y(i) = A(i,i)", Combo, diagonal) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>>(
      "y(i) = A(i,i)", {"y", "A"}, vector_and_square, [](auto& y, const auto& A) {
        return std::pair{y(i), A(i, i)};
      });
}
TEST_CASE_TEMPLATE_APPLY(diagonal, vector_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, A(i,i)))", Combo, trace) {
  using T = mp11::mp_at_c<Combo, 1>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 0>>("s = eval(sum(i, A(i,i)))", {"A"}, square_input,
                                               [](const auto& A) { return loom::sum(i, A(i, i)); });
}
TEST_CASE_TEMPLATE_APPLY(trace, scalar_combos);
#endif  // LOOM_DIFFERENTIAL_PENDING
