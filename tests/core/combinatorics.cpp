// core/combinatorics.hpp on toy types: ordered selections, their count and the capped prefixes
// decompose enumerates its elimination candidates with; core/elimination.hpp's greedy order on
// toy factors, with the two costs decompose and la give it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/core/combinatorics.hpp>
#include <loom/core/elimination.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <type_traits>

namespace {
using boost::mp11::mp_list;
using boost::mp11::mp_size;
struct a {};
struct b {};
struct c {};
using abc = mp_list<a, b, c>;
using loom::detail::ordered_prefix_count;
using loom::detail::ordered_prefixes;
using loom::detail::ordered_selections;

static_assert(std::is_same_v<ordered_selections<abc, 0>::type, mp_list<mp_list<>>>);
static_assert(
    std::is_same_v<ordered_selections<abc, 1>::type, mp_list<mp_list<a>, mp_list<b>, mp_list<c>>>);
static_assert(std::is_same_v<ordered_selections<mp_list<a, b>, 2>::type,
                             mp_list<mp_list<a, b>, mp_list<b, a>>>);
static_assert(mp_size<ordered_selections<abc, 2>::type>::value == 6);
static_assert(mp_size<ordered_selections<abc, 3>::type>::value == 6);  // the permutations
static_assert(std::is_same_v<boost::mp11::mp_at_c<ordered_selections<abc, 2>::type, 3>,
                             mp_list<b, c>>);  // a b, a c, b a, b c, ...

static_assert(ordered_prefix_count(0) == 0 && ordered_prefix_count(1) == 1);
static_assert(ordered_prefix_count(3) == 3 + 6 + 6);
static_assert(ordered_prefix_count(4) == 4 + 12 + 24 + 24);

// every prefix when the cap allows, shortest first; capped otherwise
static_assert(mp_size<ordered_prefixes<abc, 100>::type>::value == ordered_prefix_count(3));
static_assert(std::is_same_v<ordered_prefixes<abc, 4>::type,
                             mp_list<mp_list<a>, mp_list<b>, mp_list<c>, mp_list<a, b>>>);
static_assert(std::is_same_v<ordered_prefixes<mp_list<>, 8>::type, mp_list<>>);
}  // namespace

TEST_CASE("core: ordered selections and prefixes count as their formulas say") {
  // four elements: 4 + 12 + 24 + 24 prefixes by type and by formula
  CHECK(mp_size<ordered_prefixes<mp_list<a, b, c, struct d>, 1000>::type>::value ==
        ordered_prefix_count(4));
  CHECK(ordered_prefix_count(5) == 325);
}

namespace {
using loom::detail::id_set;
constexpr id_set set_of(std::initializer_list<std::size_t> ids) {
  id_set s = 0;
  for (std::size_t id : ids) s |= id_set{1} << id;
  return s;
}
// the chain A(0,1) B(1,2) C(2,3), summed over 1 and 2: both make a two-index intermediate first
// (arity cost), so the first in the written order goes first
constexpr auto arity = [](id_set span, std::size_t id) {
  return loom::detail::index_count(span & ~(id_set{1} << id));
};
template <std::size_t N, class Cost>
constexpr std::array<std::size_t, N> order_of(std::initializer_list<id_set> factors,
                                              std::array<std::size_t, N> summed, Cost cost) {
  std::array<id_set, 8> f{};
  std::size_t n = 0;
  for (id_set s : factors) f[n++] = s;
  std::array<std::size_t, N> order{};
  loom::detail::greedy_elimination(f.data(), n, summed.data(), N, order.data(), cost);
  return order;
}
constexpr auto chain = order_of({set_of({0, 1}), set_of({1, 2}), set_of({2, 3})},
                                std::array<std::size_t, 2>{2, 1}, arity);
static_assert(chain[0] == 2 && chain[1] == 1);
// a star: 0 joins everything, 1, 2 and 3 are each in one factor with 0: leaves go first, until
// 0 and 3 tie (one index left each) and the first written wins
constexpr auto star = order_of({set_of({0, 1}), set_of({0, 2}), set_of({0, 3})},
                               std::array<std::size_t, 4>{0, 1, 2, 3}, arity);
static_assert(star[0] == 1 && star[1] == 2 && star[2] == 0 && star[3] == 3);
// an index no factor uses costs nothing under la's rule (points; 0 for no factor)
constexpr auto unused = order_of({set_of({0, 1})}, std::array<std::size_t, 2>{1, 5},
                                 [](id_set span, std::size_t) { return span == 0 ? 0 : 10; });
static_assert(unused[0] == 5 && unused[1] == 1);
}  // namespace

TEST_CASE("core: greedy elimination takes the cheapest index and merges its factors") {
  // by points (la): extents 0:100, 1:2, 2:1000, 3:3; A(0,1) B(1,2) C(2,3) summed over 1, 2
  const std::array<double, 4> extent{100, 2, 1000, 3};
  const auto points = [&](id_set span, std::size_t) {
    double p = 1;
    for (std::size_t id = 0; id < 4; ++id)
      if (span >> id & 1u) p *= extent[id];
    return p;
  };
  const auto by_points = order_of({set_of({0, 1}), set_of({1, 2}), set_of({2, 3})},
                                  std::array<std::size_t, 2>{1, 2}, points);
  CHECK(by_points[0] == 2);  // 2 * 1000 * 3 points, against 100 * 2 * 1000 for index 1
  CHECK(by_points[1] == 1);
  std::array<id_set, 65> many{};
  std::array<std::size_t, 1> one{0}, out{};
  CHECK_THROWS_AS(
      loom::detail::greedy_elimination(many.data(), many.size(), one.data(), 1, out.data(), arity),
      loom::error);
}

// positions_by_key: the modes of a tensor ordered by the depth of their loops, ties kept in mode
// order (plan/transposed_format.hpp, stream/level_streams.hpp)
static_assert(loom::detail::positions_by_key(std::array<std::size_t, 3>{2, 0, 1}) ==
              std::array<std::size_t, 3>{1, 2, 0});
static_assert(loom::detail::positions_by_key(std::array<std::size_t, 4>{1, 1, 0, 1}) ==
              std::array<std::size_t, 4>{2, 0, 1, 3});
static_assert(loom::detail::positions_by_key(std::array<std::size_t, 0>{}).empty());
