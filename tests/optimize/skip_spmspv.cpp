// Skip policies per loop on SpMSpV y(i) = sum(j, A(i,j) * x(j)): every fixed policy, every
// instantiated candidate and the runtime choice against a dense reference, over matrix formats
// (csr, csc, dcsr, coo, dense), vector formats (sorted, hashed, bitmap), densities and seeds
// (optimize/choice/skip_choice.hpp, stream/skip.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/skip_queries.hpp>
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "skip_random.hpp"

namespace {

namespace mp11 = boost::mp11;
namespace sk = loom::stream::skip;
using loom_test::random_tensor;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using hashed_vector = loom::format<loom::hashed>;
using bitmap_vector = loom::format<loom::bitmap>;

// j is the inner loop of every concordant order: its policy is the second entry
using policies =
    mp_list<sk::per_loop<>, sk::per_loop<sk::standard, sk::leapfrog>,
            sk::per_loop<sk::standard, sk::merge>, sk::per_loop<sk::standard, sk::lead<0>>,
            sk::per_loop<sk::standard, sk::lead<1>>, sk::per_loop<sk::merge, sk::merge>>;

template <class FA, class FX>
void check_spmspv(std::int64_t m, std::int64_t n, double pa, double px, unsigned seed) {
  std::vector<double> da, dx;
  const auto A = random_tensor<FA, 2>({m, n}, pa, seed, da);
  const auto x = random_tensor<FX, 1>({n}, px, seed * 3 + 11, dx);
  const std::vector<double> ref = loom_test::dense_matvec(da, dx, m, n);
  auto same = [&](const auto& y) {
    for (std::int64_t r = 0; r < m; ++r) CHECK(y.at(r) == ref[static_cast<std::size_t>(r)]);
  };
  mp11::mp_for_each<policies>([&](auto p) {
    using P = decltype(p);
    CAPTURE(sk::describe(P{}));
    loom::tensor<double, loom::dense_vector> y({m});
    loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), loom::options<loom::opt::fixed_skips<P>>{});
    same(y);
  });
  for (std::size_t c = 0; c < 8; ++c) {  // every instantiated candidate (clamped past the last)
    CAPTURE(c);
    loom::tensor<double, loom::sparse_vector> y({m});
    loom::assign(y(i), loom::sum(j, A(i, j) * x(j)),
                 loom::options<loom::opt::skip_candidates<8>>{.skip_candidate = c});
    same(y);
  }
  loom::tensor<double, loom::dense_vector> y({m});
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), loom::options<loom::opt::skip_candidates<>>{});
  same(y);
}

using combos =
    mp_list<mp_list<loom::csr, loom::sparse_vector>, mp_list<loom::csc, loom::sparse_vector>,
            mp_list<loom::dcsr, loom::sparse_vector>, mp_list<loom::coo, loom::sparse_vector>,
            mp_list<loom::dense_matrix, loom::sparse_vector>, mp_list<loom::csr, hashed_vector>,
            mp_list<loom::dcsr, bitmap_vector>>;

}  // namespace

TEST_CASE("leader: every skip policy gives the dense reference's SpMSpV") {
  mp11::mp_for_each<combos>([&](auto combo) {
    using FA = mp11::mp_first<decltype(combo)>;
    using FX = mp11::mp_second<decltype(combo)>;
    CAPTURE(loom::format_name<FA>());
    CAPTURE(loom::format_name<FX>());
    for (unsigned seed : {1u, 2u})
      for (const auto& pa_px :
           {std::pair{0.3, 0.3}, std::pair{0.05, 0.9}, std::pair{0.9, 0.03}, std::pair{0.0, 0.5}}) {
        const double pa = pa_px.first, px = pa_px.second;
        CAPTURE(seed);
        CAPTURE(pa);
        CAPTURE(px);
        check_spmspv<FA, FX>(23, 61, pa, px, seed);
      }
  });
}

TEST_CASE(
    "leader: SpMSpV with a few-entry x lets the matrix rows lead only when they are shorter") {
  std::vector<double> d;
  // long rows (about 2000 entries) against a 5-entry x: x leads
  const auto A = random_tensor<loom::csr, 2>({8, 20000}, 0.1, 3, d);
  const auto x = random_tensor<loom::sparse_vector, 1>({20000}, 5.0 / 20000, 4, d);
  loom::tensor<double, loom::dense_vector> y({8});
  const auto c = loom::plan_skip(y(i), loom::sum(j, A(i, j) * x(j)));
  CAPTURE(loom::optimize::describe_skip_choice(c, 4));
  REQUIRE(c.chosen > 0);
  CHECK(c.candidates[c.chosen].code == loom::optimize::skip_code::lead_last);
  // short rows (about 2 entries) against a dense-ish x: the rows lead
  const auto B = random_tensor<loom::csr, 2>({8, 20000}, 1e-4, 5, d);
  const auto z = random_tensor<loom::sparse_vector, 1>({20000}, 0.5, 6, d);
  const auto c2 = loom::plan_skip(y(i), loom::sum(j, B(i, j) * z(j)));
  CAPTURE(loom::optimize::describe_skip_choice(c2, 4));
  REQUIRE(c2.chosen > 0);
  CHECK(c2.candidates[c2.chosen].code == loom::optimize::skip_code::lead_first);
}
