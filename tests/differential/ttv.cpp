// Differential tests: TTV Y(i,j) = sum(k, T(i,j,k) * v(k)), against the dense reference: 3-tensors
// in csf<3>, coo_n<3>, dense_n<3>, a dense-outer CSF and a mode-permuted CSF; dense and sparse v;
// outputs in rotation (dense_matrix, csr, dcsr, coo); (+,x) and (min,+); `=` and `+=`.
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
using tensors3 =
    mp_list<loom::csf<3>, loom::coo_n<3>, loom::dense_n<3>,
            loom::format<loom::dense, loom::compressed, loom::compressed>,
            loom::format<loom::dense, loom::compressed, loom::compressed>::ordered<2, 0, 1>>;
using vectors = mp_list<loom::dense_vector, loom::sparse_vector>;
using outputs = mp_list<loom::dense_matrix, loom::csr, loom::dcsr, loom::coo>;
using combos = lt::as_tuple<lt::product_with_rotating<outputs, semirings, tensors3, vectors>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: ttv Y(i,j) = sum(k, T(i,j,k) * v(k))", Combo, ttv) {
  using V = mp11::mp_at_c<Combo, 0>;
  // T is e0 x e1 x e2, v has e2 entries, Y is e0 x e1
  lt::kernel_cases<V, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "Y(i,j) = sum(k, T(i,j,k) * v(k))", {"Y", "T", "v"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{std::array<std::int64_t, 2>{e[0], e[1]},
                          std::array<std::int64_t, 3>{e[0], e[1], e[2]},
                          std::array<std::int64_t, 1>{e[2]}};
      },
      [](auto& Y, const auto& T, const auto& v) {
        return std::pair{Y(i, j), loom::sum(k, T(i, j, k) * v(k))};
      });
}
TEST_CASE_TEMPLATE_APPLY(ttv, combos);
