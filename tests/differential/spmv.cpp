// Differential tests: SpMV y(i) = sum(j, A(i,j) * x(j)) with a dense x, against the dense
// reference: every matrix format, dense and sparse y, (+,x) and (min,+), `=` over random prior
// contents and `+=`. The sparse-x twin is spmspv.cpp.
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

using semirings = mp_list<double, loom::min_plus<double>>;
using matrices =
    mp_list<loom::csr, loom::csc, loom::dcsr, loom::dcsc, loom::coo, loom::dense_matrix>;
using x_formats = mp_list<loom::dense_vector>;
using y_formats = mp_list<loom::dense_vector, loom::sparse_vector>;
using combos = lt::as_tuple<mp11::mp_product<mp_list, semirings, matrices, x_formats, y_formats>>;

// y has e0 entries, A is e0 x e1, x has e1 entries
auto shapes(const std::array<std::int64_t, 4>& e) {
  return std::tuple{std::array<std::int64_t, 1>{e[0]}, std::array<std::int64_t, 2>{e[0], e[1]},
                    std::array<std::int64_t, 1>{e[1]}};
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("differential: spmv y(i) = sum(j, A(i,j) * x(j)), x dense", Combo, spmv) {
  using T = mp11::mp_at_c<Combo, 0>;
  lt::kernel_cases<T, mp11::mp_at_c<Combo, 3>, mp11::mp_at_c<Combo, 1>, mp11::mp_at_c<Combo, 2>>(
      "y(i) = sum(j, A(i,j) * x(j))", {"y", "A", "x"}, shapes,
      [](auto& y, const auto& A, const auto& x) {
        return std::pair{y(i), loom::sum(j, A(i, j) * x(j))};
      });
}
TEST_CASE_TEMPLATE_APPLY(spmv, combos);
