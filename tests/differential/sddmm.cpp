// Differential tests: SDDMM C(i,j) = sum(k, S(i,j) * U(i,k) * V(k,j)) and its V(j,k) twin, with
// dense factors U, V, against the dense reference: every format of the sampling matrix S,
// outputs in rotation (csr, dense_matrix, dcsr, coo), (+,x) and (min,+), `=` and `+=`.
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
using s_formats =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using outputs = mp_list<loom::csr, loom::dense_matrix, loom::dcsr, loom::coo>;
using combos = lt::as_tuple<lt::product_with_rotating<outputs, semirings, s_formats>>;

using shape2 = std::array<std::int64_t, 2>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: sddmm C(i,j) = sum(k, S(i,j) * U(i,k) * V(k,j))", Combo,
                          sddmm) {
  using T = mp11::mp_at_c<Combo, 0>;
  // C, S are e0 x e1; U is e0 x e2; V is e2 x e1
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 1>, loom::dense_matrix,
                   loom::dense_matrix>(
      "C(i,j) = sum(k, S(i,j) * U(i,k) * V(k,j))", {"C", "S", "U", "V"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[2]},
                          shape2{e[2], e[1]}};
      },
      [](auto& C, const auto& S, const auto& U, const auto& V) {
        return std::pair{C(i, j), loom::sum(k, S(i, j) * U(i, k) * V(k, j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sddmm, combos);

TEST_CASE_TEMPLATE_DEFINE("differential: sddmm C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k))", Combo,
                          sddmm_vt) {
  using T = mp11::mp_at_c<Combo, 0>;
  // C, S are e0 x e1; U is e0 x e2; V is e1 x e2
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 1>, loom::dense_matrix,
                   loom::dense_matrix>(
      "C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k))", {"C", "S", "U", "V"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[1]}, shape2{e[0], e[1]}, shape2{e[0], e[2]},
                          shape2{e[1], e[2]}};
      },
      [](auto& C, const auto& S, const auto& U, const auto& V) {
        return std::pair{C(i, j), loom::sum(k, S(i, j) * U(i, k) * V(j, k))};
      });
}
TEST_CASE_TEMPLATE_APPLY(sddmm_vt, combos);
