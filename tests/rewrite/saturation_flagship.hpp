// The flagship sum((X - U V^T)^2) saturated, for one format of X: the extracted expression,
// every alternative and the run-time choice against the dense reference. Shared by
// saturation_flagship.cpp (csr, dcsr) and saturation_flagship_dense.cpp (dense_matrix): the three
// formats in one unit took 37-39 s under g++ -O0.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_REWRITE_SATURATION_FLAGSHIP_HPP
#define LOOM_TESTS_REWRITE_SATURATION_FLAGSHIP_HPP

#include <loom/exec/evaluate.hpp>
#include <loom/expr/operators.hpp>
#include <loom/format/format.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite/saturation.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "../support/random.hpp"
#include "../support/reference.hpp"

namespace loom_test_saturation {
using namespace loom;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// every alternative of e, evaluated to a scalar
template <class E> void check_every_alternative(const E& e, double expected) {
  using R = rewrite::saturation_result<E>;
  [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    const double got[] = {loom::eval(rewrite::saturate_alternative<Ks>(e))...};
    for (double g : got) CHECK(g == doctest::Approx(expected));
  }(std::make_index_sequence<R::alternative_count>{});
}

template <class Format> void check_flagship() {
  for (std::uint64_t seed : test::seeds) {
    const auto X = test::random_tensor<double, Format>({7, 6}, test::density::medium, seed);
    const auto U = test::random_tensor<double, dense_matrix>({7, 3}, test::density::full, seed + 1);
    const auto V = test::random_tensor<double, dense_matrix>({6, 3}, test::density::full, seed + 2);
    const auto d = X(i, j) - loom::sum(k, U(i, k) * V(j, k));
    const auto e = loom::sum(i, j, d * d);
    const double ref = test::reference_eval(e);
    CHECK(loom::eval(rewrite::saturate(e)) == doctest::Approx(ref));
    check_every_alternative(e, ref);
    CHECK(rewrite::with_cheapest(e, [](const auto& x) { return loom::eval(x); }) ==
          doctest::Approx(ref));
  }
}
}  // namespace loom_test_saturation

#endif  // LOOM_TESTS_REWRITE_SATURATION_FLAGSHIP_HPP
