// Parallel SpMV and sparse add: every thread count against the serial result (bit for bit) and
// the dense reference, over matrix formats (rows, columns and coordinates as the outer loop),
// dense and sparse outputs, densities, seeds and shapes with fewer rows than threads.
// SPDX-License-Identifier: BSL-1.0
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include "support.hpp"

namespace {

namespace lt = loom::test;
namespace par = loom::test::par;
namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using spmv_combos = lt::as_tuple<mp11::mp_product<
    mp_list, mp_list<loom::csr, loom::dcsr, loom::coo, loom::csc, loom::dense_matrix>,
    mp_list<loom::dense_vector, loom::sparse_vector>>>;

// rows in the adaptive level, cut-offs lowered so that these extents give every fiber kind: its
// chunks are assembled straight into the final arrays, then laid out (parallel/run.hpp)
using rows_adaptive =
    loom::format<loom::dense, loom::adaptive_level<std::int64_t, std::int32_t, 3, 2>>;

using add_combos = lt::as_tuple<mp_list<
    mp_list<rows_adaptive, loom::csr, rows_adaptive>, mp_list<loom::csr, loom::csr, loom::csr>,
    mp_list<loom::dcsr, loom::csr, loom::dcsr>, mp_list<loom::coo, loom::dcsr, loom::csr>,
    mp_list<loom::csr, loom::dense_matrix, loom::dense_matrix>,
    mp_list<loom::csr, loom::csr, loom::dense_matrix>, mp_list<loom::csc, loom::csc, loom::csc>>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("parallel: spmv y(i) = sum(j, A(i,j) * x(j))", Combo, spmv) {
  using A_format = mp11::mp_at_c<Combo, 0>;
  using y_format = mp11::mp_at_c<Combo, 1>;
  const std::int64_t split = par::for_each_case(
      "y(i) = sum(j, A(i,j) * x(j))",
      lt::concat("A=", lt::format_name<A_format>(), " y=", lt::format_name<y_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        const auto A = lt::random_tensor<double, A_format>({e[0], e[1]}, da, seed);
        const auto x = lt::random_tensor<double, loom::dense_vector>({e[1]}, db, seed + 7);
        const auto y = lt::random_tensor<double, y_format>({e[0]}, lt::density::medium, seed + 9);
        par::check_kernel(
            ctx, y,
            [](auto& out, const auto& a, const auto& v) {
              return std::pair{out(i), loom::sum(j, a(i, j) * v(j))};
            },
            A, x);
      });
  // a row-major matrix splits its rows; a column-major one its columns (a reduction: dense y)
  const bool splits = A_format::modes[0] == 0 || std::is_same_v<y_format, loom::dense_vector>;
  CHECK((split > 0) == splits);
}
TEST_CASE_TEMPLATE_APPLY(spmv, spmv_combos);

TEST_CASE_TEMPLATE_DEFINE("parallel: sparse add C(i,j) = A(i,j) + B(i,j)", Combo, add) {
  using A_format = mp11::mp_at_c<Combo, 0>;
  using B_format = mp11::mp_at_c<Combo, 1>;
  using C_format = mp11::mp_at_c<Combo, 2>;
  const std::int64_t split = par::for_each_case(
      "C(i,j) = A(i,j) + B(i,j)",
      lt::concat("A=", lt::format_name<A_format>(), " B=", lt::format_name<B_format>(),
                 " C=", lt::format_name<C_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        const auto A = lt::random_tensor<double, A_format>({e[0], e[1]}, da, seed);
        const auto B = lt::random_tensor<double, B_format>({e[0], e[1]}, db, seed + 3);
        const auto C =
            lt::random_tensor<double, C_format>({e[0], e[1]}, lt::density::sparse, seed + 5);
        par::check_kernel(
            ctx, C,
            [](auto& out, const auto& a, const auto& b) {
              return std::pair{out(i, j), a(i, j) + b(i, j)};
            },
            A, B);
      });
  CHECK(split > 0);
}
TEST_CASE_TEMPLATE_APPLY(add, add_combos);
