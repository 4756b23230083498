// Differential tests for the adaptive level (format/levels/adaptive.hpp), against the dense
// reference: its fibers are sorted, hashed, bitmap or dense by their fill, so the cases' random
// operands (extents 5..13, every density) mix the four kinds in one tensor. `small` lowers the
// cut-offs (a bitmap from a third full, a table from two entries) so that every kind occurs at
// these extents; the default level keeps the library's cut-offs. The adaptive level as matrix
// rows and as a probed vector, element-wise multiply into a sparse output (no stored zeros), add
// and products into an adaptive output, SpGEMM reading its rows, and a sum of every entry.
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

using small = loom::adaptive_level<std::int64_t, std::int32_t, 3, 2>;
using rows_small = loom::format<loom::dense, small>;
using rows_adaptive = loom::format<loom::dense, loom::adaptive>;
using both_small = loom::format<small, small>;
using cols_small = loom::format<loom::dense, small>::ordered<1, 0>;
using vector_small = loom::format<small>;
using mp = loom::min_plus<double>;

// (T, y, A, x); pairs listed, not multiplied out: each kernel costs compile time
using spmv_combos = std::tuple<mp_list<double, vector_small, rows_small, loom::dense_vector>,
                               mp_list<mp, loom::sparse_vector, both_small, loom::sparse_vector>,
                               mp_list<double, loom::dense_vector, cols_small, vector_small>>;
// (T, C, A, B)
using mul_combos = std::tuple<mp_list<double, loom::dcsr, rows_small, loom::csr>,
                              mp_list<mp, rows_small, both_small, rows_small>>;
using add_combos = std::tuple<mp_list<double, rows_small, rows_small, loom::csr>>;
using spgemm_combos = std::tuple<mp_list<mp, rows_small, loom::csr, rows_small>>;
// (T, A)
using sum_combos = std::tuple<mp_list<double, rows_adaptive>>;

auto spmv_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 1>{e[0]}, std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 1>{e[1]}};
}
auto spgemm_shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 2>{e[0], e[2]},
                    std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 2>{e[1], e[2]}};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential adaptive: spmv y(i) = sum(j, A(i,j) * x(j))", Combo,
                          adaptive_spmv) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "y(i) = sum(j, A(i,j) * x(j))", {"y", "A", "x"}, spmv_shapes,
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) * x(j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(adaptive_spmv, spmv_combos);

TEST_CASE_TEMPLATE_DEFINE("differential adaptive: element-wise C(i,j) = A(i,j) * B(i,j)", Combo,
                          adaptive_mul) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "C(i,j) = A(i,j) * B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) * B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(adaptive_mul, mul_combos);

TEST_CASE_TEMPLATE_DEFINE("differential adaptive: add C(i,j) = A(i,j) + B(i,j)", Combo,
                          adaptive_add) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "C(i,j) = A(i,j) + B(i,j)", {"C", "A", "B"}, lt::same_matrix_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), A(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(adaptive_add, add_combos);

TEST_CASE_TEMPLATE_DEFINE("differential adaptive: spgemm C(i,j) = sum(k, A(i,k) * B(k,j))", Combo,
                          adaptive_spgemm) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 3>>(
      "C(i,j) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"}, spgemm_shapes,
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(i, j), loom::sum(k, A(i, k) * B(k, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(adaptive_spgemm, spgemm_combos);

TEST_CASE_TEMPLATE_DEFINE("differential adaptive: s = eval(sum(i, j, A(i,j)))", Combo,
                          adaptive_sum) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 1>>(
      "s = eval(sum(i, j, A(i,j)))", {"A"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{std::array<std::int64_t, 2>{e[0], e[1]}};
      },
      [](const auto& A) { return loom::sum(i, j, A(i, j)); }, lt::case_options{.all_pairs = false});
}
TEST_CASE_TEMPLATE_APPLY(adaptive_sum, sum_combos);
