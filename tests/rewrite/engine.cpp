// The rule engine: bottom-up passes to a fixpoint, the record of fired rules, the sum-product
// normal form, and the evaluator running the always-profitable rules (results unchanged).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/evaluate.hpp>
#include <loom/exec/explain.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite.hpp>

#include <doctest/doctest.h>

#include <type_traits>

#include "../support/random.hpp"
#include "../support/reference.hpp"

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
using x_j = expr::access<tensor<double, dense_vector>, J>;
using y_i = expr::access<tensor<double, dense_vector>, I>;
template <class X> using neg = map<fn::negate, X>;

// bottom-up, several passes: the inner zero is found first, then the sum of it, then the add
using nested = add<A_ij, sum<K, mul<B_jk, zero>>>;
static_assert(std::is_same_v<rewrite::rewrite_t<nested, rewrite::always_profitable>, A_ij>);
static_assert(
    std::is_same_v<rewrite::fired_t<nested, rewrite::always_profitable>,
                   mp_list<rules::mul_by_zero, rules::zero_propagation, rules::add_zero>>);
// nothing to do: nothing fires, the type is kept
static_assert(std::is_same_v<rewrite::rewrite_t<sum<J, mul<A_ij, x_j>>, rewrite::always_profitable>,
                             sum<J, mul<A_ij, x_j>>>);
static_assert(boost::mp11::mp_empty<
              rewrite::fired_t<sum<J, mul<A_ij, x_j>>, rewrite::always_profitable>>::value);
// factorisation: sum(j, k, y(i) * A(i,j) * B(j,k)) pushes k to B and y out of the j sum
using chain = sum<J, sum<K, mul<mul<y_i, A_ij>, B_jk>>>;
static_assert(std::is_same_v<rewrite::rewrite_t<chain, rewrite::always_profitable>,
                             mul<y_i, sum<J, mul<A_ij, sum<K, B_jk>>>>>);
// a matrix-vector product of a sum of three matrices: three products, each its own loop
using sum3_times_x = sum<J, mul<add<add<A_ij, A_ij>, A_ij>, x_j>>;
static_assert(std::is_same_v<
              rewrite::rewrite_t<sum3_times_x, rewrite::always_profitable>,
              add<add<sum<J, mul<A_ij, x_j>>, sum<J, mul<A_ij, x_j>>>, sum<J, mul<A_ij, x_j>>>>);
// a vector that does not use j leaves the sum by push_sum, the matrix term is distributed
static_assert(
    std::is_same_v<rewrite::rewrite_t<sum<J, mul<add<y_i, A_ij>, x_j>>, rewrite::always_profitable>,
                   add<mul<y_i, sum<J, x_j>>, sum<J, mul<A_ij, x_j>>>>);
// sum over an absent index: the count factor
static_assert(
    std::is_same_v<rewrite::rewrite_t<sum<K, add<A_ij, B_jk>>, rewrite::always_profitable>,
                   add<mul<sum<K, one>, A_ij>, sum<K, B_jk>>>);
// constant folding through the fixpoint
static_assert(
    std::is_same_v<rewrite::rewrite_t<mul<literal<double>, mul<literal<double>, neg<neg<A_ij>>>>,
                                      rewrite::always_profitable>,
                   mul<literal<double>, A_ij>>);

// the sum-product normal form: a sum of signed terms, sums outermost (sorted), products flat
using square = mul<add<A_ij, neg<y_i>>, add<A_ij, neg<y_i>>>;
using square_nf = rewrite::rewrite_t<square, rewrite::sum_product_normal_form>;
static_assert(
    std::is_same_v<
        square_nf,
        add<mul<A_ij, A_ij>, add<neg<mul<A_ij, y_i>>, add<neg<mul<y_i, A_ij>>, mul<y_i, y_i>>>>>);
// equivalent expressions from the notes meet: Σ_j (Σ_k A B) x  ==  Σ_k Σ_j A B x
using left = mul<sum<J, mul<A_ij, sum<K, B_jk>>>, y_i>;
using right = sum<K, sum<J, mul<mul<A_ij, B_jk>, y_i>>>;
static_assert(std::is_same_v<rewrite::rewrite_t<left, rewrite::sum_product_normal_form>,
                             rewrite::rewrite_t<right, rewrite::sum_product_normal_form>>);
static_assert(std::is_same_v<rewrite::rewrite_t<right, rewrite::sum_product_normal_form>,
                             sum<J, sum<K, mul<A_ij, mul<B_jk, y_i>>>>>);
// (a - b) * c  ==  a*c - b*c  (negation as the term's sign)
using dist1 = mul<add<A_ij, neg<y_i>>, x_j>;
using dist2 = add<mul<A_ij, x_j>, neg<mul<y_i, x_j>>>;
static_assert(std::is_same_v<rewrite::rewrite_t<dist1, rewrite::sum_product_normal_form>,
                             rewrite::rewrite_t<dist2, rewrite::sum_product_normal_form>>);

// A toy rule pair that undoes itself: the engine must stop at its bound, so only a two-pass
// bound is asked for here (the compile-fail test rewrite.cycle checks the message).
struct swap_add {
  static constexpr std::string_view name = "swap_add";
  template <class L, class R> static constexpr auto apply(const add<L, R>& e) -> add<R, L> {
    return {e.rhs, e.lhs};
  }
};
static_assert(rewrite_rule<swap_add> && !rewrite_rule<int>);
static_assert(rule_applies_to<swap_add, add<A_ij, y_i>> && !rule_applies_to<swap_add, A_ij>);
}  // namespace

TEST_CASE("fired rules are listed by name") {
  CHECK(rewrite::fired_names<rewrite::fired_t<nested, rewrite::always_profitable>>() ==
        "mul_by_zero, zero_propagation, add_zero");
  CHECK(rewrite::fired_names<mp_list<>>().empty());
}

TEST_CASE("explain lists the rules the evaluator applied") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  tensor<double, csr> A({3, 4});
  tensor<double, dense_vector> y({3}), x({4});
  const std::string plan = loom::explain(x(j), loom::sum(i, y(i) * A(i, j) * 2.0));
  CHECK(plan.find("rules fired: push_sum") != std::string::npos);
  const std::string plain = loom::explain(y(i), loom::sum(j, A(i, j) * x(j)));
  CHECK(plain.find("rules fired") == std::string::npos);
  // (A + B) x: distributed, then one kernel per term into the dense output, each an SpMV
  tensor<double, csr> B({3, 4});
  const std::string split = loom::explain(y(i), loom::sum(j, (A(i, j) + B(i, j)) * x(j)));
  CHECK(split.find("rules fired: distribute_contracted") != std::string::npos);
  CHECK(split.find("one kernel per term") != std::string::npos);
  CHECK(split.find("term 2:\nkernel: out(i) = sum(j, ") != std::string::npos);
  CHECK(split.find("term 3:") == std::string::npos);
  // a sparse output keeps one kernel (its terms' entries are merged as they are appended)
  tensor<double, sparse_vector> z({3});
  const std::string merged = loom::explain(z(i), loom::sum(j, (A(i, j) + B(i, j)) * x(j)));
  CHECK(merged.find("one kernel per term") == std::string::npos);
}

TEST_CASE_TEMPLATE("rewritten kernels give the reference result", Format, csr, dcsr, dense_matrix) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  for (std::uint64_t seed : test::seeds) {
    const auto A = test::random_tensor<double, Format>({6, 5}, test::density::medium, seed);
    const auto B = test::random_tensor<double, Format>({5, 7}, test::density::medium, seed + 1);
    const auto y = test::random_tensor<double, dense_vector>({6}, test::density::full, seed + 2);
    tensor<double, dense_vector> out({5});
    SUBCASE("push_sum") {
      const auto e = loom::sum(i, y(i) * A(i, j));
      out(j) = e;
      const auto ref = test::reference_eval(out(j), e);
      for (std::int64_t c = 0; c < 5; ++c) CHECK(out.values()[c] == doctest::Approx(ref.values[c]));
    }
    SUBCASE("push_sum through two sums, split_sum, sum_absent") {
      const double s = loom::eval(loom::sum(i, j, loom::sum(k, y(i) * A(i, j) * B(j, k))));
      CHECK(s == doctest::Approx(test::reference_eval(
                     loom::sum(i, j, loom::sum(k, y(i) * A(i, j) * B(j, k))))));
      const double t = loom::eval(loom::sum(i, loom::sum(j, A(i, j) + y(i))));
      CHECK(t == doctest::Approx(test::reference_eval(loom::sum(i, loom::sum(j, A(i, j) + y(i))))));
    }
  }
}

namespace {
// hoisting: the inner sum of BATAx is recomputed for every j unless computed once
using A_ik = expr::access<tensor<double, csr>, I, K>;
using x_k = expr::access<tensor<double, dense_vector>, K>;
static_assert(rewrite::hoistable_v<sum<K, mul<A_ik, x_k>>, A_ij>);
static_assert(rewrite::has_hoistable_v<sum<I, mul<A_ij, sum<K, mul<A_ik, x_k>>>>>);
static_assert(!rewrite::hoistable_v<sum<J, A_ij>, y_i>);   // the sibling needs only i
static_assert(!rewrite::hoistable_v<A_ij, sum<K, B_jk>>);  // not a sum
static_assert(
    !rewrite::hoistable_v<sum<J, A_ij>, sum<J, B_jk>>);  // same bound name: the planner's case
static_assert(!rewrite::has_hoistable_v<sum<J, mul<A_ij, x_j>>>);
static_assert(!rewrite::hoistable_v<sum<K, literal<double>>, A_ij>);  // a count: a scaling
static_assert(
    !rewrite::hoistable_v<sum<K, mul<x_k, expr::expand<I, x_k>>>, A_ij>);  // i only broadcast
}  // namespace

TEST_CASE_TEMPLATE("hoisted sums (BATAx, SigmaMMM) give the reference result", Format, csr, dcsr) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  constexpr loom::index<"k"> k;
  for (std::uint64_t seed : test::seeds) {
    const auto A = test::random_tensor<double, Format>({7, 6}, test::density::medium, seed);
    const auto B = test::random_tensor<double, csr>({6, 5}, test::density::medium, seed + 1);
    const auto x = test::random_tensor<double, dense_vector>({6}, test::density::full, seed + 2);
    tensor<double, dense_vector> y({6});
    const auto batax = loom::sum(i, loom::sum(k, 0.5 * A(i, j) * A(i, k) * x(k)));
    y(j) = batax;
    const auto ref = test::reference_eval(y(j), batax);
    for (std::int64_t c = 0; c < 6; ++c) CHECK(y.values()[c] == doctest::Approx(ref.values[c]));
    CHECK(loom::explain(y(j), batax).find("hoisted: sum(k, ") != std::string::npos);
    CHECK(loom::eval(loom::sum(j, x(j)) * loom::sum(i, loom::sum(k, A(i, k)))) ==
          doctest::Approx(
              test::reference_eval(loom::sum(j, x(j)) * loom::sum(i, loom::sum(k, A(i, k))))));
    const auto smmm = loom::sum(i, j, loom::sum(k, A(i, k) * B(k, j)));
    CHECK(loom::eval(smmm) == doctest::Approx(test::reference_eval(smmm)));
    tensor<double, dcsr> S({7, 6});  // a sparse output with a hoisted intermediate
    S(i, j) = A(i, j) * loom::sum(k, B(j, k));
    const auto sref = test::reference_eval(S(i, j), A(i, j) * loom::sum(k, B(j, k)));
    for (std::int64_t r = 0; r < 7; ++r)
      for (std::int64_t c = 0; c < 6; ++c) CHECK(S.at(r, c) == doctest::Approx(sref.at({r, c})));
  }
}

// Hoisting is costed (optimize/choice/hoist_choice.hpp): computing sum(k, G(n,k) * x(k)) for every n
// pays when F visits many m per n, and loses when F keeps few rows (the filter TPC-H Q5 lost).
TEST_CASE("a sum is hoisted only when the cost model says it is cheaper") {
  constexpr loom::index<"n"> n;
  constexpr loom::index<"m"> m;
  constexpr loom::index<"k"> k;
  const auto G = test::random_tensor<double, csr>({400, 60}, test::density::medium, 7);
  const auto x = test::random_tensor<double, dense_vector>({60}, test::density::full, 8);
  std::vector<std::array<std::int64_t, 2>> few, many;
  for (std::int64_t r = 0; r < 3; ++r) few.push_back({r * 7, r});
  for (std::int64_t r = 0; r < 400; ++r)
    for (std::int64_t c = 0; c < 400; c += 9) many.push_back({r, c});
  const auto filter = loom::from_coo<csr>({400, 400}, few, std::vector<double>(few.size(), 2.0));
  const auto spread = loom::from_coo<csr>({400, 400}, many, std::vector<double>(many.size(), 0.5));
  for (const auto* F : {&filter, &spread}) {
    tensor<double, dense_vector> y({400});
    const auto e = loom::sum(n, (*F)(n, m) * loom::sum(k, G(n, k) * x(k)));
    y(m) = e;
    const auto ref = test::reference_eval(y(m), e);
    for (std::int64_t c = 0; c < 400; ++c) CHECK(y.values()[c] == doctest::Approx(ref.values[c]));
    const std::string plan = loom::explain(y(m), e);
    INFO(plan);
    CHECK(plan.find(F == &filter ? "not hoisted: sum(k, " : "\nhoisted: sum(k, ") !=
          std::string::npos);
  }
}
