// Equality saturation against the dense reference: the extracted expression gives the
// unsaturated result for vector and matrix kernels (BATAx among them) in several formats.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/evaluate.hpp>
#include <loom/expr/operators.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite/saturation.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <utility>

#include "../support/random.hpp"
#include "../support/reference.hpp"

namespace {
using namespace loom;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// Static extents take part in the static cost: with k of extent 4 in U's and V's formats the
// default extraction of sum((X - U V^T)^2) is already the expanded form (U V^T no longer looks
// cheap), which it is not with the extent unknown (saturation_static.cpp)
using thin = format<dense, dense_level<4>>;
using I_ = loom::index<"i">;
using J_ = loom::index<"j">;
using K_ = loom::index<"k">;
using d_thin = expr::add<
    expr::access<tensor<double, csr>, I_, J_>,
    expr::map<fn::negate, expr::sum<K_, expr::mul<expr::access<tensor<double, thin>, I_, K_>,
                                                  expr::access<tensor<double, thin>, J_, K_>>>>>;
using flagship_thin = expr::sum<I_, expr::sum<J_, expr::mul<d_thin, d_thin>>>;
static_assert(rewrite::saturation::print_alternative<rewrite::saturation_result<flagship_thin>>()
                  .view()
                  .starts_with("((sum(i, sum(j, (#0(i,j) * #3(i,j)))) + "));
}  // namespace

TEST_CASE_TEMPLATE("saturated vector and matrix kernels equal the reference", Format, csr, dcsr,
                   dense_matrix) {
  for (std::uint64_t seed : test::seeds) {
    const auto A = test::random_tensor<double, Format>({5, 6}, test::density::medium, seed);
    const auto x = test::random_tensor<double, dense_vector>({6}, test::density::full, seed + 1);
    const auto z = test::random_tensor<double, dense_vector>({6}, test::density::medium, seed + 2);
    const auto u = test::random_tensor<double, dense_vector>({5}, test::density::full, seed + 3);
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
