// Equality saturation's results run: every alternative of the vector flagship sum((X - u v^T)^2),
// and the expressions extracted under a node limit and after one iteration, against the dense
// reference (moved from saturation_static.cpp, which checks the same limits at compile time:
// no test unit over 30 s).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/evaluate.hpp>
#include <loom/expr/operators.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite/saturation.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../support/random.hpp"
#include "../support/reference.hpp"

namespace {
using namespace loom;
// the limits of saturation_static.cpp: a node limit hit after a few rewrites, one iteration
using tight = rewrite::saturation_limits<48, 12>;
using one_step = rewrite::saturation_limits<640, 1>;
}  // namespace

TEST_CASE_TEMPLATE("sum((X - u v^T)^2): every alternative and every limit give the reference",
                   Format, csr, dcsr) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  for (std::uint64_t seed : test::seeds) {
    auto X = test::random_tensor<double, Format>({5, 6}, test::density::medium, seed);
    auto u = test::random_tensor<double, dense_vector>({5}, test::density::full, seed + 1);
    auto v = test::random_tensor<double, dense_vector>({6}, test::density::full, seed + 2);
    const auto d = X(i, j) - u(i) * v(j);
    const auto e = loom::sum(i, j, d * d);
    const double ref = test::reference_eval(e);
    using R = rewrite::saturation_result<std::remove_cvref_t<decltype(e)>>;
    [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
      const double got[] = {loom::eval(rewrite::saturate_alternative<Ks>(e))...};
      for (double g : got) CHECK(g == doctest::Approx(ref));
    }(std::make_index_sequence<R::alternative_count>{});
    // the node limit hit after a few rewrites: still an equivalent expression
    CHECK(loom::eval(rewrite::saturate<tight>(e)) == doctest::Approx(ref));
    CHECK(loom::eval(rewrite::saturate<one_step>(e)) == doctest::Approx(ref));
  }
}
