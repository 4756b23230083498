// Parallel MTTKRP, TTM, the triangle query and scalar reductions: every thread count against the
// serial result (bit for bit) and the dense reference. The triangle query and the reductions sum
// over the outer index (per-thread or per-chunk partials).
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
constexpr loom::index<"l"> l;

using mttkrp_combos = lt::as_tuple<mp_list<
    mp_list<loom::csf<3>, loom::dense_matrix>, mp_list<loom::coo_n<3>, loom::dense_matrix>,
    mp_list<loom::format<loom::dense, loom::compressed, loom::compressed>, loom::dense_matrix>>>;
using ttm_combos = lt::as_tuple<
    mp_list<mp_list<loom::csf<3>, loom::dense_n<3>>, mp_list<loom::csf<3>, loom::csf<3>>,
            mp_list<loom::coo_n<3>, loom::csf<3>>>>;
using triangle_formats =
    lt::as_tuple<mp_list<mp_list<loom::csr>, mp_list<loom::dcsr>, mp_list<loom::coo>>>;

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("parallel: mttkrp A(i,j) = sum(k, l, B(i,k,l) * C(k,j) * D(l,j))", Combo,
                          mttkrp) {
  using B_format = mp11::mp_at_c<Combo, 0>;
  using A_format = mp11::mp_at_c<Combo, 1>;
  const std::int64_t split = par::for_each_case(
      "A(i,j) = sum(k, l, B(i,k,l) * C(k,j) * D(l,j))",
      lt::concat("B=", lt::format_name<B_format>(), " C=D=dense A=", lt::format_name<A_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        const auto B = lt::random_tensor<double, B_format>({e[0], e[2], e[3]}, da, seed);
        const auto C = lt::random_tensor<double, loom::dense_matrix>({e[2], e[1]}, db, seed + 3);
        const auto D = lt::random_tensor<double, loom::dense_matrix>({e[3], e[1]},
                                                                     lt::density::full, seed + 4);
        const auto A =
            lt::random_tensor<double, A_format>({e[0], e[1]}, lt::density::medium, seed + 5);
        par::check_kernel(
            ctx, A,
            [](auto& out, const auto& b, const auto& c, const auto& d) {
              return std::pair{out(i, j), loom::sum(k, l, b(i, k, l) * c(k, j) * d(l, j))};
            },
            B, C, D);
      });
  CHECK(split > 0);
}
TEST_CASE_TEMPLATE_APPLY(mttkrp, mttkrp_combos);

TEST_CASE_TEMPLATE_DEFINE("parallel: ttm Y(i,j,k) = sum(l, T(i,j,l) * M(k,l))", Combo, ttm) {
  using T_format = mp11::mp_at_c<Combo, 0>;
  using Y_format = mp11::mp_at_c<Combo, 1>;
  const std::int64_t split = par::for_each_case(
      "Y(i,j,k) = sum(l, T(i,j,l) * M(k,l))",
      lt::concat("T=", lt::format_name<T_format>(), " M=dense Y=", lt::format_name<Y_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        const auto T = lt::random_tensor<double, T_format>({e[0], e[1], e[2]}, da, seed);
        const auto M = lt::random_tensor<double, loom::dense_matrix>({e[3], e[2]}, db, seed + 3);
        const auto Y =
            lt::random_tensor<double, Y_format>({e[0], e[1], e[3]}, lt::density::sparse, seed + 5);
        par::check_kernel(
            ctx, Y,
            [](auto& out, const auto& t, const auto& m) {
              return std::pair{out(i, j, k), loom::sum(l, t(i, j, l) * m(k, l))};
            },
            T, M);
      });
  CHECK(split > 0);
}
TEST_CASE_TEMPLATE_APPLY(ttm, ttm_combos);

TEST_CASE_TEMPLATE_DEFINE("parallel: triangle query and inner product (sums over the outer index)",
                          Combo, triangle) {
  using R_format = mp11::mp_at_c<Combo, 0>;
  const std::int64_t split = par::for_each_case(
      "sum(i, j, k, R(i,j) * R(j,k) * R(i,k)) and sum(i, j, R(i,j) * S(i,j))",
      lt::concat("R=S=", lt::format_name<R_format>()),
      [](const lt::case_context& ctx, const auto& e, lt::density da, lt::density db,
         std::uint64_t seed) {
        // the triangle query over an integer relation (counts weighted by the values)
        const auto R = lt::random_tensor<std::int64_t, R_format>({e[2], e[2]}, da, seed);
        par::check_scalar_kernel(
            ctx, [](const auto& r) { return loom::sum(i, j, k, r(i, j) * r(j, k) * r(i, k)); }, R);
        const auto A = lt::random_tensor<double, R_format>({e[0], e[1]}, da, seed + 1);
        const auto B = lt::random_tensor<double, R_format>({e[0], e[1]}, db, seed + 2);
        par::check_scalar_kernel(
            ctx, [](const auto& a, const auto& b) { return loom::sum(i, j, a(i, j) * b(i, j)); }, A,
            B);
      });
  CHECK(split > 0);
}
TEST_CASE_TEMPLATE_APPLY(triangle, triangle_formats);
