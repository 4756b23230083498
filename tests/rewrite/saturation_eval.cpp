// Equality saturation against the dense reference: the extracted expression and every
// alternative give the unsaturated result for several formats, and the run-time choice among
// the alternatives follows the data (sum((X - UV^T)^2) with dense and with very sparse X).
// SPDX-License-Identifier: BSL-1.0
#include <loom/expr/operators.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite/saturation.hpp>
#include <loom/stream/evaluate.hpp>

#include "../support/random.hpp"
#include "../support/reference.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <utility>

namespace {
using namespace loom;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// every alternative of e, evaluated to a scalar
template <class E>
void check_every_alternative(const E& e, double expected) {
  using R = rewrite::saturation_result<E>;
  [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    const double got[] = {loom::eval(rewrite::saturate_alternative<Ks>(e))...};
    for (double g : got) CHECK(g == doctest::Approx(expected));
  }(std::make_index_sequence<R::alternative_count>{});
}
}  // namespace

TEST_CASE_TEMPLATE("saturated sum((X - U V^T)^2) equals the reference", Format, csr, dcsr, dense_matrix) {
  for (std::uint64_t seed : test::seeds) {
    const auto X = test::random_tensor<double, Format>({7, 6}, test::density::medium, seed);
    const auto U = test::random_tensor<double, dense_matrix>({7, 3}, test::density::full, seed + 1);
    const auto V = test::random_tensor<double, dense_matrix>({6, 3}, test::density::full, seed + 2);
    const auto d = X(i, j) - loom::sum(k, U(i, k) * V(j, k));
    const auto e = loom::sum(i, j, d * d);
    const double ref = test::reference_eval(e);
    CHECK(loom::eval(rewrite::saturate(e)) == doctest::Approx(ref));
    check_every_alternative(e, ref);
    CHECK(rewrite::with_cheapest(e, [](const auto& x) { return loom::eval(x); }) == doctest::Approx(ref));
  }
}

TEST_CASE_TEMPLATE("saturated vector and matrix kernels equal the reference", Format, csr, dcsr, dense_matrix) {
  for (std::uint64_t seed : test::seeds) {
    const auto A = test::random_tensor<double, Format>({5, 6}, test::density::medium, seed);
    const auto x = test::random_tensor<double, dense_vector>({6}, test::density::full, seed + 1);
    const auto z = test::random_tensor<double, dense_vector>({6}, test::density::medium, seed + 2);
    const auto u = test::random_tensor<double, dense_vector>({5}, test::density::full, seed + 3);
    SUBCASE("sum((X - u v^T)^2)") {
      const auto d = A(i, j) - u(i) * x(j);
      const auto e = loom::sum(i, j, d * d);
      const double ref = test::reference_eval(e);
      CHECK(loom::eval(rewrite::saturate(e)) == doctest::Approx(ref));
      check_every_alternative(e, ref);
    }
    SUBCASE("y(i) = sum(j, A(i,j) * (x(j) + z(j))) * 2 - u(i)") {
      const auto e = loom::sum(j, A(i, j) * (x(j) + z(j))) * 2.0 - u(i);
      tensor<double, dense_vector> y({5});
      y(i) = rewrite::saturate(e);
      const auto ref = test::reference_eval(y(i), e);
      for (std::int64_t r = 0; r < 5; ++r) CHECK(y.values()[r] == doctest::Approx(ref.values[r]));
    }
    SUBCASE("BATAx: sum(i, A(i,j) * sum(k, A(i,k) * x(k)))") {
      const auto e = loom::sum(i, A(i, j) * loom::sum(k, A(i, k) * x(k)));
      tensor<double, dense_vector> y({6});
      y(j) = rewrite::saturate(e);
      const auto ref = test::reference_eval(y(j), e);
      for (std::int64_t r = 0; r < 6; ++r) CHECK(y.values()[r] == doctest::Approx(ref.values[r]));
    }
  }
}

TEST_CASE("the run-time choice follows the sparsity of X") {
  // K = 30 columns: with dense X the unexpanded plan (U V^T once per copy) is cheaper; with a
  // nearly empty X the expanded one, whose only O(IJK) work is on X's entries
  const auto U = test::random_tensor<double, dense_matrix>({60, 30}, test::density::full, 1);
  const auto V = test::random_tensor<double, dense_matrix>({60, 30}, test::density::full, 2);
  const auto dense_X = test::random_tensor<double, csr>({60, 60}, test::density::full, 3);
  const auto sparse_X = test::random_tensor<double, csr>({60, 60}, test::density::one, 4);
  const auto flagship = [&](const auto& X) {
    const auto d = X(i, j) - loom::sum(k, U(i, k) * V(j, k));
    return loom::sum(i, j, d * d);
  };
  const auto on_dense = rewrite::choose_alternative(flagship(dense_X));
  const auto on_sparse = rewrite::choose_alternative(flagship(sparse_X));
  REQUIRE(on_dense.costs.size() >= 2);
  CHECK(on_dense.chosen != on_sparse.chosen);
  for (const auto* X : {&dense_X, &sparse_X}) {
    const auto e = flagship(*X);
    CHECK(rewrite::with_cheapest(e, [](const auto& x) { return loom::eval(x); }) ==
          doctest::Approx(test::reference_eval(e)));
  }
}

TEST_CASE("explain_saturation reports the e-graph") {
  tensor<double, csr> X({3, 4});
  tensor<double, dense_matrix> U({3, 2}), V({4, 2});
  const std::string s = rewrite::explain_saturation(loom::sum(i, j, X(i, j) * loom::sum(k, U(i, k) * V(j, k))));
  CHECK(s.find("saturation: e-graph ") == 0);
  CHECK(s.find(" iterations, saturated, extracted cost ") != std::string::npos);
  const auto d = X(i, j) - loom::sum(k, U(i, k) * V(j, k));
  CHECK(rewrite::explain_saturation(loom::sum(i, j, d * d)).find("node limit hit") != std::string::npos);
}
