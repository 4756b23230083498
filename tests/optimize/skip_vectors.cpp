// Skip policies per loop on vectors: the sparse dot product and the elementwise product under
// every fixed policy and the runtime choice, against a dense reference, over vector formats
// (sorted, hashed, bitmap, dense), densities and seeds; and the cost model's choice on skewed
// and balanced inputs (optimize/choice/skip_choice.hpp, stream/skip.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/skip_queries.hpp>
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace mp11 = boost::mp11;
namespace sk = loom::stream::skip;
using mp11::mp_list;

constexpr loom::index<"i"> i;

using hashed_vector = loom::format<loom::hashed>;
using bitmap_vector = loom::format<loom::bitmap>;

// the policies a loop can be given, as per_loop lists for a one-loop kernel
using policies = mp_list<sk::per_loop<>, sk::per_loop<sk::leapfrog>, sk::per_loop<sk::merge>,
                         sk::per_loop<sk::lead<0>>, sk::per_loop<sk::lead<1>>>;

// n entries out of `extent`, each coordinate present with probability p; values 1..4
template <class F>
loom::tensor<double, F> random_vector(std::int64_t extent, double p, unsigned seed,
                                      std::vector<double>& dense) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::array<std::int64_t, 1>> c;
  std::vector<double> v;
  dense.assign(static_cast<std::size_t>(extent), 0.0);
  for (std::int64_t q = 0; q < extent; ++q)
    if (u(rng) < p) {
      c.push_back({q});
      v.push_back(1.0 + static_cast<double>(static_cast<int>(u(rng) * 4)));
      dense[static_cast<std::size_t>(q)] = v.back();
    }
  return loom::from_coo<F>({extent}, c, v);
}

template <class FX, class FY>
void check_vectors(std::int64_t n, double px, double py, unsigned seed) {
  std::vector<double> dx, dy;
  const auto x = random_vector<FX>(n, px, seed, dx);
  const auto y = random_vector<FY>(n, py, seed * 7 + 1, dy);
  double dot = 0;
  std::vector<double> prod(static_cast<std::size_t>(n));
  for (std::size_t q = 0; q < dx.size(); ++q) {
    dot += dx[q] * dy[q];
    prod[q] = dx[q] * dy[q];
  }
  mp11::mp_for_each<policies>([&](auto p) {
    using P = decltype(p);
    CAPTURE(sk::describe(P{}));
    loom::tensor<double, loom::format<>> s;
    loom::assign(loom::expr::access<decltype(s)>{&s}, loom::sum(i, x(i) * y(i)),
                 loom::options<loom::opt::fixed_skips<P>>{});
    CHECK(s.values()[0] == dot);
    loom::tensor<double, loom::sparse_vector> z({n});
    loom::assign(z(i), x(i) * y(i), loom::options<loom::opt::fixed_skips<P>>{});
    for (std::int64_t q = 0; q < n; ++q) CHECK(z.at(q) == prod[static_cast<std::size_t>(q)]);
    loom::tensor<double, loom::dense_vector> w({n});
    loom::assign(w(i), y(i) * x(i), loom::options<loom::opt::fixed_skips<P>>{});
    for (std::int64_t q = 0; q < n; ++q) CHECK(w.at(q) == prod[static_cast<std::size_t>(q)]);
  });
  loom::tensor<double, loom::format<>> s;
  loom::assign(loom::expr::access<decltype(s)>{&s}, loom::sum(i, x(i) * y(i)),
               loom::options<loom::opt::skip_candidates<>>{});
  CHECK(s.values()[0] == dot);
}

using vector_pairs = mp_list<
    mp_list<loom::sparse_vector, loom::sparse_vector>, mp_list<loom::sparse_vector, hashed_vector>,
    mp_list<hashed_vector, loom::sparse_vector>, mp_list<bitmap_vector, loom::sparse_vector>,
    mp_list<hashed_vector, bitmap_vector>, mp_list<loom::sparse_vector, loom::dense_vector>>;

}  // namespace

TEST_CASE("leader: every skip policy gives the dense reference's dot and product on vectors") {
  mp11::mp_for_each<vector_pairs>([&](auto pair) {
    using FX = mp11::mp_first<decltype(pair)>;
    using FY = mp11::mp_second<decltype(pair)>;
    for (unsigned seed : {1u, 2u, 3u})
      for (const auto& px_py : {std::pair{0.5, 0.5}, std::pair{0.01, 0.9}, std::pair{0.9, 0.02},
                                std::pair{0.0, 0.3}, std::pair{1.0, 1.0}}) {
        const double px = px_py.first, py = px_py.second;
        CAPTURE(seed);
        CAPTURE(px);
        CAPTURE(py);
        check_vectors<FX, FY>(257, px, py, seed);
      }
  });
}

TEST_CASE("leader: the cost model lets a 10-entry vector lead a 1M-entry one") {
  std::vector<double> d;
  const auto small = random_vector<loom::sparse_vector>(4'000'000, 10.0 / 4'000'000, 5, d);
  const auto big = random_vector<loom::sparse_vector>(4'000'000, 0.25, 6, d);
  loom::tensor<double, loom::format<>> s;
  const loom::expr::access<decltype(s)> out{&s};
  for (int side = 0; side < 2; ++side) {
    const auto c = side == 0 ? loom::plan_skip(out, loom::sum(i, small(i) * big(i)))
                             : loom::plan_skip(out, loom::sum(i, big(i) * small(i)));
    CAPTURE(loom::optimize::describe_skip_choice(c, 4));
    REQUIRE(c.loops.size() == 1);
    REQUIRE(c.chosen > 0);
    const auto expected =
        side == 0 ? loom::optimize::skip_code::lead_first : loom::optimize::skip_code::lead_last;
    CHECK(c.candidates[c.chosen].code == expected);
  }
}

TEST_CASE("leader: two equal-size uniform vectors merge or leapfrog") {
  std::vector<double> d;
  const auto a = random_vector<loom::sparse_vector>(100'000, 0.3, 7, d);
  const auto b = random_vector<loom::sparse_vector>(100'000, 0.3, 8, d);
  loom::tensor<double, loom::format<>> s;
  const auto c = loom::plan_skip(loom::expr::access<decltype(s)>{&s}, loom::sum(i, a(i) * b(i)));
  CAPTURE(loom::optimize::describe_skip_choice(c, 4));
  const auto code =
      c.chosen == 0 ? loom::optimize::skip_code::leapfrog : c.candidates[c.chosen].code;
  const bool merge_or_leapfrog =
      code == loom::optimize::skip_code::merge || code == loom::optimize::skip_code::leapfrog;
  CHECK(merge_or_leapfrog);
}

TEST_CASE("leader: a dense operand is always located, so there is nothing to choose") {
  std::vector<double> d;
  const auto a = random_vector<loom::sparse_vector>(1000, 0.3, 7, d);
  const auto b = random_vector<loom::dense_vector>(1000, 1.0, 8, d);
  loom::tensor<double, loom::format<>> s;
  const loom::expr::access<decltype(s)> out{&s};
  const auto c = loom::plan_skip(out, loom::sum(i, a(i) * b(i)));
  CHECK(c.loops.empty());
  CHECK(c.cost.size() == 1);
}
