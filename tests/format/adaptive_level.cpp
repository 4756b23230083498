// The adaptive level (format/levels/adaptive.hpp): each fiber's kind follows its fill; the
// cursor walks, seeks and locates every kind like a set of coordinates would; assembly (from_coo,
// duplicates, conversion both ways, third order, mode orders), nnz, at(), views and their checks,
// width errors, and explain's name for it.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {
using namespace loom;

using entry_map = std::map<std::array<std::int64_t, 2>, double>;

// Rows of the given numbers of entries at random columns (values 1..9), duplicates summed.
struct rows_matrix {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  entry_map expected;
};
rows_matrix make_rows(const std::vector<std::int64_t>& counts, std::int64_t n, std::uint64_t seed) {
  rows_matrix r;
  std::mt19937_64 rng(seed);
  for (std::size_t row = 0; row < counts.size(); ++row) {
    std::vector<std::int64_t> cols(static_cast<std::size_t>(n));
    for (std::int64_t c = 0; c < n; ++c) cols[static_cast<std::size_t>(c)] = c;
    std::shuffle(cols.begin(), cols.end(), rng);
    for (std::int64_t e = 0; e < counts[row]; ++e) {
      const std::array<std::int64_t, 2> c{static_cast<std::int64_t>(row),
                                          cols[static_cast<std::size_t>(e)]};
      r.coords.push_back(c);
      r.values.push_back(static_cast<double>(1 + rng() % 9));
      r.expected[c] += r.values.back();
      if (e % 3 == 0) {  // a duplicate, summed
        r.coords.push_back(c);
        r.values.push_back(1);
        r.expected[c] += 1;
      }
    }
  }
  return r;
}

template <class Tensor> entry_map nonzeros(const Tensor& t) {
  entry_map m;
  t.for_each_stored([&](const auto& c, double v) {
    if (v != 0) m[{c[0], c[1]}] += v;
  });
  return m;
}

// 600 columns (bitmaps over ten words); rows empty, of 1 and 7 entries (sorted), 20 (hashed: at
// least 16, under 1/16 full), 40 and 300 (bitmaps) and 600 (full)
const std::vector<std::int64_t> mixed_rows{0, 1, 7, 20, 40, 300, 600};
constexpr std::int64_t columns = 600;
}  // namespace

TEST_CASE("adaptive: each fiber's kind follows its fill") {
  const rows_matrix r = make_rows(mixed_rows, columns, 1);
  auto A = from_coo<format<dense, adaptive>>({7, columns}, r.coords, r.values, duplicates::sum);
  const auto& lv = A.level<1>();
  const std::vector<fiber_kind> expected{fiber_kind::sorted, fiber_kind::sorted, fiber_kind::sorted,
                                         fiber_kind::hashed, fiber_kind::bitmap, fiber_kind::bitmap,
                                         fiber_kind::dense};
  CHECK(std::vector<fiber_kind>(lv.kind.begin(), lv.kind.end()) == expected);
  CHECK(adaptive::fibers_of(lv, fiber_kind::bitmap) == 2);
  CHECK(lv.pos[7] == 0 + 1 + 7 + 20 + columns * 3);  // padded fibers: a position per column
  CHECK(A.nnz() == static_cast<std::int64_t>(r.expected.size()));
  CHECK(nonzeros(A) == r.expected);
  for (std::int64_t a = 0; a < 7; ++a)
    for (std::int64_t b = 0; b < columns; ++b) {
      const auto it = r.expected.find({a, b});
      CHECK(A.at(a, b) == (it == r.expected.end() ? 0.0 : it->second));
    }
  CHECK_NOTHROW(validate(A));
  static_assert(level_with_locate<adaptive> && level_type<adaptive>);
  static_assert(adaptive::kind_for(0, 10) == fiber_kind::sorted);
  static_assert(adaptive::kind_for(10, 10) == fiber_kind::dense);
  static_assert(adaptive_level<std::int64_t, std::int32_t, 2, 4>::kind_for(4, 10) ==
                fiber_kind::hashed);
  CHECK(format_name<format<dense, adaptive>>() == "format<dense,adaptive>");
}

TEST_CASE("adaptive: the cursor of every kind walks, seeks and locates its coordinates") {
  const rows_matrix r = make_rows(mixed_rows, columns, 2);
  auto A = from_coo<format<dense, adaptive>>({7, columns}, r.coords, r.values, duplicates::sum);
  std::mt19937_64 rng(3);
  for (std::int64_t row = 0; row < 7; ++row) {
    std::set<std::int64_t> present;
    for (const auto& [c, v] : r.expected)
      if (c[0] == row) present.insert(c[1]);
    const auto start = adaptive::iterate<search_strategy::galloping>(A.level<1>(), row, row + 1);
    CAPTURE(row);
    CAPTURE(fiber_kind_name(start.kind));
    std::vector<std::int64_t> walked;
    for (auto c = start; c.valid(); c.next()) walked.push_back(c.index());
    CHECK(walked == std::vector<std::int64_t>(present.begin(), present.end()));
    for (std::int64_t q = 0; q < columns; ++q)
      CHECK(start.locate(q).empty() == (present.count(q) == 0));
    // seeks to random ascending targets land on the first coordinate >= the target
    auto c = start;
    std::int64_t target = 0;
    while (target < columns + 2) {
      c.seek(target);
      const auto it = present.lower_bound(target);
      REQUIRE(c.valid() == (it != present.end()));
      if (it != present.end()) CHECK(c.index() == *it);
      c.seek_past(target);
      const auto past = present.upper_bound(target);
      REQUIRE(c.valid() == (past != present.end()));
      if (past != present.end()) CHECK(c.index() == *past);
      target += 1 + static_cast<std::int64_t>(rng() % 9);
    }
  }
}

TEST_CASE("adaptive: conversion to and from other formats, third order and mode orders") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const rows_matrix r = make_rows(mixed_rows, columns, seed);
    auto A = from_coo<format<dense, adaptive>>({7, columns}, r.coords, r.values, duplicates::sum);
    CAPTURE(seed);
    [&]<class... To>(std::tuple<To...>*) {
      (
          [&] {
            tensor<double, To> B(A);
            CAPTURE(format_name<To>());
            CHECK(nonzeros(B) == r.expected);
            tensor<double, format<dense, adaptive>> back(B);
            CHECK(nonzeros(back) == r.expected);
            CHECK(back.nnz() == A.nnz());
          }(),
          ...);
    }(static_cast<
        std::tuple<dcsc, coo, format<adaptive, adaptive>, format<dense, adaptive>::ordered<1, 0>>*>(
        nullptr));
  }
  std::vector<std::array<std::int64_t, 3>> c{{1, 0, 2}, {0, 1, 1}, {1, 0, 0}, {0, 1, 0}, {2, 3, 4}};
  std::vector<double> v{1, 2, 3, 4, 5};
  auto a = from_coo<format<adaptive, adaptive, adaptive>>({3, 4, 5}, c, v);
  tensor<double, format<adaptive, hashed, adaptive>::ordered<2, 0, 1>> b(a);
  for (std::size_t e = 0; e < c.size(); ++e) {
    CHECK(a.at(c[e][0], c[e][1], c[e][2]) == v[e]);
    CHECK(b.at(c[e][0], c[e][1], c[e][2]) == v[e]);
  }
  CHECK(a.nnz() == 5);
  CHECK(a.at(2, 3, 3) == 0);
}

TEST_CASE("adaptive: width errors and the checks of a view made from parts") {
  using narrow = format<dense, adaptive_level<std::int8_t, std::int8_t>>;
  CHECK_THROWS_WITH_AS(from_coo<narrow>({2, 300}, {{0, 5}}, std::vector<double>{1}),
                       doctest::Contains("largest coordinate of mode 1"), loom::overflow_error);
  using few_positions = format<dense, adaptive_level<std::int8_t>>;  // 2 x 100 positions
  const rows_matrix bitmaps = make_rows({7, 7}, 100, 5);  // two bitmap rows: 200 positions
  CHECK_THROWS_WITH_AS(
      from_coo<few_positions>({2, 100}, bitmaps.coords, bitmaps.values, duplicates::sum),
      doctest::Contains("number of positions"), loom::overflow_error);

  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  const rows_matrix r = make_rows(mixed_rows, columns, 4);
  auto A = from_coo<format<dense, adaptive>>({7, columns}, r.coords, r.values, duplicates::sum);
  using F = format<dense, adaptive>;
  std::vector<fiber_kind> kind(A.level<1>().kind.begin(), A.level<1>().kind.end());
  auto make_view = [&] {
    typename view<double, F>::level_storages parts{};
    std::get<0>(parts).extent = 7;
    auto& lv = std::get<1>(parts);
    lv.extent = columns;
    lv.kind = kind;
    lv.pos = A.level<1>().pos;
    lv.crd = A.level<1>().crd;
    lv.bits = A.level<1>().bits;
    lv.slot_pos = A.level<1>().slot_pos;
    lv.table = A.level<1>().table;
    return view<double, F>({7, columns}, parts, A.values());
  };
  const auto V = make_view();
  CHECK(V.nnz() == A.nnz());
  CHECK(loom::eval(loom::sum(i, j, V(i, j))) ==
        doctest::Approx(loom::eval(loom::sum(i, j, A(i, j)))));
  CHECK_NOTHROW(validate(V));
  kind[6] = fiber_kind::bitmap;  // a full fiber marked bitmap is fine: every bit is set
  CHECK_NOTHROW(validate(make_view()));
  kind[0] = fiber_kind::dense;  // an empty fiber cannot be dense: it has no positions
  CHECK_THROWS_WITH_AS(validate(make_view()), doctest::Contains("adaptive level of mode 1"),
                       loom::shape_error);
  kind[0] = fiber_kind::sorted;
  kind[3] = fiber_kind::sorted;  // a hashed fiber's table left without its kind
  CHECK_THROWS_WITH_AS(validate(make_view()), doctest::Contains("hash slots"), loom::shape_error);
}

TEST_CASE("adaptive: explain names the level; a probed adaptive vector is located") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  auto A = from_coo<csr>({3, 40}, {{0, 0}, {2, 3}, {2, 39}}, std::vector<double>{1, 2, 3});
  auto x = from_coo<format<adaptive>>({40}, {{3}, {39}}, std::vector<double>{5, 7});
  A.set_name("A");
  x.set_name("x");
  tensor<double, dense_vector> y({3});
  const std::string probed = loom::explain(y(i), loom::sum(j, A(i, j) * x(j)));
  CAPTURE(probed);
  CHECK(probed.find("iterate A (compressed); locate x (adaptive)") != std::string::npos);
  y(i) = loom::sum(j, A(i, j) * x(j));
  CHECK(y.at(2) == 2 * 5 + 3 * 7);
  CHECK(y.at(0) == 0);
}

TEST_CASE("adaptive: outputs appended then laid out, by fill and with every kind forced") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  const rows_matrix r = make_rows(mixed_rows, columns, 6);
  const auto A = from_coo<csr>({7, columns}, r.coords, r.values, duplicates::sum);
  entry_map doubled;
  for (const auto& [c, v] : r.expected) doubled[c] = 2 * v;
  // by fill: every kind among the rows, the full row dense (its bits set: validate checks them)
  tensor<double, format<dense, adaptive>> C({7, columns});
  C(i, j) = A(i, j) + A(i, j);
  CHECK(nonzeros(C) == doubled);
  CHECK(C.nnz() == A.nnz());
  CHECK_NOTHROW(validate(C));
  CHECK(adaptive::fibers_of(C.level<1>(), fiber_kind::dense) == 1);
  CHECK(adaptive::fibers_of(C.level<1>(), fiber_kind::hashed) == 1);
  tensor<double, dense_vector> pick({7});
  pick.at(6) = 1;
  // forced: every row takes the kind (dense only where full, else a bitmap), written again into
  // the same output (its arrays recycled)
  for (const fiber_kind k :
       {fiber_kind::sorted, fiber_kind::hashed, fiber_kind::bitmap, fiber_kind::dense}) {
    CAPTURE(fiber_kind_name(k));
    C.level<1>().only = k;
    C(i, j) = A(i, j) + A(i, j);
    CHECK(nonzeros(C) == doubled);
    CHECK(C.nnz() == A.nnz());
    CHECK_NOTHROW(validate(C));
    const fiber_kind sparse_rows = k == fiber_kind::dense ? fiber_kind::bitmap : k;
    CHECK(adaptive::fibers_of(C.level<1>(), sparse_rows) == (k == fiber_kind::dense ? 6 : 7));
    tensor<double, format<adaptive>> v({columns});
    v.level<0>().only = k;
    v(j) = loom::sum(i, A(i, j) * pick(i));  // the full row
    CHECK(v.nnz() == columns);
    CHECK_NOTHROW(validate(v));
    CHECK(v.at(5) == A.at(6, 5));
  }
}
