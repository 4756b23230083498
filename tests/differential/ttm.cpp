// Differential tests: TTM Y(i,j,r) = sum(k, T(i,j,k) * M(k,r)), against the dense reference:
// 3-tensors in csf<3>, coo_n<3>, dense_n<3>, a dense-outer CSF and a mode-permuted CSF; M dense or
// csr; outputs in rotation (dense_n<3>, csf<3>, coo_n<3>); (+,x) and (min,+); `=` and `+=`.
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
using matrices = mp_list<loom::dense_matrix, loom::csr>;
using outputs = mp_list<loom::dense_n<3>, loom::csf<3>, loom::coo_n<3>>;
using combos = lt::as_tuple<lt::product_with_rotating<outputs, semirings, tensors3, matrices>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: ttm Y(i,j,r) = sum(k, T(i,j,k) * M(k,r))", Combo, ttm) {
  using V = mp11::mp_at_c<Combo, 0>;
  // T is e0 x e1 x e2, M is e2 x e3, Y is e0 x e1 x e3
  lt::kernel_cases<V, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "Y(i,j,r) = sum(k, T(i,j,k) * M(k,r))", {"Y", "T", "M"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{std::array<std::int64_t, 3>{e[0], e[1], e[3]},
                          std::array<std::int64_t, 3>{e[0], e[1], e[2]},
                          std::array<std::int64_t, 2>{e[2], e[3]}};
      },
      [](auto& Y, const auto& T, const auto& M) {
        return std::pair{Y(i, j, r), loom::sum(k, T(i, j, k) * M(k, r))};
      },
      lt::case_options{.all_pairs = false});  // 6 density pairs: the reference is O(n^4) here
}
TEST_CASE_TEMPLATE_APPLY(ttm, combos);
