// Parallel SpGEMM and SDDMM: every thread count against the serial result (bit for bit) and the
// dense reference, over formats (row-wise Gustavson workspaces, in-order appends, dense
// outputs), densities, seeds and shapes with fewer rows than threads.
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
constexpr loom::index<"k"> k;

using spgemm_combos = lt::as_tuple<mp_list<
    mp_list<loom::csr, loom::csr, loom::csr>, mp_list<loom::dcsr, loom::dcsr, loom::dcsr>,
    mp_list<loom::csr, loom::csr, loom::dense_matrix>, mp_list<loom::coo, loom::csr, loom::csr>,
    mp_list<loom::csr, loom::dense_matrix, loom::dcsr>>>;

using sddmm_combos =
    lt::as_tuple<mp_list<mp_list<loom::csr, loom::csr>, mp_list<loom::dcsr, loom::dcsr>,
                         mp_list<loom::coo, loom::csr>, mp_list<loom::csr, loom::dense_matrix>>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("parallel: spgemm C(i,j) = sum(k, A(i,k) * B(k,j))", Combo, spgemm) {
  using A_format = mp11::mp_at_c<Combo, 0>;
  using B_format = mp11::mp_at_c<Combo, 1>;
  using C_format = mp11::mp_at_c<Combo, 2>;
  const std::int64_t split = par::for_each_case(
      "C(i,j) = sum(k, A(i,k) * B(k,j))",
      lt::concat("A=", lt::format_name<A_format>(), " B=", lt::format_name<B_format>(),
                 " C=", lt::format_name<C_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        const auto A = lt::random_tensor<double, A_format>({e[0], e[2]}, da, seed);
        const auto B = lt::random_tensor<double, B_format>({e[2], e[1]}, db, seed + 3);
        const auto C =
            lt::random_tensor<double, C_format>({e[0], e[1]}, lt::density::sparse, seed + 5);
        par::check_kernel(
            ctx, C,
            [](auto& out, const auto& a, const auto& b) {
              return std::pair{out(i, j), loom::sum(k, a(i, k) * b(k, j))};
            },
            A, B);
      });
  CHECK(split > 0);
}
TEST_CASE_TEMPLATE_APPLY(spgemm, spgemm_combos);

TEST_CASE_TEMPLATE_DEFINE("parallel: sddmm C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k))", Combo,
                          sddmm) {
  using S_format = mp11::mp_at_c<Combo, 0>;
  using C_format = mp11::mp_at_c<Combo, 1>;
  const std::int64_t split = par::for_each_case(
      "C(i,j) = sum(k, S(i,j) * U(i,k) * V(j,k))",
      lt::concat("S=", lt::format_name<S_format>(), " U=V=dense C=", lt::format_name<C_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        const auto S = lt::random_tensor<double, S_format>({e[0], e[1]}, da, seed);
        const auto U = lt::random_tensor<double, loom::dense_matrix>({e[0], e[3]}, db, seed + 3);
        const auto V = lt::random_tensor<double, loom::dense_matrix>({e[1], e[3]},
                                                                     lt::density::full, seed + 4);
        const auto C =
            lt::random_tensor<double, C_format>({e[0], e[1]}, lt::density::sparse, seed + 5);
        par::check_kernel(
            ctx, C,
            [](auto& out, const auto& s, const auto& u, const auto& v) {
              return std::pair{out(i, j), loom::sum(k, s(i, j) * u(i, k) * v(j, k))};
            },
            S, U, V);
      });
  CHECK(split > 0);
}
TEST_CASE_TEMPLATE_APPLY(sddmm, sddmm_combos);
