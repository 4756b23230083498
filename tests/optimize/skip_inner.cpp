// Skip policies per loop on the matrix inner product sum(i, j, A(i,j) * B(i,j)) (both loops
// may co-iterate two sparse operands): every candidate (one other policy at one loop each, up
// to 8) and the runtime choice against a dense reference, over csr, csc, dcsr, coo, dense and
// hashed/bitmap matrices (optimize/choice/skip_choice.hpp, stream/skip.hpp).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/skip_queries.hpp>
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "skip_random.hpp"

namespace {

namespace mp11 = boost::mp11;
using mp11::mp_list;

constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

using dense_hashed = loom::format<loom::dense, loom::hashed>;
using dense_bitmap = loom::format<loom::dense, loom::bitmap>;

template <class FA, class FB>
void check_inner(std::int64_t m, std::int64_t n, double pa, double pb, unsigned seed) {
  std::vector<double> da, db;
  const auto A = loom_test::random_tensor<FA, 2>({m, n}, pa, seed, da);
  const auto B = loom_test::random_tensor<FB, 2>({m, n}, pb, seed * 5 + 2, db);
  double dot = 0;
  for (std::size_t q = 0; q < da.size(); ++q) dot += da[q] * db[q];
  loom::tensor<double, loom::format<>> s;
  const loom::expr::access<decltype(s)> out{&s};
  for (std::size_t c = 0; c < 8; ++c) {  // clamped past the last candidate
    CAPTURE(c);
    loom::assign(out, loom::sum(i, j, A(i, j) * B(i, j)),
                 loom::options<loom::opt::skip_candidates<8>>{.skip_candidate = c});
    CHECK(s.values()[0] == dot);
  }
  loom::assign(out, loom::sum(i, j, A(i, j) * B(i, j)),
               loom::options<loom::opt::skip_candidates<>>{});
  CHECK(s.values()[0] == dot);
}

using combos = mp_list<mp_list<loom::dcsr, loom::dcsr>, mp_list<loom::csr, loom::coo>,
                       mp_list<loom::csc, loom::csc>, mp_list<loom::dense_matrix, loom::dcsr>,
                       mp_list<dense_hashed, loom::csr>, mp_list<dense_bitmap, dense_hashed>>;

}  // namespace

TEST_CASE("leader: every skip candidate gives the dense reference's inner product") {
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
        check_inner<FA, FB>(17, 29, pa, pb, seed);
      }
  });
}
