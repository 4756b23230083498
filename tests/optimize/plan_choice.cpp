// Tests the runtime plan choice: Galley's loop-order cost (Galley §4.1, worked test T13),
// data-dependent dispatch among a kernel's instantiated candidates, and the plan cache.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// n x n with `per` entries in every row and column: (r, (r + s) mod n), s < per
loom::tensor<double, loom::csr> banded_permutations(std::int64_t n, std::int64_t per) {
  coords2 c;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t s = 0; s < per; ++s) c.push_back({r, (r + s) % n});
  return loom::from_coo<loom::csr>({n, n}, c, std::vector<double>(c.size(), 1.0));
}

// Dense reference of C = A * B.
std::vector<double> product(const std::vector<double>& a, const std::vector<double>& b,
                            std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t m = 0; m < n; ++m)
      for (std::int64_t q = 0; q < n; ++q)
        c[static_cast<std::size_t>(r * n + q)] +=
            a[static_cast<std::size_t>(r * n + m)] * b[static_cast<std::size_t>(m * n + q)];
  return c;
}
template <class Tensor> std::vector<double> dense_of(const Tensor& t, std::int64_t n) {
  std::vector<double> d(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t q = 0; q < n; ++q) d[static_cast<std::size_t>(r * n + q)] = t.at(r, q);
  return d;
}
}  // namespace

TEST_CASE("T13: loop-order cost of Example 6.1 (one entry in A, 5 per row and column in B, C)") {
  constexpr std::int64_t n = 1000;
  const auto A = loom::from_coo<loom::csr>({n, n}, coords2{{3, 7}}, std::vector<double>{1});
  const auto B = banded_permutations(n, 5);
  const auto C = banded_permutations(n, 5);
  loom::statistics_cache cache;
  using chain = loom::chain_bound_estimator;
  loom::optimize::loop_order_query q;
  q.conjunctive = {chain(cache.get(A), {"i", "j"}), chain(cache.get(B), {"j", "k"}),
                   chain(cache.get(C), {"k", "l"})};
  q.output = {"i", "l"};
  q.factor = {{"i", 1.0}, {"j", 2.0}, {"k", 2.0}, {"l", 1.0}};
  q.skips = {{"i", true}, {"j", true}, {"k", true}, {"l", true}};  // every loop is sparse
  q.extents = {{"i", n}, {"j", n}, {"k", n}, {"l", n}};
  loom::optimize::cost_constants iterations_only;
  iterations_only.sequential_write = iterations_only.random_write = 0;
  // prefixes {i}, {i,j}, {i,j,k}, {i,j,k,l}: 1 + 1 + 5 + 25 iterations, weighted per level
  CHECK(loom::optimize::loop_order_cost(q, {"i", "j", "k", "l"}, 0, iterations_only) ==
        doctest::Approx(1 * 1 + 1 * 2 + 5 * 2 + 25 * 1));
  // starting with C's indices walks all of C first: at least n + 5n
  CHECK(loom::optimize::loop_order_cost(q, {"k", "l", "i", "j"}, 0, iterations_only) >= 6 * n);
  // a copy is charged on top
  CHECK(loom::optimize::loop_order_cost(q, {"i", "j", "k", "l"}, 100, iterations_only) ==
        doctest::Approx(138));
}

TEST_CASE("the runtime optimizer picks the outer loop from the data, and both plans are right") {
  // C(i,j) = sum_k A(i,k) B(k,j) with A row-major and B column-major: i or j may be the outer loop.
  constexpr std::int64_t n = 60;
  const auto full = [&] {
    coords2 c;
    std::vector<double> v;
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t q = 0; q < n; ++q) {
        c.push_back({r, q});
        v.push_back(static_cast<double>((r * 7 + q * 3) % 11) - 5);
      }
    return loom::from_coo<loom::csr>({n, n}, c, v);
  }();
  const auto rhs_of = [&](const auto& a, const auto& b) { return loom::sum(k, a(i, k) * b(k, j)); };
  loom::statistics_cache stats;

  SUBCASE("A has one non-empty row: i outermost (candidate #0, order i,j,k)") {
    loom::tensor<double, loom::dcsr> C({n, n});
    const loom::tensor<double, loom::dcsr> one_row(loom::from_coo<loom::csr>(
        {n, n}, coords2{{5, 1}, {5, 9}, {5, 30}}, std::vector<double>{1, 2, 3}));
    const loom::tensor<double, loom::dcsc> full_dcsc(full);
    using Lhs = std::remove_cvref_t<decltype(C(i, j))>;
    static_assert(loom::plan::plan_candidates<Lhs, decltype(rhs_of(one_row, full_dcsc))>::count ==
                  2);
    const auto choice = loom::optimize::choose_plan(C(i, j), rhs_of(one_row, full_dcsc), stats);
    CHECK(choice.chosen == 0);
    CHECK(choice.cost[0] < choice.cost[1]);
    C(i, j) = rhs_of(one_row, full_dcsc);
    CHECK(dense_of(C, n) == product(dense_of(one_row, n), dense_of(full_dcsc, n), n));
  }
  SUBCASE("B has one non-empty column: j outermost (candidate #1, order j,i,k)") {
    loom::tensor<double, loom::dense_matrix> C({n, n});
    const loom::tensor<double, loom::dcsc> one_col(loom::from_coo<loom::csr>(
        {n, n}, coords2{{1, 5}, {9, 5}, {30, 5}}, std::vector<double>{1, 2, 3}));
    const auto choice = loom::optimize::choose_plan(C(i, j), rhs_of(full, one_col), stats);
    CHECK(choice.chosen == 1);
    CHECK(choice.cost[1] < choice.cost[0]);
    C(i, j) = rhs_of(full, one_col);
    CHECK(dense_of(C, n) == product(dense_of(full, n), dense_of(one_col, n), n));
    const std::string plan = loom::explain(C(i, j), rhs_of(full, one_col));
    CHECK(plan.find("* #1 order j,i,k") != std::string::npos);
    CHECK(plan.find("statistics:") != std::string::npos);
    CHECK(plan.find("chosen: candidate #1") != std::string::npos);
  }
}

TEST_CASE("plans are cached by a coarse statistics signature") {
  constexpr std::int64_t n = 40;
  loom::tensor<double, loom::dcsr> C({n, n});
  const auto a = banded_permutations(n, 3);
  const loom::tensor<double, loom::csc> b(banded_permutations(n, 3));
  const loom::tensor<double, loom::csc> b2(banded_permutations(n, 2));  // same magnitudes
  const auto rhs = loom::sum(k, a(i, k) * b(k, j));
  using Lhs = std::remove_cvref_t<decltype(C(i, j))>;
  using Rhs = std::remove_cvref_t<decltype(rhs)>;
  auto& cache = loom::optimize::plan_choice_cache<Lhs, Rhs>::local();
  cache.chosen.clear();
  const auto misses = cache.stats.misses();
  C(i, j) = rhs;
  CHECK(cache.chosen.size() == 1);
  CHECK(cache.stats.misses() == misses + 2);   // statistics of a and b gathered once
  C(i, j) = loom::sum(k, a(i, k) * b2(k, j));  // within a factor of two: the cached plan
  CHECK(cache.chosen.size() == 1);
  CHECK(cache.stats.misses() == misses + 2);
  const loom::tensor<double, loom::csc> big(banded_permutations(4 * n, 3));
  const auto a_big = banded_permutations(4 * n, 3);
  loom::tensor<double, loom::dcsr> C_big({4 * n, 4 * n});
  C_big(i, j) = loom::sum(k, a_big(i, k) * big(k, j));  // other magnitudes: costed again
  CHECK(cache.chosen.size() == 2);
  CHECK(cache.stats.misses() == misses + 4);
  CHECK(dense_of(C_big, 4 * n) == product(dense_of(a_big, 4 * n), dense_of(big, 4 * n), 4 * n));
}
