// Relations as tensors: keying with aggregates, joins as products, group-by as sums, selections
// by predicate vectors, value filters, results back to rows; each against a brute-force loop.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>
#include <loom/relational.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
constexpr loom::index<"c"> c;

// A random sales table: (store, day, item, qty, price), with repeated keys.
rel::table sales(unsigned seed, int rows) {
  std::mt19937 gen(seed);
  std::ostringstream csv;
  const char* items[] = {"dark green lamp", "red chair", "green", "blue table", "greenish mug"};
  csv << "store,day,item,qty,price\n";
  for (int r = 0; r < rows; ++r)
    csv << gen() % 7 << "," << rel::format_date(rel::date("1994-12-20") + gen() % 20) << ","
        << items[gen() % 5] << "," << gen() % 5 << "," << (gen() % 1000) / 8.0 << "\n";
  return rel::read_csv_text(csv.str(), "sales.csv",
                            {{"store", column_type::int64},
                             {"day", column_type::date},
                             {"item", column_type::string},
                             {"qty", column_type::int64},
                             {"price", column_type::decimal}});
}
}  // namespace

TEST_CASE("key_by: one compressed level per key, values aggregated per distinct key") {
  const rel::table t = sales(1, 300);
  const auto store = t.ints("store"), day = t.ints("day"), qty = t.ints("qty");
  const auto price = t.reals("price");
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> count;
  std::map<std::pair<std::int64_t, std::int64_t>, double> total, lo, hi;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto k = std::make_pair(store[r], day[r]);
    ++count[k];
    total[k] += price[r] * static_cast<double>(qty[r]);
    lo[k] = lo.count(k) ? std::min(lo[k], price[r]) : price[r];
    hi[k] = hi.count(k) ? std::max(hi[k], price[r]) : price[r];
  }
  const auto C = rel::key_by<loom::csf<2>>(t, {"store", "day"}, rel::count());
  const auto E = rel::key_by<2>(t, {"store", "day"}, rel::exists());
  const auto S = rel::key_by<2>(t, {"store", "day"}, rel::sum_of<double>([&](std::size_t r) {
                                  return price[r] * static_cast<double>(qty[r]);
                                }));
  const auto Lo = rel::key_by<2>(t, {"store", "day"}, rel::min_of<double>("price"));
  const auto Hi = rel::key_by<loom::dcsr>(t, {"store", "day"}, rel::max_of<double>("price"));
  CHECK(C.shape()[0] == 7);
  CHECK(C.shape()[1] == rel::date("1994-12-20") + 20);
  CHECK(C.nnz() == static_cast<std::int64_t>(count.size()));
  CHECK(C.level<0>().crd.size() <= 7);  // the first level holds each store once: a trie
  for (const auto& [k, n] : count) {
    CHECK(C.at(k.first, k.second) == n);
    CHECK(E.at(k.first, k.second) == 1);
    CHECK(S.at(k.first, k.second) == doctest::Approx(total[k]));
    CHECK(Lo.at(k.first, k.second).value == lo[k]);
    CHECK(Hi.at(k.first, k.second).value == hi[k]);
  }
  // a string key: coordinates are dictionary codes; the extent is the dictionary's size
  const auto I = rel::key_by<1>(t, {"item"}, rel::count());
  CHECK(I.shape()[0] == t["item"].dict()->size());
  CHECK_THROWS_AS(rel::key_by<1>(t, {"price"}, rel::count()), rel::column_error);
  CHECK_THROWS_AS(rel::key_by<1>(t, {"nope"}, rel::count()), rel::column_error);
  CHECK_THROWS_AS(rel::key_by<1>(t, {"store"}, rel::count(), {3}), rel::column_error);
}

TEST_CASE("join, projection and selection (notes T10) over N and over the boolean semiring") {
  const rel::table R = rel::read_csv_text("a,b\n1,2\n1,3\n2,3\n", "R.csv",
                                          {{"a", column_type::int64}, {"b", column_type::int64}});
  const rel::table S = rel::read_csv_text("b,c\n2,5\n3,5\n3,6\n", "S.csv",
                                          {{"b", column_type::int64}, {"c", column_type::int64}});
  const std::int64_t nb = rel::extent_of(R["b"], S["b"]);
  auto Rt = rel::key_by<2>(R, {"a", "b"}, rel::count(), {0, nb});
  auto St = rel::key_by<2>(S, {"b", "c"}, rel::count(), {nb, 0});
  loom::tensor<std::int64_t, loom::dcsr> P({Rt.shape()[0], St.shape()[1]});
  P(a, c) = loom::sum(b, Rt(a, b) * St(b, c));  // π_{a,c}(R ⋈ S) with multiplicities
  using rows = std::vector<rel::row<std::int64_t, 2>>;
  CHECK(rel::to_rows(P) == rows{{{1, 5}, 2}, {{1, 6}, 1}, {{2, 5}, 1}, {{2, 6}, 1}});
  const auto c5 = rel::equal(5, St.shape()[1]);  // σ_{c = 5}
  P(a, c) = loom::sum(b, Rt(a, b) * St(b, c) * c5(c));
  CHECK(rel::to_rows(P) == rows{{{1, 5}, 2}, {{2, 5}, 1}});

  auto Rb = rel::key_by<2>(R, {"a", "b"}, rel::exists<loom::boolean>(), {0, nb});
  auto Sb = rel::key_by<2>(S, {"b", "c"}, rel::exists<loom::boolean>(), {nb, 0});
  loom::tensor<loom::boolean, loom::dcsr> Pb({Rb.shape()[0], Sb.shape()[1]});
  Pb(a, c) = loom::sum(b, Rb(a, b) * Sb(b, c));  // set semantics: existential projection
  CHECK(rel::to_rows(Pb).size() == 4);
  CHECK(Pb.at(1, 5) == loom::boolean(true));
}

TEST_CASE("group-by with key predicates (range, string LIKE) and value filters vs brute force") {
  const rel::table t = sales(7, 500);
  const auto store = t.ints("store"), day = t.ints("day"), item = t.ints("item"),
             qty = t.ints("qty");
  const auto price = t.reals("price");
  const auto& items = *t["item"].dict();
  const std::int64_t lo = rel::date("1994-12-25"), hi = rel::date("1995-01-01");
  // brute force: revenue per store for green items sold in [lo, hi)
  std::map<std::int64_t, double> expected;
  for (std::size_t r = 0; r < t.rows(); ++r)
    if (day[r] >= lo && day[r] < hi && items.word(item[r]).find("green") != std::string::npos)
      expected[store[r]] += price[r] * static_cast<double>(qty[r]);

  const auto V = rel::key_by<3>(
      t, {"store", "day", "item"},
      rel::sum_of<double>([&](std::size_t r) { return price[r] * static_cast<double>(qty[r]); }));
  const auto in_range = rel::range<double>(lo, hi, V.shape()[1]);
  const auto green = rel::like<double>(t["item"], "%green%");
  CHECK(green.nnz() == 3);  // "dark green lamp", "green", "greenish mug"
  loom::tensor<double, loom::dense_vector> revenue({V.shape()[0]});
  revenue(a) = loom::sum(b, c, V(a, b, c) * in_range(b) * green(c));
  const auto got = rel::to_rows(revenue);
  REQUIRE(got.size() == expected.size());
  for (const auto& r : got) CHECK(r.value == doctest::Approx(expected[r.keys[0]]));

  // value filter: keys whose total exceeds a threshold, materialised and fused
  const auto totals = rel::key_by<1>(t, {"store"}, rel::sum_of<double>("price"));
  std::map<std::int64_t, double> by_store;
  for (std::size_t r = 0; r < t.rows(); ++r) by_store[store[r]] += price[r];
  const double threshold = by_store.begin()->second;
  const auto big = rel::filter_values(totals, [&](double v) { return v > threshold; });
  double fused = loom::eval(loom::sum(a, loom::where(totals(a) > threshold, totals(a))));
  double reference = 0;
  std::size_t kept = 0;
  for (const auto& [s, v] : by_store)
    if (v > threshold) reference += v, ++kept;
  CHECK(big.nnz() == static_cast<std::int64_t>(kept));
  CHECK(fused == doctest::Approx(reference));
  CHECK(loom::eval(loom::sum(a, big(a))) == doctest::Approx(reference));
}

TEST_CASE("results back to rows: to_table decodes strings and dates, write_csv prints them") {
  const rel::table t = sales(3, 200);
  const auto N = rel::key_by<2>(t, {"item", "day"}, rel::count());
  loom::tensor<std::int64_t, loom::dcsr> M({N.shape()[0], N.shape()[1]});
  M(a, b) = N(a, b) * 2;
  const rel::table out = rel::sort_rows(rel::to_table(M, {t["item"], t["day"]}, "twice"),
                                        {"twice", "item"}, {true, false});
  std::ostringstream csv;
  out.write_csv(csv);
  // reference: count (item text, day text) pairs directly from the table
  std::map<std::pair<std::string, std::string>, std::int64_t> ref;
  for (std::size_t r = 0; r < t.rows(); ++r) ref[{t["item"].text(r), t["day"].text(r)}] += 2;
  REQUIRE(out.rows() == ref.size());
  for (std::size_t r = 0; r < out.rows(); ++r)
    CHECK(ref[{out["item"].text(r), out["day"].text(r)}] == out.ints("twice")[r]);
  for (std::size_t r = 1; r < out.rows(); ++r)
    CHECK(out.ints("twice")[r - 1] >= out.ints("twice")[r]);
  CHECK(csv.str().rfind("item,day,twice\n", 0) == 0);
}

TEST_CASE("a join on string keys through a shared dictionary") {
  rel::table people =
      rel::read_csv_text("id,city\n1,Oslo\n2,Bergen\n3,Oslo\n4,Tromso\n", "people.csv",
                         {{"id", column_type::int64}, {"city", column_type::string}});
  rel::table stores =
      rel::read_csv_text("store,city\n10,Bergen\n11,Oslo\n12,Oslo\n13,Alta\n", "stores.csv",
                         {{"store", column_type::int64}, {"city", column_type::string}});
  // before: each table has its own codes (Oslo is 1 in people and 2 in stores)
  CHECK(people["city"].ints()[0] != stores["city"].ints()[1]);
  rel::share_dictionary(people, "city", stores, "city");
  CHECK(people["city"].dict() == stores["city"].dict());
  CHECK(people["city"].text(3) == "Tromso");
  CHECK(stores["city"].text(3) == "Alta");
  const auto P = rel::key_by<2>(people, {"city", "id"}, rel::count());
  const auto S = rel::key_by<2>(stores, {"city", "store"}, rel::count());
  // pairs (person, store) in the same city
  const std::int64_t pairs = loom::eval(loom::sum(a, b, c, P(a, b) * S(a, c)));
  std::int64_t ref = 0;
  for (std::size_t x = 0; x < people.rows(); ++x)
    for (std::size_t y = 0; y < stores.rows(); ++y)
      ref += people["city"].text(x) == stores["city"].text(y);
  CHECK(pairs == ref);
  CHECK(ref == 5);  // Oslo 2 x 2, Bergen 1 x 1
  CHECK_THROWS_AS(rel::share_dictionary(people, "id", stores, "city"), rel::column_error);
}
