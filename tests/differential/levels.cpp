// Differential tests for the hashed, bitmap and banded levels and a user-defined level (the gap
// level of tests/support/models), against the dense reference: SpMV (the new level as matrix
// rows, and as a probed sparse x), element-wise multiply, add, and the sum of all entries.
// Pairs are listed, not multiplied out, and outputs in the new formats are in rotation, to keep
// the file near 25 kernels. Bitmap outputs are written in place (values located, presence bits
// set): products into them, also out of order.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <tuple>
#include <utility>

#include <support/compare.hpp>
#include <support/models/minimal_level.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using dense_hashed = loom::format<loom::dense, loom::hashed>;
using dense_bitmap = loom::format<loom::dense, loom::bitmap>;
using dense_banded = loom::format<loom::dense, loom::banded>;
using hashed_hashed = loom::format<loom::hashed, loom::hashed>;
using gap_csr = example::gap_csr;
using hashed_vector = loom::format<loom::hashed>;
using bitmap_vector = loom::format<loom::bitmap>;
using mp = loom::min_plus<double>;

// (T, y, A, x)
using spmv_combos =
    std::tuple<mp_list<double, loom::dense_vector, dense_hashed, loom::dense_vector>,
               mp_list<mp, loom::sparse_vector, dense_bitmap, loom::dense_vector>,
               mp_list<double, hashed_vector, dense_banded, loom::dense_vector>,
               mp_list<double, bitmap_vector, hashed_hashed, loom::dense_vector>,
               mp_list<mp, loom::dense_vector, gap_csr, loom::dense_vector>,
               mp_list<double, loom::sparse_vector, loom::csr, hashed_vector>,
               mp_list<double, loom::dense_vector, loom::csr, bitmap_vector>>;

// (T, C, A, B)
using mul_combos = std::tuple<mp_list<double, loom::dcsr, dense_hashed, loom::csr>,
                              mp_list<mp, dense_hashed, loom::csr, dense_bitmap>,
                              mp_list<double, dense_banded, dense_banded, loom::dcsr>,
                              mp_list<double, dense_bitmap, hashed_hashed, dense_bitmap>,
                              mp_list<double, loom::dense_matrix, gap_csr, dense_banded>>;
using add_combos = std::tuple<mp_list<double, dense_hashed, dense_hashed, loom::csr>,
                              mp_list<mp, loom::dcsr, dense_bitmap, dense_banded>,
                              mp_list<double, dense_banded, hashed_hashed, loom::dcsr>,
                              mp_list<double, gap_csr, gap_csr, dense_hashed>>;
// (T, A)
using sum_combos =
    std::tuple<mp_list<double, dense_hashed>, mp_list<mp, dense_bitmap>,
               mp_list<double, dense_banded>, mp_list<mp, hashed_hashed>, mp_list<double, gap_csr>>;

// (T, C, A, B): products written in place into bitmap outputs (Gustavson rows, a transposed
// output, a dense operand), and (T, y, A, x) a bitmap vector filled out of order
using dense_bitmap_t = dense_bitmap::ordered<1, 0>;
using spgemm_combos = std::tuple<mp_list<double, dense_bitmap, loom::csr, loom::csr>,
                                 mp_list<mp, dense_bitmap_t, loom::csr, loom::csc>,
                                 mp_list<double, dense_bitmap, loom::csc, loom::dense_matrix>>;
using spmtv_combos = std::tuple<mp_list<double, bitmap_vector, loom::csr, loom::sparse_vector>,
                                mp_list<mp, bitmap_vector, loom::dcsr, loom::dense_vector>>;

auto spgemm_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 2>{e[0], e[2]},
                    std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 2>{e[1], e[2]}};
}
auto spmtv_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 1>{e[1]}, std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 1>{e[0]}};
}

auto spmv_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 1>{e[0]}, std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 1>{e[1]}};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential levels: spmv y(i) = sum(j, A(i,j) * x(j))", Combo,
                          levels_spmv) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "y(i) = sum(j, A(i,j) * x(j))", {"y", "A", "x"}, spmv_shapes,
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) * x(j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(levels_spmv, spmv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential levels: element-wise C(i,j) = A(i,j) * B(i,j)", Combo,
                          levels_mul) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "C(i,j) = A(i,j) * B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) * B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(levels_mul, mul_combos);

TEST_CASE_TEMPLATE_DEFINE("differential levels: add C(i,j) = A(i,j) + B(i,j)", Combo, levels_add) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "C(i,j) = A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(levels_add, add_combos);

TEST_CASE_TEMPLATE_DEFINE("differential levels: s = eval(sum(i, j, A(i,j)))", Combo, levels_sum) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 1>>(
      "s = eval(sum(i, j, A(i,j)))", {"A"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{std::array<std::int64_t, 2>{e[0], e[1]}};
      },
      [](const auto& A) { return loom::sum(i, j, A(i, j)); }, lt::case_options{.all_pairs = false});
}
TEST_CASE_TEMPLATE_APPLY(levels_sum, sum_combos);

TEST_CASE_TEMPLATE_DEFINE("differential levels: bitmap output C(i,j) = sum(k, A(i,k) * B(k,j))",
                          Combo, levels_spgemm_bitmap) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"}, spgemm_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(levels_spgemm_bitmap, spgemm_combos);

TEST_CASE_TEMPLATE_DEFINE("differential levels: bitmap output y(j) = sum(i, A(i,j) * x(i))", Combo,
                          levels_spmtv_bitmap) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "y(j) = sum(i, A(i,j) * x(i))", {"y", "A", "x"}, spmtv_shapes,
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(j), loom::sum(i, A(i, j) * x(i))};
      });
}
TEST_CASE_TEMPLATE_APPLY(levels_spmtv_bitmap, spmtv_combos);
