// Semiring traits: identities, annihilation and scale for every shipped semiring.
// SPDX-License-Identifier: BSL-1.0
#include <loom/core.hpp>

#include <doctest/doctest.h>

#include <limits>

namespace {
template <class T> void check_laws(T a, T b, T c) {
  using S = loom::semiring_traits<T>;
  CHECK(S::add(a, S::zero()) == a);
  CHECK(S::mul(a, S::one()) == a);
  CHECK(S::mul(a, S::zero()) == S::zero());
  CHECK(S::add(a, b) == S::add(b, a));
  CHECK(S::mul(a, S::add(b, c)) == S::add(S::mul(a, b), S::mul(a, c)));
  CHECK(loom::semiring_scale(a, 3) == S::add(a, S::add(a, a)));
  CHECK(loom::semiring_scale(a, 0) == S::zero());
}
}  // namespace

TEST_CASE("shipped semirings obey the semiring laws") {
  check_laws<double>(2, 3, 5);
  check_laws<std::int64_t>(2, 3, 5);
  check_laws<loom::min_plus<double>>(2.0, 3.0, 5.0);
  check_laws<loom::max_plus<double>>(2.0, 3.0, 5.0);
  check_laws<loom::max_times<double>>(2.0, 3.0, 5.0);
  check_laws<loom::boolean>(true, false, true);
  CHECK(loom::semiring_traits<loom::min_plus<double>>::zero().value ==
        std::numeric_limits<double>::infinity());
  CHECK((loom::min_plus<double>(2) * loom::min_plus<double>(3)).value == 5);
  CHECK((loom::min_plus<double>(2) + loom::min_plus<double>(3)).value == 2);
  static_assert(loom::semiring<loom::boolean> && !loom::semiring<int*>);
  static_assert(loom::is_arithmetic_semiring_v<double> &&
                !loom::is_arithmetic_semiring_v<loom::boolean>);
}

TEST_CASE("index variables are empty types named by a string") {
  constexpr loom::index<"row"> row;
  static_assert(decltype(row)::name == "row");
  static_assert(loom::index_variable<decltype(row)> && !loom::index_variable<int>);
  static_assert(std::is_empty_v<loom::index<"i">>);
}
