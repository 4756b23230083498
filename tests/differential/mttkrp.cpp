// Differential tests: MTTKRP M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r)) with dense factors,
// against the dense reference: 3-tensors in csf<3>, coo_n<3>, dense_n<3>, a dense-outer CSF and a
// mode-permuted CSF; outputs dense_matrix and csr in rotation; (+,x) and (min,+); `=` and `+=`.
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
constexpr loom::index<"r"> r;

using semirings = mp_list<double, loom::min_plus<double>>;
using tensors3 =
    mp_list<loom::csf<3>, loom::coo_n<3>, loom::dense_n<3>,
            loom::format<loom::dense, loom::compressed, loom::compressed>,
            loom::format<loom::dense, loom::compressed, loom::compressed>::ordered<2, 0, 1>>;
using outputs = mp_list<loom::dense_matrix, loom::csr, loom::dcsr>;
using combos = lt::as_tuple<lt::product_with_rotating<outputs, semirings, tensors3>>;

using shape2 = std::array<std::int64_t, 2>;
using shape3 = std::array<std::int64_t, 3>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: mttkrp M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r))",
                          Combo, mttkrp) {
  using V = mp11::mp_at_c<Combo, 0>;
  // T is e0 x e1 x e2, B is e1 x e3, C is e2 x e3, M is e0 x e3
  lt::kernel_cases<V, mp11::mp_at_c<Combo, 2>, mp11::mp_at_c<Combo, 1>, loom::dense_matrix,
                   loom::dense_matrix>(
      "M(i,r) = sum(j, k, T(i,j,k) * B(j,r) * C(k,r))", {"M", "T", "B", "C"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{shape2{e[0], e[3]}, shape3{e[0], e[1], e[2]}, shape2{e[1], e[3]},
                          shape2{e[2], e[3]}};
      },
      [](auto& M, const auto& T, const auto& B, const auto& C) {
        return std::pair{M(i, r), loom::sum(j, k, T(i, j, k) * B(j, r) * C(k, r))};
      });
}
TEST_CASE_TEMPLATE_APPLY(mttkrp, combos);
