// Every rule of rewrite/rules/: the exact node type it makes, and the shapes it must reject
// (STYLE H14: positive and negative static_asserts), plus the values it carries along.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite.hpp>
#include <loom/rewrite/rules/constants_to_literals.hpp>

#include <doctest/doctest.h>

#include <type_traits>

namespace {
using namespace loom;
using boost::mp11::mp_list;
using expr::add;
using expr::literal;
using expr::map;
using expr::mul;
using expr::sum;
using rewrite::one;
using rewrite::zero;
using I = loom::index<"i">;
using J = loom::index<"j">;
using K = loom::index<"k">;
using A_ij = expr::access<tensor<double, csr>, I, J>;
using B_jk = expr::access<tensor<double, csr>, J, K>;
using C_ik = expr::access<tensor<double, dense_matrix>, I, K>;
using x_j = expr::access<tensor<double, dense_vector>, J>;
using y_i = expr::access<tensor<double, dense_vector>, I>;
template <class X> using neg = map<fn::negate, X>;
template <class R, class E> using once = apply_rule_t<R, E>;  // one application at the root

// mul_by_zero
static_assert(std::is_same_v<once<rules::mul_by_zero, mul<A_ij, zero>>, zero>);
static_assert(std::is_same_v<once<rules::mul_by_zero, mul<zero, x_j>>, zero>);
static_assert(std::is_same_v<once<rules::mul_by_zero, expr::where<zero, x_j>>, zero>);
static_assert(!rule_applies_to<rules::mul_by_zero, add<A_ij, zero>>);
static_assert(!rule_applies_to<rules::mul_by_zero, mul<A_ij, one>>);

// add_zero
static_assert(std::is_same_v<once<rules::add_zero, add<A_ij, zero>>, A_ij>);
static_assert(std::is_same_v<once<rules::add_zero, add<zero, x_j>>, x_j>);
static_assert(std::is_same_v<once<rules::add_zero, add<zero, zero>>, zero>);
static_assert(!rule_applies_to<rules::add_zero, mul<A_ij, zero>>);

// mul_by_one
static_assert(std::is_same_v<once<rules::mul_by_one, mul<A_ij, one>>, A_ij>);
static_assert(std::is_same_v<once<rules::mul_by_one, mul<one, x_j>>, x_j>);
static_assert(!rule_applies_to<rules::mul_by_one, add<A_ij, one>>);

// zero_propagation
static_assert(std::is_same_v<once<rules::zero_propagation, sum<I, zero>>, zero>);
static_assert(std::is_same_v<once<rules::zero_propagation, neg<zero>>, zero>);
static_assert(std::is_same_v<once<rules::zero_propagation, expr::expand<I, zero>>, zero>);
static_assert(!rule_applies_to<rules::zero_propagation, sum<I, A_ij>>);
static_assert(
    !rule_applies_to<rules::zero_propagation, map<fn::less, zero, x_j>>);  // 0 < x is not 0

// fold_constants
static_assert(std::is_same_v<once<rules::fold_constants, mul<literal<double>, literal<double>>>,
                             literal<double>>);
static_assert(std::is_same_v<once<rules::fold_constants, add<literal<int>, literal<double>>>,
                             literal<double>>);
static_assert(std::is_same_v<once<rules::fold_constants, neg<literal<double>>>, literal<double>>);
static_assert(
    std::is_same_v<once<rules::fold_constants, mul<literal<double>, mul<literal<double>, A_ij>>>,
                   mul<literal<double>, A_ij>>);
static_assert(!rule_applies_to<rules::fold_constants, mul<literal<double>, A_ij>>);
static_assert(!rule_applies_to<rules::fold_constants, neg<A_ij>>);

// double_negation
static_assert(std::is_same_v<once<rules::double_negation, neg<neg<A_ij>>>, A_ij>);
static_assert(!rule_applies_to<rules::double_negation, neg<A_ij>>);

// sum_absent
static_assert(std::is_same_v<rewrite::rewrite_t<sum<K, A_ij>, mp_list<rules::sum_absent>>,
                             mul<sum<K, one>, A_ij>>);
static_assert(!rule_applies_to<rules::sum_absent, sum<J, A_ij>>);
static_assert(!rule_applies_to<rules::sum_absent, sum<K, one>>);  // the count itself

// split_sum
static_assert(
    std::is_same_v<once<rules::split_sum, sum<J, add<A_ij, x_j>>>, add<sum<J, A_ij>, sum<J, x_j>>>);
static_assert(!rule_applies_to<rules::split_sum, sum<J, mul<A_ij, x_j>>>);

// distribute_contracted: only a contracted product by one tensor inside the sum's own indices
static_assert(std::is_same_v<once<rules::distribute_contracted, sum<J, mul<add<A_ij, y_i>, x_j>>>,
                             add<sum<J, mul<A_ij, x_j>>, sum<J, mul<y_i, x_j>>>>);
static_assert(std::is_same_v<once<rules::distribute_contracted, sum<J, mul<x_j, add<A_ij, A_ij>>>>,
                             add<sum<J, mul<x_j, A_ij>>, sum<J, mul<x_j, A_ij>>>>);
static_assert(!rule_applies_to<rules::distribute_contracted, mul<add<A_ij, A_ij>, x_j>>);  // no Σ
static_assert(!rule_applies_to<rules::distribute_contracted,  // B(j,k) adds k: rows of B twice
                               sum<J, mul<add<A_ij, A_ij>, B_jk>>>);
static_assert(!rule_applies_to<rules::distribute_contracted,  // the factor is itself a product
                               sum<J, mul<add<A_ij, A_ij>, mul<x_j, x_j>>>>);
static_assert(!rule_applies_to<rules::distribute_contracted, sum<K, mul<add<A_ij, A_ij>, y_i>>>);

// push_sum
static_assert(
    std::is_same_v<once<rules::push_sum, sum<J, mul<y_i, A_ij>>>, mul<y_i, sum<J, A_ij>>>);
static_assert(
    std::is_same_v<once<rules::push_sum, sum<J, mul<A_ij, y_i>>>, mul<sum<J, A_ij>, y_i>>);
static_assert(std::is_same_v<once<rules::push_sum, sum<K, sum<J, mul<A_ij, B_jk>>>>,
                             sum<J, mul<A_ij, sum<K, B_jk>>>>);
static_assert(std::is_same_v<once<rules::push_sum, sum<J, mul<mul<y_i, A_ij>, x_j>>>,
                             mul<y_i, sum<J, mul<A_ij, x_j>>>>);
static_assert(std::is_same_v<once<rules::push_sum, sum<J, mul<mul<A_ij, y_i>, x_j>>>,
                             mul<y_i, sum<J, mul<A_ij, x_j>>>>);
static_assert(!rule_applies_to<rules::push_sum, sum<J, mul<A_ij, x_j>>>);  // both use j
static_assert(!rule_applies_to<rules::push_sum, sum<J, add<y_i, A_ij>>>);

// merge_sums
static_assert(std::is_same_v<once<rules::merge_sums, sum<J, sum<I, A_ij>>>, sum<I, sum<J, A_ij>>>);
static_assert(!rule_applies_to<rules::merge_sums, sum<I, sum<J, A_ij>>>);  // already sorted

// lift_sum
static_assert(
    std::is_same_v<once<rules::lift_sum, mul<sum<J, A_ij>, y_i>>, sum<J, mul<A_ij, y_i>>>);
static_assert(
    std::is_same_v<once<rules::lift_sum, mul<y_i, sum<J, A_ij>>>, sum<J, mul<y_i, A_ij>>>);
static_assert(std::is_same_v<once<rules::lift_sum, mul<sum<J, A_ij>, sum<K, C_ik>>>,
                             sum<J, mul<A_ij, sum<K, C_ik>>>>);
static_assert(
    std::is_same_v<once<rules::lift_sum, mul<sum<J, A_ij>, sum<K, B_jk>>>,  // only k lifts
                   sum<K, mul<sum<J, A_ij>, B_jk>>>);
static_assert(!rule_applies_to<rules::lift_sum, mul<sum<J, A_ij>, x_j>>);  // would capture x's j
static_assert(!rule_applies_to<rules::lift_sum, mul<sum<J, A_ij>, sum<J, B_jk>>>);

// distribute
static_assert(std::is_same_v<once<rules::distribute, mul<add<A_ij, y_i>, x_j>>,
                             add<mul<A_ij, x_j>, mul<y_i, x_j>>>);
static_assert(std::is_same_v<once<rules::distribute, mul<x_j, add<A_ij, y_i>>>,
                             add<mul<x_j, A_ij>, mul<x_j, y_i>>>);
static_assert(std::is_same_v<once<rules::distribute, mul<add<A_ij, y_i>, add<x_j, y_i>>>,
                             add<mul<A_ij, add<x_j, y_i>>, mul<y_i, add<x_j, y_i>>>>);
static_assert(!rule_applies_to<rules::distribute, add<mul<A_ij, y_i>, x_j>>);

// negation_outward
static_assert(
    std::is_same_v<once<rules::negation_outward, mul<neg<A_ij>, x_j>>, neg<mul<A_ij, x_j>>>);
static_assert(
    std::is_same_v<once<rules::negation_outward, mul<neg<A_ij>, neg<x_j>>>, mul<A_ij, x_j>>);
static_assert(std::is_same_v<once<rules::negation_outward, sum<J, neg<A_ij>>>, neg<sum<J, A_ij>>>);
static_assert(
    std::is_same_v<once<rules::negation_outward, neg<add<A_ij, x_j>>>, add<neg<A_ij>, neg<x_j>>>);
static_assert(!rule_applies_to<rules::negation_outward, neg<A_ij>>);

// flatten_product
static_assert(std::is_same_v<once<rules::flatten_product, mul<mul<A_ij, x_j>, y_i>>,
                             mul<A_ij, mul<x_j, y_i>>>);
static_assert(std::is_same_v<once<rules::flatten_product, add<add<A_ij, x_j>, y_i>>,
                             add<A_ij, add<x_j, y_i>>>);
static_assert(!rule_applies_to<rules::flatten_product, mul<A_ij, mul<x_j, y_i>>>);

// constants_to_literals
static_assert(
    std::is_same_v<rewrite::rewrite_t<mul<A_ij, one>, mp_list<rules::constants_to_literals<float>>>,
                   mul<A_ij, literal<float>>>);
static_assert(!rule_applies_to<rules::constants_to_literals<float>, A_ij>);

// every rule is a rewrite_rule
static_assert(boost::mp11::mp_all_of<rewrite::sum_product_normal_form, std::is_class>::value);
}  // namespace

TEST_CASE("rules carry the values of the nodes they rebuild") {
  tensor<double, csr> A({2, 2});
  tensor<double, dense_vector> y({2});
  const A_ij a{&A};
  const y_i yy{&y};
  SUBCASE("fold_constants computes in the semiring") {
    const auto r = rewrite::rewrite<mp_list<rules::fold_constants>>(
        mul<literal<double>, mul<literal<double>, A_ij>>{{2.5}, {{4.0}, a}});
    CHECK(r.expr.lhs.value == 10.0);
    CHECK(r.expr.rhs.tensor == &A);
    const auto n =
        rewrite::rewrite<mp_list<rules::fold_constants>>(neg<literal<double>>{{}, {{3.0}}});
    CHECK(n.expr.value == -3.0);
    const auto c = rewrite::rewrite<mp_list<rules::fold_constants>>(
        expr::map<fn::less, literal<double>, literal<double>>{{}, {{1.0}, {2.0}}});
    CHECK(c.expr.value == 1.0);
  }
  SUBCASE("push_sum and distribute keep the tensors") {
    const auto p =
        rewrite::rewrite<mp_list<rules::push_sum>>(expr::sum<J, mul<y_i, A_ij>>{{yy, a}});
    CHECK(p.expr.lhs.tensor == &y);
    CHECK(p.expr.rhs.body.tensor == &A);
    const auto d = rewrite::rewrite<mp_list<rules::distribute>>(
        mul<add<A_ij, y_i>, literal<double>>{{a, yy}, {7.0}});
    CHECK(d.expr.lhs.lhs.tensor == &A);
    CHECK(d.expr.rhs.lhs.tensor == &y);
    CHECK(d.expr.rhs.rhs.value == 7.0);
  }
  SUBCASE("constants become literals of the value type") {
    const auto f =
        rewrite::rewrite<mp_list<rules::constants_to_literals<double>>>(add<A_ij, one>{a, {}});
    CHECK(f.expr.rhs.value == 1.0);
    CHECK(f.expr.lhs.tensor == &A);
  }
}
