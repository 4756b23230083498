// key_by's radix sort (relational/sorted_keys.hpp): every path (rows already sorted, sorted by a
// key prefix, by a key suffix, unsorted; keys packed with the row, beside it, or read from the
// columns) gives the tensor the sort-based key_by gave, array for array, with the same errors.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/format.hpp>
#include <loom/format/levels/bitmap.hpp>
#include <loom/relational/aggregate.hpp>
#include <loom/relational/relation.hpp>
#include <loom/relational/sorted_keys.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

// key_by as it was before the radix sort: coordinates and values per row, then from_coo.
template <loom::storage_format Format, class Agg>
loom::tensor<typename Agg::value_type, Format> reference_key_by(
    const rel::table& t, const std::array<std::string, Format::order>& keys, const Agg& agg,
    std::array<std::int64_t, Format::order> shape) {
  constexpr std::size_t N = Format::order;
  std::array<std::span<const std::int64_t>, N> key_values;
  for (std::size_t k = 0; k < N; ++k) {
    const rel::column& c = t[keys[k]];
    if (!c.is_integer())
      throw rel::column_error("loom::relational::key_by: key column " + keys[k] + " of " +
                              t.name() + " is decimal; key by an integer, date or string column");
    key_values[k] = c.ints();
    if (shape[k] == 0) shape[k] = rel::extent_of(c);
  }
  std::vector<std::array<std::int64_t, N>> coords(t.rows());
  std::vector<typename Agg::value_type> values(t.rows());
  const auto value_of = agg.bind(t);
  for (std::size_t r = 0; r < t.rows(); ++r) {
    for (std::size_t k = 0; k < N; ++k) {
      const std::int64_t v = key_values[k][r];
      if (v < 0 || v >= shape[k])
        throw rel::column_error("loom::relational::key_by: " + t.name() + " row " +
                                std::to_string(r + 1) + ": key " + keys[k] + " = " +
                                std::to_string(v) + " is outside [0, " + std::to_string(shape[k]) +
                                "); keys must be non-negative and below the extent");
      coords[r][k] = v;
    }
    values[r] = value_of(r);
  }
  return loom::from_coo<Format>(shape, coords, values, Agg::policy);
}

// Bitwise equality of two doubles (or of any trivially copyable value).
template <class T> bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The two tensors hold the same arrays: every level's arrays and the values, bit for bit.
template <class T, class Format>
void check_same(const loom::tensor<T, Format>& got, const loom::tensor<T, Format>& want) {
  REQUIRE(got.shape() == want.shape());
  REQUIRE(got.values().size() == want.values().size());
  for (std::size_t p = 0; p < got.values().size(); ++p)
    REQUIRE(same_bits(got.values()[p], want.values()[p]));
  [&]<std::size_t... Ks>(std::index_sequence<Ks...>) {
    (
        [&] {
          const auto& a = got.template level<Ks>();
          const auto& b = want.template level<Ks>();
          if constexpr (requires { a.pos; }) CHECK(a.pos == b.pos);
          if constexpr (requires { a.crd; }) CHECK(a.crd == b.crd);
          if constexpr (requires { a.extent; }) CHECK(a.extent == b.extent);
          if constexpr (requires { a.bits; }) CHECK(a.bits == b.bits);
        }(),
        ...);
  }(std::make_index_sequence<Format::order>{});
}

// The error message of f(), or "" when it throws nothing.
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const loom::error& e) {
    return std::string(typeid(e).name()) + ": " + e.what();
  }
  return "";
}

// A table with key columns a, b, c (values below the extents) and value columns x (decimal), q
// (int64); `order` arranges the rows: 0 unsorted, 1 sorted by (a, b, c), 2 sorted by a only,
// 3 sorted by c only, 4 sorted by (b, c).
rel::table make_table(unsigned seed, std::size_t rows, std::array<std::int64_t, 3> extent,
                      int order) {
  std::mt19937_64 gen(seed);
  std::vector<std::array<std::int64_t, 3>> keys(rows);
  for (auto& k : keys)
    for (std::size_t m = 0; m < 3; ++m)
      k[m] = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(extent[m]));
  if (!keys.empty()) keys.back() = {extent[0] - 1, extent[1] - 1, extent[2] - 1};  // the bound
  auto by = [&](std::vector<std::size_t> modes) {
    std::stable_sort(keys.begin(), keys.end(), [&](const auto& u, const auto& v) {
      for (std::size_t m : modes)
        if (u[m] != v[m]) return u[m] < v[m];
      return false;
    });
  };
  if (order == 1) by({0, 1, 2});
  if (order == 2) by({0});
  if (order == 3) by({2});
  if (order == 4) by({1, 2});
  std::vector<std::int64_t> a, b, c, q;
  std::vector<double> x;
  for (const auto& k : keys) {
    a.push_back(k[0]);
    b.push_back(k[1]);
    c.push_back(k[2]);
    // values whose sums depend on the order of addition, as doubles do
    x.push_back(gen() % 3 == 0 ? 1e16 : static_cast<double>(gen() % 1000) / 8 - 60);
    q.push_back(static_cast<std::int64_t>(gen() % 100));
  }
  rel::table t("t" + std::to_string(seed));
  t.add(rel::column("a", a)).add(rel::column("b", b)).add(rel::column("c", c));
  t.add(rel::column("x", x)).add(rel::column("q", q));
  return t;
}

template <loom::storage_format Format, class Agg>
void check_key_by(const rel::table& t, const std::array<std::string, Format::order>& keys,
                  const Agg& agg, std::array<std::int64_t, Format::order> shape) {
  const std::string want_error =
      error_of([&] { (void)reference_key_by<Format>(t, keys, agg, shape); });
  const std::string got_error = error_of([&] { (void)rel::key_by<Format>(t, keys, agg, shape); });
  CHECK(got_error == want_error);
  if (!want_error.empty()) return;
  check_same(rel::key_by<Format>(t, keys, agg, shape),
             reference_key_by<Format>(t, keys, agg, shape));
}

// Every aggregate kind over one table, keys (a, b, c) or a pair of them, several formats.
void check_all(const rel::table& t, std::array<std::int64_t, 3> extent) {
  const auto x = t.reals("x");
  const auto sum_x = rel::sum_of<double>("x");
  const auto sum_f = rel::sum_of<double>([x](std::size_t r) { return 2 * x[r]; });
  const std::array<std::string, 3> abc{"a", "b", "c"};
  const std::array<std::string, 2> ab{"a", "b"}, ca{"c", "a"};
  check_key_by<loom::csf<3>>(t, abc, rel::count(), extent);
  check_key_by<loom::csf<3>>(t, abc, rel::exists<double>(), extent);
  check_key_by<loom::csf<3>>(t, abc, sum_x, extent);
  check_key_by<loom::csf<3>>(t, abc, sum_f, extent);
  check_key_by<loom::csf<3>>(t, abc, rel::min_of<double>("q"), extent);
  check_key_by<loom::csf<3>>(t, abc, rel::max_of<double>("x"), extent);
  check_key_by<loom::csf<3>::ordered<2, 0, 1>>(t, abc, sum_x, extent);  // storage order c, a, b
  check_key_by<loom::csf<3>>(t, abc, sum_x, {0, 0, 0});                 // extents of the columns
  check_key_by<loom::coo_n<3>>(t, abc, sum_x, extent);                  // assemble hooks
  check_key_by<loom::dcsc>(t, ca, sum_f, {extent[2], extent[0]});
  if (std::max(extent[0], extent[1]) <= 1 << 20) {  // a dense first level: an array of extent
    check_key_by<loom::format<loom::dense, loom::compressed, loom::compressed>>(t, abc, sum_x,
                                                                                extent);
    check_key_by<loom::csr>(t, ab, rel::count(), {extent[0], extent[1]});
    check_key_by<loom::csc>(t, ab, sum_x, {extent[0], extent[1]});
  }
  if (extent[0] * extent[1] <= 1 << 16) {  // a dense last level: values placed by position
    check_key_by<loom::dense_matrix>(t, ab, sum_x, {extent[0], extent[1]});
    check_key_by<loom::format<loom::compressed, loom::dense>>(t, ab, sum_x, {extent[0], extent[1]});
    check_key_by<loom::format<loom::dense, loom::bitmap>>(t, ab, sum_x, {extent[0], extent[1]});
  }
}
}  // namespace

TEST_CASE("key_by after the radix sort equals the stable sort, for every path and packing") {
  // extents: keys and row fit one word; keys fit one word, the row beside it; keys need more
  // than 64 bits (read through the row number, sorted word by word)
  constexpr std::int64_t big = std::int64_t{1} << 31;
  const std::array<std::array<std::int64_t, 3>, 5> extents{{{7, 5, 3},
                                                            {300, 1, 70},
                                                            {1 << 20, 1 << 18, 1 << 19},
                                                            {big / 2, 1 << 20, 3},
                                                            {big, big, 1 << 9}}};
  for (const auto& extent : extents)
    for (int order = 0; order <= 4; ++order)
      for (const std::size_t rows : {0, 1, 2, 33, 700, 5000}) {
        CAPTURE(extent);
        CAPTURE(order);
        CAPTURE(rows);
        check_all(make_table(static_cast<unsigned>(rows * 7 + static_cast<std::size_t>(order)),
                             rows, extent, order),
                  extent);
      }
}

TEST_CASE("the packing follows the bits the keys need") {
  using rel::detail::key_packing;
  CHECK(rel::detail::packing_for<3>({7, 5, 3}, 1000) == key_packing::with_row);
  CHECK(rel::detail::packing_for<2>({std::int64_t{1} << 40, 1 << 20}, 1 << 10) ==
        key_packing::apart);
  CHECK(rel::detail::packing_for<2>({std::int64_t{1} << 40, std::int64_t{1} << 30}, 2) ==
        key_packing::none);
  CHECK(rel::detail::packing_for<0>({}, 0) == key_packing::with_row);
  CHECK(rel::detail::key_bits(0) == 0);
  CHECK(rel::detail::key_bits(1) == 0);
  CHECK(rel::detail::key_bits(2) == 1);
  CHECK(rel::detail::key_bits(256) == 8);
  CHECK(rel::detail::key_bits(257) == 9);
}

TEST_CASE("sorted_keys: the stable order and the first differing key, in each packing") {
  std::mt19937_64 gen(3);
  auto check = [&]<rel::detail::key_packing P>(std::integral_constant<rel::detail::key_packing, P>,
                                               std::array<std::int64_t, 2> extent, std::size_t n,
                                               bool group) {
    std::vector<std::int64_t> a(n), b(n);
    for (std::size_t r = 0; r < n; ++r) {
      a[r] = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(extent[0]));
      b[r] = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(extent[1]));
    }
    if (group) std::sort(a.begin(), a.end());  // runs of equal a: sorted run by run
    const std::array<std::span<const std::int64_t>, 2> cols{a, b};
    const rel::detail::sorted_keys<2, std::uint32_t, P> s(cols, extent, n);
    std::vector<std::size_t> want(n);
    std::iota(want.begin(), want.end(), std::size_t{0});
    std::stable_sort(want.begin(), want.end(), [&](std::size_t r, std::size_t q) {
      return a[r] != a[q] ? a[r] < a[q] : b[r] < b[q];
    });
    REQUIRE(s.size() == n);
    for (std::size_t e = 0; e < n; ++e) {
      REQUIRE(s.row(e) == want[e]);
      REQUIRE(s.key(0, e) == a[want[e]]);
      REQUIRE(s.key(1, e) == b[want[e]]);
      if (e > 0) {
        const std::size_t d = a[want[e]] != a[want[e - 1]]   ? 0
                              : b[want[e]] != b[want[e - 1]] ? 1
                                                             : 2;
        REQUIRE(s.first_difference(e) == d);
      }
    }
    CHECK(s.moved() == !std::is_sorted(want.begin(), want.end()));  // want: identity or not
  };
  using rel::detail::key_packing;
  for (const bool group : {false, true})
    for (const std::size_t n : {0, 1, 5, 40, 3000}) {
      check(std::integral_constant<key_packing, key_packing::with_row>{}, {50, 60}, n, group);
      check(std::integral_constant<key_packing, key_packing::apart>{},
            {std::int64_t{1} << 40, std::int64_t{1} << 20}, n, group);
      check(std::integral_constant<key_packing, key_packing::none>{},
            {std::int64_t{1} << 40, std::int64_t{1} << 40}, n, group);
      check(std::integral_constant<key_packing, key_packing::none>{}, {1, 1}, n, group);
    }
}

TEST_CASE("key_by edge cases: empty, one row, duplicates summed in row order, bounds, errors") {
  auto table_of = [](std::vector<std::int64_t> a, std::vector<std::int64_t> b,
                     std::vector<double> x) {
    rel::table t("edge.csv");
    t.add(rel::column("a", std::move(a))).add(rel::column("b", std::move(b)));
    t.add(rel::column("x", std::move(x)));
    return t;
  };
  const std::array<std::string, 2> ab{"a", "b"};
  const auto sum_x = rel::sum_of<double>("x");
  SUBCASE("an empty table") {
    const rel::table t = table_of({}, {}, {});
    check_key_by<loom::csf<2>>(t, ab, sum_x, {4, 4});
    check_key_by<loom::csr>(t, ab, sum_x, {4, 4});
    check_key_by<loom::dense_matrix>(t, ab, sum_x, {4, 4});
    check_key_by<loom::csf<2>>(t, ab, sum_x, {0, 0});
    const auto E = rel::key_by<2>(t, ab, sum_x);
    CHECK(E.nnz() == 0);
    CHECK(E.shape() == std::array<std::int64_t, 2>{1, 1});
  }
  SUBCASE("one row") {
    const rel::table t = table_of({3}, {0}, {2.5});
    check_key_by<loom::csf<2>>(t, ab, sum_x, {4, 1});
    const auto A = rel::key_by<2>(t, ab, sum_x);
    CHECK(A.at(3, 0) == 2.5);
    CHECK(A.nnz() == 1);
  }
  SUBCASE("duplicates sum in row order (1e16 + 1 - 1e16 is 0, not 1)") {
    const rel::table t = table_of({1, 0, 1, 1, 0}, {2, 1, 2, 2, 1}, {1e16, 5, 1, -1e16, 7});
    const auto A = rel::key_by<2>(t, ab, sum_x);
    CHECK(A.at(1, 2) == 0.0);
    CHECK(A.at(0, 1) == 12.0);
    CHECK(A.nnz() == 2);
    check_key_by<loom::csf<2>>(t, ab, sum_x, {0, 0});
    check_key_by<loom::csf<2>>(t, ab, rel::count(), {0, 0});
    const auto C = rel::key_by<2>(t, ab, rel::count());
    CHECK(C.at(1, 2) == 3);
    const auto L = rel::key_by<2>(t, ab, rel::exists<double>());
    CHECK(L.at(1, 2) == 1.0);
  }
  SUBCASE("keys at the extent bound, and one past it") {
    const rel::table t = table_of({0, 7, 3}, {8, 0, 8}, {1, 2, 3});
    check_key_by<loom::csf<2>>(t, ab, sum_x, {8, 9});
    const std::string past = error_of([&] { (void)rel::key_by<2>(t, ab, sum_x, {7, 9}); });
    CHECK(past.find("loom::relational::key_by: edge.csv row 2: key a = 7 is outside [0, 7); "
                    "keys must be non-negative and below the extent") != std::string::npos);
    check_key_by<loom::csf<2>>(t, ab, sum_x, {7, 9});
    check_key_by<loom::csf<2>>(t, ab, sum_x, {8, 8});  // row 1's b is reported first
    check_key_by<loom::csf<2>>(t, ab, sum_x, {-1, 9});
  }
  SUBCASE("a negative key") {
    const rel::table t = table_of({0, 1, 2}, {0, -4, 1}, {1, 2, 3});
    check_key_by<loom::csf<2>>(t, ab, sum_x, {3, 2});
    check_key_by<loom::csr>(t, ab, sum_x, {3, 0});
    CHECK_THROWS_AS(rel::key_by<2>(t, ab, sum_x, {3, 2}), rel::column_error);
  }
  SUBCASE("a decimal key, an unknown key, an unknown value column (before the key range)") {
    const rel::table t = table_of({0}, {0}, {1});
    CHECK_THROWS_AS(rel::key_by<2>(t, {"a", "x"}, rel::count()), rel::column_error);
    CHECK_THROWS_AS(rel::key_by<2>(t, {"a", "nope"}, rel::count()), rel::column_error);
    check_key_by<loom::csf<2>>(t, ab, rel::sum_of<double>("nope"), {1, 1});
    check_key_by<loom::csf<2>>(t, ab, rel::sum_of<double>("nope"), {0, -1});
    check_key_by<loom::csf<2>>(t, {"x", "b"}, rel::sum_of<double>("nope"), {1, 1});
  }
  SUBCASE("duplicates::error names the table and the smallest repeated key in storage order") {
    const rel::table t = table_of({2, 1, 2, 1}, {0, 3, 0, 3}, {1, 2, 3, 4});
    const auto unique_x = rel::detail::make_aggregate<double, loom::duplicates::error>(
        [](const rel::table& tt) { return [x = tt.reals("x")](std::size_t r) { return x[r]; }; });
    CHECK(error_of([&] { (void)rel::key_by<2>(t, ab, unique_x); })
              .find("loom::relational::key_by: edge.csv: the key a = 1, b = 3 occurs more than "
                    "once") != std::string::npos);
    CHECK(error_of([&] {
            (void)rel::key_by<loom::dcsc>(t, ab, unique_x);
          }).find("edge.csv: the key a = 2, b = 0 occurs more than once") != std::string::npos);
    CHECK_THROWS_AS(rel::key_by<2>(t, ab, unique_x), loom::duplicate_error);
  }
  SUBCASE("a level too narrow for the extent: the same overflow_error") {
    using narrow =
        loom::format<loom::compressed_level<loom::uniqueness::unique, std::int64_t, std::int8_t>,
                     loom::compressed>;
    const rel::table t = table_of({0, 1}, {0, 0}, {1, 2});
    check_key_by<narrow>(t, ab, sum_x, {200, 1});
    check_key_by<narrow>(t, ab, sum_x, {100, 1});
  }
}

TEST_CASE("key_by with a tuple of aggregates equals one key_by per aggregate") {
  for (const int order : {0, 1, 2, 3}) {
    const rel::table t = make_table(11, 4000, {60, 40, 900}, order);
    const std::array<std::string, 3> abc{"a", "b", "c"};
    const auto revenue =
        rel::sum_of<double>([x = t.reals("x")](std::size_t r) { return x[r] / 3; });
    const auto [R, Q, C] = rel::key_by<3>(
        t, abc, std::tuple{revenue, rel::sum_of<double>("q"), rel::count()}, {60, 40, 900});
    check_same(R, reference_key_by<loom::csf<3>>(t, abc, revenue, {60, 40, 900}));
    check_same(Q, reference_key_by<loom::csf<3>>(t, abc, rel::sum_of<double>("q"), {60, 40, 900}));
    check_same(C, reference_key_by<loom::csf<3>>(t, abc, rel::count(), {60, 40, 900}));
    loom::tensor<double, loom::csr> A, B;
    std::tie(A, B) =
        rel::key_by<loom::csr>(t, {"b", "a"}, std::tuple{rel::exists<double>(), revenue}, {40, 60});
    check_same(A, reference_key_by<loom::csr>(t, {"b", "a"}, rel::exists<double>(), {40, 60}));
    check_same(B, reference_key_by<loom::csr>(t, {"b", "a"}, revenue, {40, 60}));
  }
}
