// Formats: from_coo with every duplicates policy, conversion between every pair of formats,
// at(), nnz(), shape(), width checks, views.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace loom;

using matrix_formats = std::tuple<csr, csc, dcsr, dcsc, coo, dense_matrix,
                                  format<compressed, dense>, format<dense, dense>::ordered<1, 0>,
                                  format<compressed_nonunique, singleton>::ordered<1, 0>>;

template <class Tensor>
std::map<std::array<std::int64_t, Tensor::order>, double> stored(const Tensor& t, bool skip_zero) {
  std::map<std::array<std::int64_t, Tensor::order>, double> m;
  t.for_each_stored([&](const auto& c, double v) {
    if (!skip_zero || v != 0) m[c] = v;
  });
  return m;
}

struct random_matrix {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  std::map<std::array<std::int64_t, 2>, double> expected;  // after summing duplicates
};

random_matrix make_random(std::uint64_t seed, double density, std::int64_t m, std::int64_t n) {
  random_matrix r;
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution take(density);
  std::uniform_int_distribution<int> val(1, 9);
  for (std::int64_t a = 0; a < m; ++a)
    for (std::int64_t b = 0; b < n; ++b)
      if (take(rng)) {
        const int reps = 1 + static_cast<int>(rng() % 2);  // some duplicates
        for (int q = 0; q < reps; ++q) {
          r.coords.push_back({a, b});
          r.values.push_back(val(rng));
          r.expected[{a, b}] += r.values.back();
        }
      }
  std::shuffle(r.coords.begin(), r.coords.end(), rng);  // order must not matter...
  // ...but values must follow their coordinates: rebuild values from a second pass
  std::mt19937_64 rng2(seed + 1);
  r.values.clear();
  r.expected.clear();
  for (const auto& c : r.coords) {
    r.values.push_back(static_cast<double>(1 + rng2() % 9));
    r.expected[c] += r.values.back();
  }
  return r;
}
}  // namespace

TEST_CASE_TEMPLATE_DEFINE("from_coo, at and conversion to every format", From, from_coo_id) {
  for (double density : {0.0, 0.05, 0.3, 1.0}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      auto r = make_random(seed, density, 5, 7);
      auto A = from_coo<From>({5, 7}, r.coords, r.values, duplicates::sum);
      CAPTURE(format_name<From>());
      CAPTURE(density);
      CAPTURE(seed);
      CHECK(A.shape() == std::array<std::int64_t, 2>{5, 7});
      constexpr bool padded = From::properties[1].full;  // a dense innermost level stores zeros
      CHECK(stored(A, padded) == r.expected);
      for (std::int64_t a = 0; a < 5; ++a)
        for (std::int64_t b = 0; b < 7; ++b) {
          auto it = r.expected.find({a, b});
          CHECK(A.at(a, b) == (it == r.expected.end() ? 0.0 : it->second));
        }
      if (!padded) CHECK(A.nnz() == static_cast<std::int64_t>(r.expected.size()));
      [&]<class... To>(std::tuple<To...>*) {
        (
            [&] {
              tensor<double, To> B(A);
              CAPTURE(format_name<To>());
              CHECK(stored(B, true) == stored(A, true));
              tensor<double, From> back(B);
              CHECK(stored(back, true) == stored(A, true));
            }(),
            ...);
      }(static_cast<matrix_formats*>(nullptr));
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(from_coo_id, matrix_formats);

TEST_CASE("duplicates policies: sum, last, error") {
  std::vector<std::array<std::int64_t, 2>> c{{1, 1}, {0, 2}, {1, 1}};
  std::vector<double> v{1, 2, 5};
  CHECK(from_coo<csr>({2, 3}, c, v, duplicates::sum).at(1, 1) == 6);
  CHECK(from_coo<csr>({2, 3}, c, v, duplicates::last).at(1, 1) == 5);
  CHECK_THROWS_WITH_AS(from_coo<csr>({2, 3}, c, v, duplicates::error),
                       doctest::Contains("duplicate coordinate (1,1)"), loom::duplicate_error);
  CHECK_THROWS_WITH_AS(from_coo<csr>({2, 3}, {{2, 0}}, std::vector<double>{1}),
                       doctest::Contains("outside the shape (2,3)"), loom::shape_error);
  CHECK_THROWS_AS(from_coo<csr>({2, 3}, {{0, 0}}, std::vector<double>{1, 2}), loom::shape_error);
}

TEST_CASE("the order of entries: sorted, two sorted runs, a keyed sort, and a comparison sort") {
  // every path of detail::stable_order against std::stable_sort, ties in their input order: a
  // keyed sort (extent 4), a radix sort (extent 1000), a comparison sort (2^62 x 4 overflows 64 bits)
  using crd2 = std::vector<std::array<std::int64_t, 2>>;
  auto expected = [](const crd2& c) {
    std::vector<std::size_t> p(c.size());
    for (std::size_t e = 0; e < p.size(); ++e) p[e] = e;
    std::stable_sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) { return c[a] < c[b]; });
    return p;
  };
  const std::int64_t huge = std::int64_t{1} << 62;  // two of these overflow a 64-bit key
  std::mt19937_64 rng(5);
  for (const std::int64_t extent : {std::int64_t{4}, std::int64_t{1000}, huge}) {
    std::uniform_int_distribution<std::int64_t> coord(0, extent - 1);
    crd2 c(extent == 1000 ? 9000 : 200);                 // 9000: the radix sort (from 4096 entries)
    for (auto& x : c) x = {coord(rng) % 4, coord(rng)};  // few rows: ties and repeats
    CHECK(loom::detail::stable_order(c) == expected(c));  // unsorted: keyed or comparison sort
    crd2 runs = c;
    std::stable_sort(runs.begin(), runs.begin() + 120);
    std::stable_sort(runs.begin() + 120, runs.end());           // runs of 120 and the rest
    CHECK(loom::detail::stable_order(runs) == expected(runs));  // two runs: a merge
    std::stable_sort(runs.begin(), runs.end());
    CHECK(loom::detail::stable_order(runs) == expected(runs));  // sorted
  }
  CHECK(loom::detail::stable_order(crd2{}).empty());
  // duplicates are summed and replaced in input order on the unsorted path too
  std::vector<std::array<std::int64_t, 2>> c{{1, 1}, {0, 2}, {1, 1}, {0, 0}, {1, 1}};
  std::vector<double> v{1, 2, 5, 3, 7};
  CHECK(from_coo<csr>({2, 3}, c, v, duplicates::last).at(1, 1) == 7);
  CHECK(from_coo<csc>({2, 3}, c, v, duplicates::sum).at(1, 1) == 13);
}

TEST_CASE("position and coordinate widths are checked at construction") {
  using narrow = format<dense, compressed_level<uniqueness::unique, std::int8_t, std::int8_t>>;
  auto ok = from_coo<narrow>({2, 100}, {{0, 99}}, std::vector<double>{1});
  CHECK(ok.at(0, 99) == 1);
  CHECK_THROWS_WITH_AS(from_coo<narrow>({2, 300}, {{0, 5}}, std::vector<double>{1}),
                       doctest::Contains("does not fit"), loom::overflow_error);
  std::vector<std::array<std::int64_t, 2>> many;
  for (std::int64_t b = 0; b < 100; ++b) many.push_back({0, b}), many.push_back({1, b});
  CHECK_THROWS_AS(from_coo<narrow>({2, 100}, many, std::vector<double>(many.size(), 1.0)),
                  loom::overflow_error);  // 200 positions do not fit int8
}

TEST_CASE("third-order formats: csf, coo_n, dense_n and permuted csf") {
  std::vector<std::array<std::int64_t, 3>> c{{1, 0, 2}, {0, 1, 1}, {1, 0, 0}, {0, 1, 0}};
  std::vector<double> v{1, 2, 3, 4};
  auto a = from_coo<csf<3>>({2, 2, 3}, c, v);
  tensor<double, coo_n<3>> b(a);
  tensor<double, dense_n<3>> d(a);
  tensor<double, csf<3>::ordered<2, 0, 1>> p(a);
  tensor<double, dense_n<3>::ordered<2, 0, 1>> dp(d);  // dense to dense: a transposition
  for (std::int64_t x = 0; x < 2; ++x)
    for (std::int64_t y = 0; y < 2; ++y)
      for (std::int64_t z = 0; z < 3; ++z) CHECK(dp.at(x, y, z) == d.at(x, y, z));
  for (std::size_t e = 0; e < c.size(); ++e) {
    CHECK(b.at(c[e][0], c[e][1], c[e][2]) == v[e]);
    CHECK(d.at(c[e][0], c[e][1], c[e][2]) == v[e]);
    CHECK(p.at(c[e][0], c[e][1], c[e][2]) == v[e]);
  }
  CHECK(a.nnz() == 4);
  CHECK(d.nnz() == 12);
  CHECK(b.at(1, 1, 1) == 0);
}

TEST_CASE("format names and static properties") {
  CHECK(format_name<csr>() == "csr");
  CHECK(format_name<csf<3>::ordered<2, 0, 1>>() ==
        "format<compressed,compressed,compressed>::ordered<2,0,1>");
  static_assert(csc::modes[0] == 1 && csc::level_of_mode[0] == 1);
  static_assert(dense_matrix::all_dense && !csr::all_dense);
  static_assert(!compressed_nonunique::properties.unique && singleton::properties.segmented);
}
