// The flagship sum((X - U V^T)^2) saturated: the run-time choice follows the data (dense X: the
// unexpanded plan; nearly empty X: the expanded one), and explain_saturation reports the e-graph
// (moved from saturation_flagship.cpp: no test unit over 30 s).
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
}  // namespace

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
  const std::string s =
      rewrite::explain_saturation(loom::sum(i, j, X(i, j) * loom::sum(k, U(i, k) * V(j, k))));
  CHECK(s.find("saturation: e-graph ") == 0);
  CHECK(s.find(" iterations, saturated, extracted cost ") != std::string::npos);
  const auto d = X(i, j) - loom::sum(k, U(i, k) * V(j, k));
  CHECK(rewrite::explain_saturation(loom::sum(i, j, d * d)).find("node limit hit") !=
        std::string::npos);
}
