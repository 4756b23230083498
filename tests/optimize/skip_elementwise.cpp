// Skip policies per loop on the elementwise product C(i,j) = A(i,j) * B(i,j), where both
// loops may co-iterate two sparse operands (the inner product is skip_inner.cpp):
// every candidate (one other policy at one loop each, up to 8) and the runtime choice against a
// dense reference, over csr, csc, dcsr, coo, dense and hashed/bitmap matrices
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
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using dense_hashed = loom::format<loom::dense, loom::hashed>;
using dense_bitmap = loom::format<loom::dense, loom::bitmap>;

template <class F>
loom::tensor<double, F> random_matrix(std::int64_t m, std::int64_t n, double p, unsigned seed,
                                      std::vector<double>& dense) {
  return loom_test::random_tensor<F, 2>({m, n}, p, seed, dense);
}

template <class FA, class FB>
void check_elementwise(std::int64_t m, std::int64_t n, double pa, double pb, unsigned seed) {
  std::vector<double> da, db;
  const auto A = random_matrix<FA>(m, n, pa, seed, da);
  const auto B = random_matrix<FB>(m, n, pb, seed * 5 + 2, db);
  for (std::size_t c = 0; c < 8; ++c) {  // clamped past the last candidate
    CAPTURE(c);
    loom::tensor<double, loom::dcsr> C({m, n});
    loom::assign(C(i, j), A(i, j) * B(i, j),
                 loom::options<loom::opt::skip_candidates<8>>{.skip_candidate = c});
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t q = 0; q < n; ++q) {
        const auto k = static_cast<std::size_t>(r * n + q);
        CHECK(C.at(r, q) == da[k] * db[k]);
      }
  }
  loom::tensor<double, loom::dcsr> C({m, n});
  loom::assign(C(i, j), A(i, j) * B(i, j), loom::options<loom::opt::skip_candidates<8>>{});
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t q = 0; q < n; ++q) {
      const auto k = static_cast<std::size_t>(r * n + q);
      CHECK(C.at(r, q) == da[k] * db[k]);
    }
}

using combos = mp_list<mp_list<loom::dcsr, loom::dcsr>, mp_list<loom::csr, loom::csr>,
                       mp_list<loom::coo, loom::dcsr>, mp_list<loom::csc, loom::csc>,
                       mp_list<loom::dcsr, loom::dense_matrix>, mp_list<dense_hashed, loom::csr>,
                       mp_list<dense_bitmap, dense_hashed>>;

}  // namespace

TEST_CASE("leader: every skip candidate gives the dense reference's elementwise product") {
  mp11::mp_for_each<combos>([&](auto combo) {
    using FA = mp11::mp_first<decltype(combo)>;
    using FB = mp11::mp_second<decltype(combo)>;
    CAPTURE(loom::format_name<FA>());
    CAPTURE(loom::format_name<FB>());
    for (unsigned seed : {1u, 2u, 3u})
      for (const auto& pa_pb :
           {std::pair{0.3, 0.3}, std::pair{0.02, 0.8}, std::pair{0.7, 0.05}, std::pair{1.0, 0.0}}) {
        const double pa = pa_pb.first, pb = pa_pb.second;
        CAPTURE(seed);
        CAPTURE(pa);
        CAPTURE(pb);
        check_elementwise<FA, FB>(17, 29, pa, pb, seed);
      }
  });
}

TEST_CASE("leader: dcsr x dcsr instantiates alternatives at both loops, within the cap") {
  std::vector<double> d;
  const auto A = random_matrix<loom::dcsr>(50, 4000, 0.001, 1, d);  // about 4 per row
  const auto B = random_matrix<loom::dcsr>(50, 4000, 0.5, 2, d);    // about 2000 per row
  loom::tensor<double, loom::dcsr> C({50, 4000});
  const auto c8 = loom::plan_skip<8>(C(i, j), A(i, j) * B(i, j));
  CAPTURE(loom::optimize::describe_skip_choice(c8, 8));
  CHECK(c8.loops.size() == 2);
  CHECK(c8.cost.size() == 7);  // standard, then 3 others at i and 3 at j
  REQUIRE(c8.chosen > 0);
  CHECK(c8.candidates[c8.chosen].depth == 1);
  CHECK(c8.candidates[c8.chosen].code == loom::optimize::skip_code::lead_first);
  const auto c4 = loom::plan_skip<4>(C(i, j), A(i, j) * B(i, j));
  CHECK(c4.cost.size() == 4);  // the cap keeps the outer loop's alternatives only
}
