// The relational layer misused: keys of the wrong type, join columns of different
// types or dictionaries, empty tables, duplicate keys under exists() and under a value. Each is
// a loom::error naming the table, the column and the values, or a right answer; never a crash
// and never a silently meaningless number.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>
#include <loom/relational.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;
constexpr loom::index<"a"> a;

// The message of the loom::error that `f` throws ("" when it throws none).
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const loom::error& e) {
    return e.what();
  }
  return "";
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// orders: (key, customer, day, city, price); customers: (key, city); with a repeated key 2
rel::table orders() {
  return rel::read_csv_text(
      "o_key,o_cust,o_day,o_city,o_price\n"
      "1,0,1995-01-02,Lima,1.5\n"
      "2,2,1995-01-03,Oslo,2.25\n"
      "2,1,1995-01-03,Lima,4\n"
      "4,2,1995-01-09,Quito,8\n",
      "orders.csv",
      {{"o_key", column_type::int64},
       {"o_cust", column_type::int64},
       {"o_day", column_type::date},
       {"o_city", column_type::string},
       {"o_price", column_type::decimal}});
}
rel::table customers() {
  return rel::read_csv_text("c_key,c_city\n0,Oslo\n1,Lima\n2,Bern\n", "customers.csv",
                            {{"c_key", column_type::int64}, {"c_city", column_type::string}});
}
}  // namespace

TEST_CASE("relational misuse: keys of the wrong type or missing are column_errors naming both") {
  const rel::table o = orders();
  const std::string decimal = error_of([&] { (void)rel::key_by<1>(o, {"o_price"}, rel::count()); });
  CHECK(has(decimal, "o_price"));
  CHECK(has(decimal, "orders.csv"));
  CHECK(has(decimal, "decimal"));
  const std::string missing = error_of([&] { (void)rel::key_by<1>(o, {"o_kye"}, rel::count()); });
  CHECK(has(missing, "o_kye"));
  CHECK(has(missing, "o_key, o_cust"));  // the columns it has
  // a negative key, or one past an explicit extent
  const rel::table neg = rel::read_csv_text("k\n3\n-1\n", "neg.csv", {{"k", column_type::int64}});
  CHECK(has(error_of([&] { (void)rel::key_by<1>(neg, {"k"}, rel::count()); }),
            "neg.csv row 2: key k = -1"));
  CHECK(has(error_of([&] { (void)rel::key_by<1>(o, {"o_key"}, rel::count(), {4}); }),
            "key o_key = 4 is outside [0, 4)"));
  // a negative extent, even over no rows
  const rel::table none = rel::read_csv_text("k\n", "none.csv", {{"k", column_type::int64}});
  CHECK(has(error_of([&] { (void)rel::key_by<1>(none, {"k"}, rel::count(), {-3}); }), "extent -3"));
}

TEST_CASE("relational misuse: values of the wrong type are column_errors, not sums of codes") {
  const rel::table o = orders();
  // the sum of a string column's dictionary codes, or of dates as day numbers, means nothing
  const std::string s = error_of(
      [&] { (void)rel::key_by<1>(o, {"o_key"}, rel::sum_of<double>(std::string("o_city"))); });
  CHECK(has(s, "o_city"));
  CHECK(has(s, "string"));
  CHECK(has(s, "orders.csv"));
  CHECK(has(error_of([&] {
              (void)rel::key_by<1>(o, {"o_key"}, rel::sum_of<double>(std::string("o_day")));
            }),
            "o_day"));
  // the smallest and largest date or string are meaningful: codes and days keep the order
  const auto first = rel::key_by<1>(o, {"o_key"}, rel::min_of<double>(std::string("o_day")));
  CHECK(first.at(2).value == static_cast<double>(rel::date("1995-01-03")));
  const auto last_city = rel::key_by<1>(o, {"o_key"}, rel::max_of<double>(std::string("o_city")));
  CHECK(o["o_city"].dict()->word(static_cast<std::int64_t>(last_city.at(2).value)) == "Oslo");
  CHECK(has(error_of([&] {
              (void)rel::key_by<1>(o, {"o_key"}, rel::sum_of<double>(std::string("o_prize")));
            }),
            "o_prize"));
}

TEST_CASE("relational misuse: join columns must agree in type and dictionary") {
  rel::table o = orders();
  rel::table c = customers();
  // int64 against string, date against int64
  const std::string types = error_of([&] { (void)rel::extent_of(o["o_cust"], c["c_city"]); });
  CHECK(has(types, "o_cust"));
  CHECK(has(types, "c_city"));
  CHECK(has(types, "int64"));
  CHECK(has(types, "string"));
  CHECK(has(error_of([&] { (void)rel::extent_of(o["o_day"], o["o_key"]); }), "date"));
  CHECK(has(error_of([&] { (void)rel::extent_of(o["o_price"], o["o_price"]); }), "decimal"));
  // two string columns read apart: code 1 is "Oslo" in one and "Lima" in the other
  const std::string dicts = error_of([&] { (void)rel::extent_of(o["o_city"], c["c_city"]); });
  CHECK(has(dicts, "share_dictionary"));
  CHECK(has(dicts, "o_city"));
  // once they share a dictionary, the join is right
  rel::share_dictionary(o, "o_city", c, "c_city");
  const std::int64_t n = rel::extent_of(o["o_city"], c["c_city"]);
  const auto O = rel::key_by<1>(o, {"o_city"}, rel::count(), {n});
  const auto C = rel::key_by<1>(c, {"c_city"}, rel::count(), {n});
  std::int64_t both = 0;
  both = loom::eval(loom::sum(a, O(a) * C(a)));
  CHECK(both == 3);  // Lima twice, Oslo once; Quito and Bern have no partner
  // relations of different extents do not multiply
  const auto K = rel::key_by<1>(o, {"o_key"}, rel::count());
  const auto L = rel::key_by<1>(c, {"c_key"}, rel::count());
  CHECK(K.shape()[0] != L.shape()[0]);
  CHECK_THROWS_AS((void)loom::eval(loom::sum(a, K(a) * L(a))), loom::error);
}

TEST_CASE("relational misuse: empty tables key to empty relations and empty results") {
  const rel::table none = rel::read_csv_text(
      "k,v,s\n", "none.csv",
      {{"k", column_type::int64}, {"v", column_type::decimal}, {"s", column_type::string}});
  CHECK(none.rows() == 0);
  CHECK(rel::extent_of(none["k"]) == 1);
  CHECK(rel::extent_of(none["s"]) == 1);
  const auto C = rel::key_by<1>(none, {"k"}, rel::count());
  const auto E = rel::key_by<2>(none, {"k", "s"}, rel::exists());
  const auto S = rel::key_by<1>(none, {"k"}, rel::sum_of<double>(std::string("v")));
  CHECK(C.nnz() == 0);
  CHECK(E.nnz() == 0);
  CHECK(S.nnz() == 0);
  CHECK(rel::to_rows(C).empty());
  const rel::table back = rel::to_table(S, {none["k"]}, "total");
  CHECK(back.rows() == 0);
  CHECK(rel::sort_rows(back, {"total"}).rows() == 0);
  std::ostringstream out;
  back.write_csv(out);
  CHECK(out.str() == "k,total\n");
  CHECK(rel::table().rows() == 0);
  CHECK(has(error_of([] {
              (void)rel::read_csv_text("", "empty.csv", {{"k", column_type::int64}});
            }),
            "empty.csv:1"));
}

TEST_CASE("relational misuse: duplicate keys under exists() are one, under a value combine") {
  const rel::table o = orders();  // o_key 2 twice, prices 2.25 and 4
  const auto E = rel::key_by<1>(o, {"o_key"}, rel::exists());
  const auto C = rel::key_by<1>(o, {"o_key"}, rel::count());
  const auto S = rel::key_by<1>(o, {"o_key"}, rel::sum_of<double>(std::string("o_price")));
  CHECK(E.at(2) == 1);
  CHECK(C.at(2) == 2);
  CHECK(S.at(2) == 6.25);
  // several aggregates over one sort agree with one at a time
  const auto [E2, S2] = rel::key_by<1>(
      o, {"o_key"}, std::tuple{rel::exists(), rel::sum_of<double>(std::string("o_price"))});
  CHECK(E2.at(2) == 1);
  CHECK(S2.at(2) == 6.25);
  CHECK(E2.nnz() == 3);
  // an aggregate that refuses duplicates names key_by, the table and the key columns
  const auto unique_price =
      rel::aggregate<double, loom::duplicates::error, decltype([](const rel::table& t) {
                       return [p = t.reals("o_price")](std::size_t r) { return p[r]; };
                     })>{};
  const std::string dup = error_of([&] { (void)rel::key_by<1>(o, {"o_key"}, unique_price); });
  CHECK(has(dup, "key_by"));
  CHECK(has(dup, "orders.csv"));
  CHECK(has(dup, "o_key = 2"));
  CHECK_THROWS_AS((void)rel::key_by<1>(o, {"o_key"}, unique_price), loom::duplicate_error);
  // a one-column table of empty strings writes lines read_csv reads back (they were blank)
  const rel::table blanks =
      rel::read_csv_text("s\n\"\"\n\"\"\n", "blanks.csv", {{"s", column_type::string}});
  CHECK(blanks.rows() == 2);
  std::ostringstream out;
  blanks.write_csv(out);
  CHECK(rel::read_csv_text(out.str(), "again.csv", {{"s", column_type::string}}).rows() == 2);
}
