// Compile-time traits of expressions: free and summed indices, value type, sparsity class,
// annihilation, static extents (pure static_asserts, plus one runtime case for doctest).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

namespace {
using namespace loom;
using boost::mp11::mp_list;
using I = loom::index<"i">;
using J = loom::index<"j">;
using K = loom::index<"k">;
using A_t = expr::access<tensor<double, csr>, I, J>;
using x_t = expr::access<tensor<double, dense_vector>, J>;
using B_t = expr::access<tensor<float, csr>, J, K>;
using spmv = expr::sum<J, expr::mul<A_t, x_t>>;

static_assert(std::same_as<expr::free_indices_t<spmv>, mp_list<I>>);
static_assert(std::same_as<expr::summed_indices_t<spmv>, mp_list<J>>);
static_assert(std::same_as<expr::all_indices_t<spmv>, mp_list<I, J>>);
static_assert(std::same_as<expr::accesses_t<spmv>, mp_list<A_t, x_t>>);
static_assert(std::same_as<expr::value_type_t<expr::mul<A_t, B_t>>, double>);
static_assert(std::same_as<expr::value_type_t<expr::mul<B_t, expr::literal<int>>>, float>);
static_assert(expr::sparsity_v<spmv> == expr::sparsity::sparse);
static_assert(expr::sparsity_v<x_t> == expr::sparsity::dense);
static_assert(expr::sparsity_v<expr::add<A_t, x_t>> == expr::sparsity::dense);
static_assert(expr::annihilates_v<expr::mul<A_t, x_t>> &&
              !expr::annihilates_v<expr::add<A_t, expr::literal<double>>>);
static_assert(expr::sparsity_v<expr::map<fn::negate, A_t>> == expr::sparsity::sparse);
static_assert(expr::sparsity_v<expr::map<fn::greater, A_t, expr::literal<double>>> ==
              expr::sparsity::dense);
using fixed = expr::access<tensor<double, format<dense_level<4>>>, I>;
static_assert(
    std::same_as<expr::static_extents_t<fixed>, mp_list<mp_list<I, boost::mp11::mp_size_t<4>>>>);
// sum_product: the one flattener of decompose and la
using sp = expr::sum_product<expr::sum<K, spmv>>;
static_assert(std::same_as<sp::summed, mp_list<K, J>>);
static_assert(std::same_as<sp::body, expr::mul<A_t, x_t>>);
static_assert(std::same_as<sp::factors, mp_list<A_t, x_t>> && sp::of_accesses);
using three = expr::mul<expr::mul<A_t, expr::literal<double>>, B_t>;
static_assert(
    std::same_as<expr::sum_product<three>::factors, mp_list<A_t, expr::literal<double>, B_t>>);
static_assert(!expr::sum_product<three>::of_accesses);                 // a literal factor
static_assert(!expr::sum_product<expr::mul<A_t, spmv>>::of_accesses);  // a sum inside
static_assert(!expr::sum_product<expr::sum<J, expr::sum<J, A_t>>>::of_accesses);  // J twice
static_assert(std::same_as<expr::sum_product<A_t>::factors, mp_list<A_t>>);
static_assert(plan::assignment_is_valid<expr::access<tensor<double, dense_vector>, I>, spmv>);
static_assert(!plan::assignment_is_valid<expr::access<tensor<double, dense_vector>, K>, spmv>);
static_assert(
    !plan::assignment_is_valid<expr::access<tensor<double, dense_vector>, I>, expr::mul<A_t, x_t>>);
}  // namespace

TEST_CASE("operators build the expected node types") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  tensor<double, csr> A({2, 2});
  tensor<double, dense_vector> x({2});
  auto e = loom::sum(j, A(i, j) * x(j));
  static_assert(std::same_as<decltype(e), spmv>);
  auto s = A(i, j) - 2.0 * A(i, j);
  static_assert(
      std::same_as<decltype(s),
                   expr::add<A_t, expr::map<fn::negate, expr::mul<expr::literal<double>, A_t>>>>);
  auto two = loom::sum(i, j, A(i, j));
  static_assert(std::same_as<decltype(two), expr::sum<I, expr::sum<J, A_t>>>);
  CHECK(e.body.lhs.tensor == &A);
  const auto factors = expr::factors_of(expr::sum_product<spmv>::body_of(e));
  static_assert(std::same_as<std::remove_const_t<decltype(factors)>, std::tuple<A_t, x_t>>);
  CHECK(std::get<0>(factors).tensor == &A);
  CHECK(std::get<1>(factors).tensor == &x);
}
