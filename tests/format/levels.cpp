// The hashed, bitmap and banded levels and a user-defined level: from_coo (any order,
// duplicates), at(), nnz(), conversion to and from every format, third order, mode orders,
// width checks and names.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>

#include "support/models/minimal_level.hpp"

namespace {
using namespace loom;

using new_formats =
    std::tuple<format<dense, hashed>, format<hashed, hashed>, format<dense, bitmap>,
               format<bitmap, bitmap>, format<dense, banded>, format<banded, banded>,
               format<dense, hashed>::ordered<1, 0>, format<dense, banded>::ordered<1, 0>,
               format<hashed, bitmap>, example::gap_csr>;
using all_formats = std::tuple<csr, csc, dcsr, dcsc, coo, dense_matrix, format<dense, hashed>,
                               format<hashed, hashed>, format<dense, bitmap>,
                               format<bitmap, bitmap>, format<dense, banded>,
                               format<banded, banded>, format<hashed, bitmap>, example::gap_csr>;

using entry_map = std::map<std::array<std::int64_t, 2>, double>;

template <class Tensor> entry_map nonzeros(const Tensor& t) {
  entry_map m;
  t.for_each_stored([&](const auto& c, double v) {
    if (v != 0) m[{c[0], c[1]}] += v;
  });
  return m;
}

struct random_matrix {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  entry_map expected;  // duplicates summed
};

random_matrix make_random(std::uint64_t seed, double density, std::int64_t m, std::int64_t n) {
  random_matrix r;
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution take(density);
  for (std::int64_t a = 0; a < m; ++a)
    for (std::int64_t b = 0; b < n; ++b)
      if (take(rng))
        for (int q = 0; q < 1 + static_cast<int>(rng() % 2); ++q) r.coords.push_back({a, b});
  std::shuffle(r.coords.begin(), r.coords.end(), rng);
  for (const auto& c : r.coords) {
    r.values.push_back(static_cast<double>(1 + rng() % 9));
    r.expected[c] += r.values.back();
  }
  return r;
}
}  // namespace

TEST_CASE_TEMPLATE_DEFINE("new levels: from_coo, at, nnz and conversion to and from every format",
                          From, new_level_formats) {
  for (double density : {0.0, 0.05, 0.3, 1.0}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      auto r = make_random(seed, density, 6, 70);  // 70 columns: bitmaps span two words
      auto A = from_coo<From>({6, 70}, r.coords, r.values, duplicates::sum);
      CAPTURE(format_name<From>());
      CAPTURE(density);
      CAPTURE(seed);
      CHECK(nonzeros(A) == r.expected);
      for (std::int64_t a = 0; a < 6; ++a)
        for (std::int64_t b = 0; b < 70; ++b) {
          auto it = r.expected.find({a, b});
          CHECK(A.at(a, b) == (it == r.expected.end() ? 0.0 : it->second));
        }
      if constexpr (!From::properties[1].padded || std::is_same_v<From, format<dense, bitmap>>)
        CHECK(A.nnz() == static_cast<std::int64_t>(r.expected.size()));
      [&]<class... To>(std::tuple<To...>*) {
        (
            [&] {
              tensor<double, To> B(A);
              CAPTURE(format_name<To>());
              CHECK(nonzeros(B) == r.expected);
              tensor<double, From> back(B);
              CHECK(nonzeros(back) == r.expected);
            }(),
            ...);
      }(static_cast<all_formats*>(nullptr));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(new_level_formats, new_formats);

TEST_CASE("banded stores one range per row: a tridiagonal matrix") {
  const std::int64_t n = 8;
  std::vector<std::array<std::int64_t, 2>> c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t k = std::max<std::int64_t>(0, r - 1); k <= std::min(n - 1, r + 1); ++k) {
      c.push_back({r, k});
      v.push_back(static_cast<double>(10 * r + k + 1));
    }
  auto B = from_coo<format<dense, banded>>({n, n}, c, v);
  CHECK(B.nnz() == 3 * n - 2);  // no padding in a full band
  const auto& lv = B.level<1>();
  CHECK(lv.lo[0] == 0);
  CHECK(lv.lo[5] == 4);
  CHECK(lv.pos[n] == 3 * n - 2);
  CHECK(B.at(5, 6) == 57);
  CHECK(B.at(5, 7) == 0);
  // a gap inside the band is padded with zeros that are not entries: not counted,
  // and dropped on conversion
  auto G = from_coo<format<dense, banded>>({2, 6}, {{0, 1}, {0, 4}}, std::vector<double>{1, 2});
  CHECK(G.values().size() == 4);
  CHECK(G.nnz() == 2);
  CHECK(tensor<double, csr>(G).nnz() == 2);
}

TEST_CASE("duplicates policies and errors reach the new levels") {
  std::vector<std::array<std::int64_t, 2>> c{{1, 1}, {0, 2}, {1, 1}};
  std::vector<double> v{1, 2, 5};
  CHECK(from_coo<format<dense, hashed>>({2, 3}, c, v, duplicates::sum).at(1, 1) == 6);
  CHECK(from_coo<format<dense, bitmap>>({2, 3}, c, v, duplicates::last).at(1, 1) == 5);
  using band_rows = format<dense, banded>;
  CHECK_THROWS_AS(from_coo<band_rows>({2, 3}, c, v, duplicates::error), loom::duplicate_error);
  using narrow = format<dense, hashed_level<std::int8_t, std::int8_t>>;
  CHECK_THROWS_WITH_AS(from_coo<narrow>({2, 300}, {{0, 5}}, std::vector<double>{1}),
                       doctest::Contains("largest coordinate of mode 1"), loom::overflow_error);
  std::vector<std::array<std::int64_t, 2>> wide{{0, 0}, {0, 70000}};
  CHECK_THROWS_WITH_AS(from_coo<example::gap_csr>({1, 70001}, wide, std::vector<double>{1, 2}),
                       doctest::Contains("exceeds 16 bits"), loom::overflow_error);
}

TEST_CASE("third order: every new level at every depth") {
  std::vector<std::array<std::int64_t, 3>> c{{1, 0, 2}, {0, 1, 1}, {1, 0, 0}, {0, 1, 0}, {2, 3, 4}};
  std::vector<double> v{1, 2, 3, 4, 5};
  auto a = from_coo<format<hashed, bitmap, banded>>({3, 4, 5}, c, v);
  tensor<double, format<banded, hashed, bitmap>::ordered<2, 0, 1>> b(a);
  tensor<double, csf<3>> d(b);
  for (std::size_t e = 0; e < c.size(); ++e) {
    CHECK(a.at(c[e][0], c[e][1], c[e][2]) == v[e]);
    CHECK(b.at(c[e][0], c[e][1], c[e][2]) == v[e]);
    CHECK(d.at(c[e][0], c[e][1], c[e][2]) == v[e]);
  }
  CHECK(d.nnz() == 5);
  CHECK(a.at(2, 3, 3) == 0);
}

TEST_CASE("names, properties and the level concept") {
  CHECK(format_name<format<dense, hashed>>() == "format<dense,hashed>");
  using transposed = format<bitmap, banded>::ordered<1, 0>;
  CHECK(format_name<transposed>() == "format<bitmap,banded>::ordered<1,0>");
  CHECK(format_name<example::gap_csr>() == "format<dense,gap>");
  static_assert(level_with_locate<hashed> && level_with_locate<bitmap>);
  static_assert(level_with_locate<banded>);
  static_assert(level_with_locate<dense> && !level_with_locate<compressed>);
  static_assert(level_type<singleton> && level_type<example::gap_level>);
  static_assert(!level_type<int>);
}

TEST_CASE("a product that probes a locatable level stores no zeros in a sparse output") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  auto A = from_coo<csr>({3, 4}, {{0, 0}, {0, 2}, {1, 1}, {2, 3}}, std::vector<double>{1, 2, 3, 4});
  auto H = from_coo<format<dense, hashed>>({3, 4}, {{0, 2}, {2, 3}, {2, 0}},
                                           std::vector<double>{5, 6, 7});
  auto M = from_coo<format<dense, bitmap>>({3, 4}, {{0, 2}, {1, 0}}, std::vector<double>{8, 9});
  tensor<double, dcsr> C({3, 4}), D({3, 4});
  C(i, j) = A(i, j) * H(i, j);
  D(i, j) = H(i, j) * M(i, j);
  CHECK(C.nnz() == 2);
  CHECK(C.at(0, 2) == 10);
  CHECK(C.at(2, 3) == 24);
  CHECK(D.nnz() == 1);
  CHECK(D.at(0, 2) == 40);
}

TEST_CASE("zero-copy views over hashed and bitmap arrays") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  using H = format<dense, hashed>;
  using B = format<dense, bitmap>;
  auto A = from_coo<H>({3, 4}, {{0, 1}, {2, 3}, {2, 0}}, std::vector<double>{1, 2, 3});
  auto M = from_coo<B>({3, 4}, {{0, 1}, {2, 3}}, std::vector<double>{4, 5});
  typename view<double, H>::level_storages hl{};
  std::get<0>(hl).extent = 3;
  std::get<1>(hl).pos = A.level<1>().pos;
  std::get<1>(hl).crd = A.level<1>().crd;
  std::get<1>(hl).slot_pos = A.level<1>().slot_pos;
  std::get<1>(hl).table = A.level<1>().table;
  std::vector<double> hv(A.values().begin(), A.values().end());
  view<double, H> V({3, 4}, hl, hv);
  typename view<double, B>::level_storages bl{};
  std::get<0>(bl).extent = 3;
  std::get<1>(bl).extent = 4;
  std::get<1>(bl).bits = M.level<1>().bits;
  std::vector<double> bv(M.values().begin(), M.values().end());
  view<double, B> W({3, 4}, bl, bv);
  CHECK(V.at(2, 0) == 3);
  CHECK(V.nnz() == 3);
  CHECK(W.nnz() == 2);
  CHECK(W.at(1, 1) == 0);
  CHECK(loom::eval(loom::sum(i, j, W(i, j) * V(i, j))) == 4 * 1 + 5 * 2);
}

TEST_CASE("explain: a probed level is located, a lone one iterated") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  auto A = from_coo<csr>({3, 4}, {{0, 0}, {2, 3}}, std::vector<double>{1, 2});
  auto x = from_coo<format<hashed>>({4}, {{3}}, std::vector<double>{5});
  A.set_name("A");
  x.set_name("x");
  tensor<double, dense_vector> y({3});
  const std::string probed = loom::explain(y(i), loom::sum(j, A(i, j) * x(j)));
  CAPTURE(probed);
  CHECK(probed.find("iterate A (compressed); locate x (hashed)") != std::string::npos);
  tensor<double, dense_vector> z({4});
  const std::string alone = loom::explain(z(j), x(j));
  CAPTURE(alone);
  CHECK(alone.find("iterate x (hashed)") != std::string::npos);
}
