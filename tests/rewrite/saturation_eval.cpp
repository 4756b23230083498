// Equality saturation against the dense reference: the extracted expression and every
// alternative give the unsaturated result for vector and matrix kernels in several formats;
// limits hit still give an equivalent expression.
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
      // the node limit hit after a few rewrites: still an equivalent expression
      CHECK(loom::eval(rewrite::saturate<rewrite::saturation_limits<48, 12>>(e)) == doctest::Approx(ref));
      CHECK(loom::eval(rewrite::saturate<rewrite::saturation_limits<640, 1>>(e)) == doctest::Approx(ref));
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
