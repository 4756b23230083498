// Differential tests: unions of intersections and intersections of unions, against the dense
// reference (the lexicographic (index, ready) tie-break of `+`):
// w(i) = x(i) * y(i) + z(i) for every dense/sparse vector combination, and
// C(i,j) = A(i,j) * B(i,j) + D(i,j), C(i,j) = A(i,j) + B(i,j) + D(i,j),
// C(i,j) = (A(i,j) + B(i,j)) * D(i,j); formats, semirings and outputs in rotation, `=` and `+=`.
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

using semirings = mp_list<double, loom::min_plus<double>>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using b_matrices = mp11::mp_rotate_left_c<matrices, 2>;
using d_matrices = mp11::mp_rotate_left_c<matrices, 4>;
using outputs = mp_list<loom::dcsr, loom::dense_matrix, loom::csr, loom::coo>;

// (x, y, z, T, w)
using vector_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<mp11::mp_product<mp_list, vectors, vectors, vectors>, semirings>, vectors>>;
// (A, B, D, T, C)
using matrix_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<
        lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, b_matrices>, d_matrices>,
        semirings>,
    outputs>>;

using shape1 = std::array<std::int64_t, 1>;
using shape2 = std::array<std::int64_t, 2>;

auto vector_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{shape1{e[1]}, shape1{e[1]}, shape1{e[1]}, shape1{e[1]}};
}
auto matrix_shapes(const std::array<std::int64_t, 4>& e) {
  const shape2 s{e[0], e[1]};
  return std::tuple{s, s, s, s};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: w(i) = x(i) * y(i) + z(i)", Combo, fma_vectors) {
  using T = mp11::mp_at_c<Combo, 3>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "w(i) = x(i) * y(i) + z(i)", {"w", "x", "y", "z"}, vector_shapes,
      [](auto& w, const auto& x, const auto& y, const auto& z) {
        return std::pair{w(i), x(i) * y(i) + z(i)};
      });
}
TEST_CASE_TEMPLATE_APPLY(fma_vectors, vector_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) * B(i,j) + D(i,j)", Combo, fma) {
  using T = mp11::mp_at_c<Combo, 3>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) * B(i,j) + D(i,j)", {"C", "A", "B", "D"}, matrix_shapes,
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), A(i, j) * B(i, j) + D(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(fma, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = A(i,j) + B(i,j) + D(i,j)", Combo, add3) {
  using T = mp11::mp_at_c<Combo, 3>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = A(i,j) + B(i,j) + D(i,j)", {"C", "A", "B", "D"}, matrix_shapes,
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), A(i, j) + B(i, j) + D(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(add3, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(i,j) = (A(i,j) + B(i,j)) * D(i,j)", Combo, sum_times) {
  using T = mp11::mp_at_c<Combo, 3>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 4>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>,
                   mp11::mp_at_c<Combo, 2>>(
      "C(i,j) = (A(i,j) + B(i,j)) * D(i,j)", {"C", "A", "B", "D"}, matrix_shapes,
      [](auto& C, const auto& A, const auto& B, const auto& D) {
        return std::pair{C(i, j), (A(i, j) + B(i, j)) * D(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(sum_times, matrix_combos);
