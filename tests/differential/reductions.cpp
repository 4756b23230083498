// Differential tests: full reductions to a scalar with loom::eval, against the dense reference:
// s = sum(i, j, A(i,j)) for every matrix format in (+,x) over double and int64 and in (min,+),
// and s = sum(i, j, k, T(i,j,k)) for the 3-tensor formats.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>

#include <support/compare.hpp>

namespace {

namespace lt = loom::test;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

using matrices =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using matrix_combos = lt::as_tuple<
    mp11::mp_product<mp_list, mp_list<double, std::int64_t, loom::min_plus<double>>, matrices>>;
using tensor_combos =
    lt::as_tuple<mp11::mp_product<mp_list, mp_list<double, loom::min_plus<double>>,
                                  mp_list<loom::csf<3>, loom::coo_n<3>, loom::dense_n<3>>>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, j, A(i,j)))", Combo, sum_matrix) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::scalar_cases<T, mp11::mp_at_c<Combo, 1>>(
      "s = eval(sum(i, j, A(i,j)))", {"A"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{std::array<std::int64_t, 2>{e[0], e[1]}};
      },
      [](const auto& A) { return loom::sum(i, j, A(i, j)); }, lt::case_options{.all_pairs = false});
}
TEST_CASE_TEMPLATE_APPLY(sum_matrix, matrix_combos);

TEST_CASE_TEMPLATE_DEFINE("differential: s = eval(sum(i, j, k, T(i,j,k)))", Combo, sum_tensor) {
  using V = mp11::mp_at_c<Combo, 0>;
  lt::scalar_cases<V, mp11::mp_at_c<Combo, 1>>(
      "s = eval(sum(i, j, k, T(i,j,k)))", {"T"},
      [](const std::array<std::int64_t, 4>& e) {
        return std::tuple{std::array<std::int64_t, 3>{e[0], e[1], e[2]}};
      },
      [](const auto& T) { return loom::sum(i, j, k, T(i, j, k)); },
      lt::case_options{.all_pairs = false});
}
TEST_CASE_TEMPLATE_APPLY(sum_tensor, tensor_combos);
