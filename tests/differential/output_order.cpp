// Differential tests: outputs written in an index order other than the natural one, against the
// dense reference: C(j,i) = A(i,j) + B(i,j), C(j,i) = sum(k, A(i,k) * B(k,j)) and
// Y(r,i,j) = sum(k, T(i,j,k) * M(k,r)); formats, semirings and outputs in rotation, `=` and `+=`.
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
constexpr loom::index<"r"> r;

using semirings = mp_list<double, loom::min_plus<double>>;
using matrices = mp_list<loom::csr, loom::csc, loom::dcsr, loom::coo, loom::dense_matrix>;
using b_matrices = mp11::mp_rotate_left_c<matrices, 2>;
using outputs = mp_list<loom::csr, loom::dcsr, loom::dense_matrix, loom::coo, loom::csc>;
using tensors3 = mp_list<loom::csf<3>, loom::coo_n<3>, loom::dense_n<3>>;
using outputs3 = mp_list<loom::dense_n<3>, loom::csf<3>, loom::coo_n<3>>;

// (A, B, T, C)
using matrix_combos = lt::as_tuple<lt::with_rotating<
    lt::with_rotating<lt::with_rotating<lt::singletons<matrices>, b_matrices>, semirings>,
    outputs>>;
// (T3, T, Y)
using tensor_combos =
    lt::as_tuple<lt::with_rotating<mp11::mp_product<mp_list, tensors3, semirings>, outputs3>>;

using shape2 = std::array<std::int64_t, 2>;
using shape3 = std::array<std::int64_t, 3>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: C(j,i) = A(i,j) + B(i,j)", Combo, add_into_transposed) {
  using T = mp11::mp_at_c<Combo, 2>;
  // C is e1 x e0; A, B are e0 x e1
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(j,i) = A(i,j) + B(i,j)", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[1], e[0]}, shape2{e[0], e[1]}, shape2{e[0], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(j, i), A(i, j) + B(i, j)};
      });
}
TEST_CASE_TEMPLATE_APPLY(add_into_transposed, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: C(j,i) = sum(k, A(i,k) * B(k,j))", Combo,
                          spgemm_into_transposed) {
  using T = mp11::mp_at_c<Combo, 2>;
  // C is e1 x e0; A is e0 x e2; B is e2 x e1
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 0>, mp11::mp_at_c<Combo, 1>>(
      "C(j,i) = sum(k, A(i,k) * B(k,j))", {"C", "A", "B"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[1], e[0]}, shape2{e[0], e[2]}, shape2{e[2], e[1]}};
      },
      [](auto& C, const auto& A, const auto& B) {
        return std::pair{C(j, i), loom::sum(k, A(i, k) * B(k, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(spgemm_into_transposed, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: Y(r,i,j) = sum(k, T(i,j,k) * M(k,r))", Combo,
                          ttm_permuted) {
  using V = mp11::mp_at_c<Combo, 1>;
  // Y is e3 x e0 x e1; T is e0 x e1 x e2; M is e2 x e3
  lt::kernel_cases<V, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 0>, loom::dense_matrix>(
      "Y(r,i,j) = sum(k, T(i,j,k) * M(k,r))", {"Y", "T", "M"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape3{e[3], e[0], e[1]}, shape3{e[0], e[1], e[2]}, shape2{e[2], e[3]}};
      },
      [](auto& Y, const auto& T, const auto& M) {
        return std::pair{Y(r, i, j), loom::sum(k, T(i, j, k) * M(k, r))};
      },
      lt::case_options{.all_pairs = false});
}
TEST_CASE_TEMPLATE_APPLY(ttm_permuted, tensor_combos);
