// loom::sql_database's kept key indexes: a join builds the index of a table on its key once and
// later queries reuse it (counted), with results equal to those of indexes built per call; TPC-H
// Q3, Q5, Q10 and Q12 at SF 0.01.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../../examples/tpch/dbgen.hpp"
#include "../../examples/tpch/sql_queries.hpp"

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;
namespace sc = loom::sql_compiler;

/// SF 0.01, generated once for the test cases of this file.
struct tpch_tables {
  fs::path dir = fs::temp_directory_path() / "loom_tests_sql_database";
  std::unique_ptr<tpch::sql::tables> tables;
  tpch_tables() {
    fs::remove_all(dir);
    tpch::generate(dir, 0.01, true);
    tables = std::make_unique<tpch::sql::tables>(dir);
  }
  ~tpch_tables() { fs::remove_all(dir); }
  tpch_tables(const tpch_tables&) = delete;
  tpch_tables& operator=(const tpch_tables&) = delete;
};
const tpch_tables& data() {
  static const tpch_tables d;
  return d;
}
const tpch::sql::tables& tables() { return *data().tables; }

/// Whether two tables have the same columns, types and values: integers exactly, doubles to
/// 1e-12 relative (the joins of a database and those of a call without one may run in
/// different orders, which adds a sum's terms in another order).
bool same(const rel::table& a, const rel::table& b) {
  if (a.rows() != b.rows() || a.columns().size() != b.columns().size()) return false;
  auto close = [](double x, double y) {
    return std::abs(x - y) <= 1e-12 * std::max({1.0, std::abs(x), std::abs(y)});
  };
  for (std::size_t k = 0; k < a.columns().size(); ++k) {
    const rel::column &x = a.columns()[k], &y = b.columns()[k];
    if (x.name() != y.name() || x.type() != y.type()) return false;
    const bool equal = x.is_integer() ? std::ranges::equal(x.ints(), y.ints())
                                      : std::ranges::equal(x.reals(), y.reals(), close);
    if (!equal) return false;
    if (x.type() == rel::column_type::string)
      for (std::size_t r = 0; r < a.rows(); ++r)
        if (x.text(r) != y.text(r)) return false;
  }
  return true;
}

/// The first row from `from` on of a column of `n` rows that no neighbour pair sampled by
/// column_profile touches (a value there can break the column's order unseen).
std::size_t unsampled_row(std::size_t n, std::size_t from) {
  const std::size_t pairs = sc::column_profile::neighbours;
  std::vector<bool> sampled(n);
  for (std::size_t k = 0; k < pairs; ++k)
    sampled[k * (n - 1) / pairs] = sampled[k * (n - 1) / pairs + 1] = true;
  while (sampled[from]) ++from;
  return from;
}

/// The first row from `from` on of a column of `n` rows (more than column_profile::samples)
/// that the profile's sample of values does not read (a value there is outside the sampled
/// ends unseen).
std::size_t unread_row(std::size_t n, std::size_t from) {
  using profile = sc::column_profile;
  std::vector<bool> read(n);
  for (std::size_t k = 0; k < profile::samples; k += profile::run)
    for (std::size_t j = 0; j < profile::run; ++j)
      read[profile::scattered(k / profile::run) % (n - profile::run + 1) + j] = true;
  while (read[from]) ++from;
  return from;
}

/// Query `Text` with indexes built for the call (no database keeps them).
template <loom::fixed_string Text> rel::table uncached(const sc::database& db) {
  constexpr const sc::query& q = sc::detail::parsed<Text>;
  std::vector<const rel::table*> from;
  for (int t = 0; t < q.table_count; ++t) from.push_back(&db[q.tables[t].name]);
  return sc::run<q>(from);
}

/// Runs `Text` three times on `db` against `expected` (the group key in column `key` -> its
/// "total" and "n"): the first run keeps no index (`first` counts what it did instead), the
/// second builds the kept index, the third reuses it; each equals indexes built per call.
template <loom::fixed_string Text>
void check_three_runs(const loom::sql_database& db, const char* key,
                      const std::map<std::int64_t, std::pair<double, std::int64_t>>& expected,
                      std::size_t sc::database::index_counts::*first) {
  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    const rel::table r = loom::sql<Text>(db);
    REQUIRE(r.rows() == expected.size());
    std::size_t row = 0;
    for (const auto& [k, sums] : expected) {
      CHECK(r.ints(key)[row] == k);
      CHECK(r.reals("total")[row] == sums.first);
      CHECK(r.ints("n")[row] == sums.second);
      ++row;
    }
    CHECK(same(r, uncached<Text>(db)));
    CHECK(db.counts().*first == 1);
    CHECK(db.counts().built == (run == 0 ? 0u : 1u));
    CHECK(db.counts().reused == (run == 2 ? 1u : 0u));
  }
  CHECK(loom::sql_explain<Text>(db).find("first run") == std::string::npos);
}

}  // namespace

TEST_CASE("sql_database: a second query keyed alike builds no index, and answers alike") {
  const loom::sql_database db = tables().database();
  const rel::table first = loom::sql<tpch::sql::q5_text>(db);
  const auto after_first = db.counts();
  // Q5 joins five tables to the one it scans: each by a kept index of all its rows, or by one
  // of the rows that pass its own terms, built for the call.
  CHECK(after_first.built + after_first.filtered == 5);
  CHECK(after_first.built >= 1);
  CHECK(after_first.reused == 0);
  CHECK(db.index_count() == after_first.built);

  const rel::table second = loom::sql<tpch::sql::q5_text>(db);
  const auto after_second = db.counts();
  CHECK(after_second.built == after_first.built);  // nothing built
  CHECK(after_second.reused == after_first.built);
  CHECK(same(first, second));
  CHECK(same(first, uncached<tpch::sql::q5_text>(db)));

  // Q10 again builds nothing the second time.
  const rel::table q10 = loom::sql<tpch::sql::q10_text>(db);
  const auto after_q10 = db.counts();
  CHECK(same(q10, uncached<tpch::sql::q10_text>(db)));
  CHECK(same(q10, loom::sql<tpch::sql::q10_text>(db)));
  CHECK(db.counts().built == after_q10.built);
  CHECK(db.counts().reused > after_q10.reused);
}

TEST_CASE("sql_database: the join order is chosen by estimated work, counting kept indexes") {
  // Q5 at SF 0.01: scanning lineitem (the largest table, as without a database) probes with
  // every one of its rows; starting from a small filtered table does less, even counting the
  // indexes it builds. The plan names the runner-up, which costs no less.
  const loom::sql_database db = tables().database();
  const std::string plan = loom::sql_explain<tpch::sql::q5_text>(db);
  CHECK(plan.rfind("scan lineitem", 0) == std::string::npos);
  const std::size_t at = plan.find("estimated work ");
  REQUIRE(at != std::string::npos);
  const std::size_t instead = plan.find("first instead: ", at);
  REQUIRE(instead != std::string::npos);
  CHECK(std::stod(plan.substr(at + 15)) <= std::stod(plan.substr(instead + 15)));
  // Without a database the largest table is scanned and every other one indexed for the call.
  std::vector<const rel::table*> from;
  for (const char* name : {"customer", "orders", "lineitem", "supplier", "nation", "region"})
    from.push_back(&db[name]);
  const std::string rule = sc::explain<sc::detail::parsed<tpch::sql::q5_text>>(from);
  CHECK(rule.rfind("scan lineitem (59879 rows)\n", 0) == 0);
  CHECK(rule.find("estimated work") == std::string::npos);
}

TEST_CASE("sql_database: Q3, Q5, Q10 and Q12 with kept indexes equal those indexed per call") {
  const loom::sql_database db = tables().database();
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    // the third round on three threads: the indexes of filtered rows collected in parts
    const loom::parallel_scope split({.threads = round == 2 ? 3 : 1, .min_work = 1000});
    CHECK(same(loom::sql<tpch::sql::q3_text>(db), uncached<tpch::sql::q3_text>(db)));
    CHECK(same(loom::sql<tpch::sql::q5_text>(db), uncached<tpch::sql::q5_text>(db)));
    CHECK(same(loom::sql<tpch::sql::q10_text>(db), uncached<tpch::sql::q10_text>(db)));
    CHECK(same(loom::sql<tpch::sql::q12_text>(db), uncached<tpch::sql::q12_text>(db)));
  }
  // Q12 keys orders, which has no terms of its own, on o_orderkey: built once, then reused.
  CHECK(db.counts().reused >= db.counts().built);
}

TEST_CASE("sql_database: a kept index tests the table's own terms while probing") {
  // Few probes (one item of many passes its terms) into a table whose filter keeps most rows:
  // the kept index of all the rows is cheaper than a filtered one, and the filter moves to the
  // probe.
  std::string items = "item,part,qty\n", parts = "part,colour\n";
  for (int p = 0; p < 200; ++p) parts += std::to_string(p) + (p % 10 == 3 ? ",red\n" : ",blue\n");
  for (int i = 0; i < 400; ++i)
    items +=
        std::to_string(i) + "," + std::to_string(i % 200) + "," + std::to_string(i % 50) + "\n";
  using rel::column_type;
  loom::sql_database db;
  db.add("items", rel::read_csv_text(items, "items",
                                     {{"item", column_type::int64},
                                      {"part", column_type::int64},
                                      {"qty", column_type::int64}}));
  db.add("parts",
         rel::read_csv_text(parts, "parts",
                            {{"part", column_type::int64}, {"colour", column_type::string}}));
  constexpr loom::fixed_string text = R"(
    SELECT items.part, SUM(qty) AS q FROM items, parts
    WHERE items.part = parts.part AND colour <> 'red' AND qty = 7
    GROUP BY items.part)";
  // the first run searches the parts' ascending keys for its few probes (see the search's test
  // below); the second builds the kept index
  CHECK(same(loom::sql<text>(db), uncached<text>(db)));
  CHECK(db.counts().searched == 1);
  CHECK(db.counts().built == 0);
  const rel::table r = loom::sql<text>(db);
  CHECK(db.counts().built == 1);
  CHECK(db.counts().filtered == 0);
  CHECK(same(r, uncached<text>(db)));
  // qty = 7 for items 7, 57, ..., 357: parts 7, 57, 107, 157, 7, ... none red.
  REQUIRE(r.rows() == 4);
  CHECK(r.reals("q")[0] == 14);

  // Replacing the table drops its indexes: the next query scans the two parts instead and
  // indexes the items they probe (a first run's reduced index).
  db.add("parts",
         rel::read_csv_text("part,colour\n7,red\n57,blue\n", "parts",
                            {{"part", column_type::int64}, {"colour", column_type::string}}));
  CHECK(db.index_count() == 0);
  const rel::table again = loom::sql<text>(db);
  CHECK(db.counts().built == 1);
  CHECK(db.counts().reduced == 1);
  CHECK(loom::sql_explain<text>(db).find("scan parts (2 rows)") == 0);
  REQUIRE(again.rows() == 1);
  CHECK(again.ints("part")[0] == 57);
  CHECK(again.reals("q")[0] == 14);
}

TEST_CASE("sql_database: the example of the documentation") {
  const rel::table &lineitem = tables().lineitem, &customer = tables().customer;
  const rel::table &supplier = tables().supplier, &nation = tables().nation;
  const rel::table& region = tables().region;
  const std::string orders_csv = (data().dir / "orders.csv").string();
  const std::vector<rel::column_spec> orders_schema = {{"o_orderkey", rel::column_type::int64},
                                                       {"o_custkey", rel::column_type::int64},
                                                       {"o_orderdate", rel::column_type::date}};
  loom::sql_database db;
  db.add("lineitem", lineitem).add("customer", customer);      // by reference: they must outlive db
  db.add("orders", rel::read_csv(orders_csv, orders_schema));  // by value: db keeps it
  db.add("supplier", supplier).add("nation", nation).add("region", region);
  const rel::table q5 = loom::sql<tpch::sql::q5_text>(db);    // builds the indexes it needs
  const rel::table q10 = loom::sql<tpch::sql::q10_text>(db);  // reuses those keyed alike
  const auto counts = db.counts();  // counts.built, counts.reused, counts.filtered
  CHECK(counts.built >= 1);
  CHECK(same(q5, loom::sql<tpch::sql::q5_text>(tables().database())));
  CHECK(q10.rows() == 20);
  (void)loom::sql<tpch::sql::q10_text>(db);  // again: nothing built, every kept index reused
  CHECK(db.counts().built == counts.built);
  CHECK(db.counts().reused > counts.reused);
}

TEST_CASE("sql_database: queries on one database from two threads share its indexes") {
  const loom::sql_database db = tables().database();
  const rel::table q5 = uncached<tpch::sql::q5_text>(db), q10 = uncached<tpch::sql::q10_text>(db);
  bool equal[2] = {true, true};
  auto run = [&](int k) {
    for (int round = 0; round < 3; ++round) {
      equal[k] = equal[k] && same(loom::sql<tpch::sql::q5_text>(db), q5);
      equal[k] = equal[k] && same(loom::sql<tpch::sql::q10_text>(db), q10);
    }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  CHECK(equal[0]);
  CHECK(equal[1]);
  // each index built once, never once per thread: every build is a kept index of its own
  CHECK(db.counts().built >= 1);
  CHECK(db.counts().built == db.index_count());
}

TEST_CASE("key_index: every row of a table sorted on its key is indexed by runs, without arrays") {
  namespace sc = loom::sql_compiler;
  const rel::table t =
      rel::read_csv_text("k,v\n3,1\n3,2\n4,3\n7,4\n7,5\n7,6\n9,7\n", "t",
                         {{"k", rel::column_type::int64}, {"v", rel::column_type::int64}});
  const std::vector<const rel::column*> key{&t["k"]};
  const auto walk = [](const sc::key_index& h, double k) {
    std::vector<std::size_t> rows;
    sc::key_index::key_type probe{};
    probe[0] = k;
    for (std::int64_t e = h.find(probe); e != sc::key_index::none; e = h.next_of(e))
      rows.push_back(h.row_of(e));
    return rows;
  };
  const sc::key_index runs = sc::key_index::build(key, {0, 1, 2, 3, 4, 5, 6}, true, 7);
  CHECK(runs.runs);
  CHECK(runs.row.empty());
  CHECK(runs.next.empty());
  CHECK(runs.size() == 7);
  CHECK(walk(runs, 7) == std::vector<std::size_t>{3, 4, 5});
  CHECK(walk(runs, 3) == std::vector<std::size_t>{0, 1});
  CHECK(walk(runs, 9) == std::vector<std::size_t>{6});
  CHECK(walk(runs, 5).empty());
  CHECK(walk(runs, 10).empty());
  // some of the rows: chained as before, and walked alike
  const sc::key_index some = sc::key_index::build(key, {1, 3, 5, 6}, true, 7);
  CHECK(!some.runs);
  CHECK(walk(some, 7) == std::vector<std::size_t>{3, 5});
  CHECK(walk(some, 3) == std::vector<std::size_t>{1});
  // a key that falls somewhere: chained
  const rel::table u = rel::read_csv_text("k\n3\n1\n3\n", "u", {{"k", rel::column_type::int64}});
  const sc::key_index unsorted = sc::key_index::build({&u["k"]}, {0, 1, 2}, true, 3);
  CHECK(!unsorted.runs);
  CHECK(unsorted.row.empty());  // every row: entry e is row e
  CHECK(unsorted.size() == 3);
  CHECK(some.row.size() == 4);
  // rises past its last value, then falls: not runs (nothing written outside the array)
  const rel::table w =
      rel::read_csv_text("k\n1\n5\n9\n2\n3\n", "w", {{"k", rel::column_type::int64}});
  const sc::key_index rise_fall = sc::key_index::build({&w["k"]}, {0, 1, 2, 3, 4}, true, 5);
  CHECK(!rise_fall.runs);
  CHECK(walk(rise_fall, 9) == std::vector<std::size_t>{2});
  CHECK(walk(rise_fall, 3) == std::vector<std::size_t>{4});
  CHECK(walk(rise_fall, 4).empty());
  CHECK(walk(unsorted, 3) == std::vector<std::size_t>{0, 2});
}

TEST_CASE("column_profile: sampled, without a pass over the column") {
  namespace sc = loom::sql_compiler;
  using rel::column_type;
  auto column_of = [](std::size_t n, auto value) {
    std::string text = "k\n";
    for (std::size_t r = 0; r < n; ++r) text += std::to_string(value(r)) + "\n";
    return rel::read_csv_text(text, "t", {{"k", column_type::int64}});
  };
  // a small table is counted exactly
  const rel::table small = column_of(1000, [](std::size_t r) { return (r * 7919) % 300; });
  CHECK(sc::column_profile::of(small["k"]).distinct == 300);
  CHECK(!sc::column_profile::of(small["k"]).sorted);
  // ascending: changes between sampled neighbours (three rows a key)
  const rel::table sorted = column_of(60000, [](std::size_t r) { return r / 3; });
  const sc::column_profile up = sc::column_profile::of(sorted["k"]);
  CHECK(up.sorted);
  CHECK(up.rising);
  CHECK(up.distinct == doctest::Approx(20000).epsilon(0.1));
  // scattered: 2000 and 30000 equally frequent values, and all distinct
  for (const std::size_t values : {std::size_t{2000}, std::size_t{30000}}) {
    CAPTURE(values);
    const rel::table t = column_of(90000, [&](std::size_t r) { return (r * 7919) % values; });
    const sc::column_profile p = sc::column_profile::of(t["k"]);
    CHECK(!p.sorted);
    CHECK(p.distinct == doctest::Approx(static_cast<double>(values)).epsilon(0.15));
  }
  const rel::table keys = column_of(90000, [](std::size_t r) { return (r * 7919) % 90001; });
  const sc::column_profile scattered = sc::column_profile::of(keys["k"]);
  CHECK(scattered.distinct == doctest::Approx(90000).epsilon(0.01));
  // the sampled ends: exact for a small table and an ascending column, else within the range
  CHECK(sc::column_profile::of(small["k"]).low == 0);
  CHECK(sc::column_profile::of(small["k"]).high == 299);
  CHECK(up.low == 0);
  CHECK(up.high == 19999);
  const auto [lo, hi] = std::minmax_element(keys["k"].ints().begin(), keys["k"].ints().end());
  CHECK(scattered.low >= *lo);
  CHECK(scattered.high <= *hi);
  CHECK(scattered.high - scattered.low > (*hi - *lo) * 9 / 10);
}

TEST_CASE("sql_database: a key whose sampled values span densely may not (a planner hint)") {
  // 9000 keys from 0 to 2999 in no order, but one row the sample does not read holds 10^12:
  // the planner takes an array index from the sampled ends; the index, finding the real span,
  // hashes. Against a plain loop.
  using rel::column_type;
  const std::size_t n = 9000, far = unread_row(n, n / 2);
  const std::int64_t far_key = 1000000000000;
  std::string facts = "k,v\n", dims = "k,name\n";
  std::vector<std::int64_t> key(n);
  for (std::size_t r = 0; r < n; ++r) {
    key[r] = r == far ? far_key : static_cast<std::int64_t>((r * 7919) % 3000);
    facts += std::to_string(key[r]) + "," + std::to_string(r % 7) + "\n";
  }
  for (std::size_t d = 0; d < 30; ++d)
    dims += std::to_string(d * 100) + ",d" + std::to_string(d) + "\n";
  dims += std::to_string(far_key) + ",far\n";
  loom::sql_database db;
  db.add("facts", rel::read_csv_text(facts, "facts",
                                     {{"k", column_type::int64}, {"v", column_type::int64}}));
  db.add("dims", rel::read_csv_text(dims, "dims",
                                    {{"k", column_type::int64}, {"name", column_type::string}}));
  const sc::column_profile p = sc::column_profile::of(db["facts"]["k"]);
  CHECK(!p.rising);
  CHECK(p.high < 3000);
  constexpr loom::fixed_string text = R"(
    SELECT name, SUM(v) AS total FROM dims, facts WHERE dims.k = facts.k GROUP BY name ORDER BY name)";
  CHECK(loom::sql_explain<text>(db).find(
            "join facts (9000 rows) on facts.k = dims.k (array-indexed)") != std::string::npos);
  std::map<std::string, double> expected;
  for (std::size_t f = 0; f < n; ++f)
    for (std::size_t d = 0; d <= 30; ++d) {
      const std::int64_t dk = d == 30 ? far_key : static_cast<std::int64_t>(d * 100);
      if (key[f] == dk) expected[d == 30 ? "far" : "d" + std::to_string(d)] += f % 7;
    }
  REQUIRE(expected.count("far") == 1);
  for (int run = 0; run < 3; ++run) {  // a first run (reduced index), then the kept one
    CAPTURE(run);
    const rel::table r = loom::sql<text>(db);
    REQUIRE(r.rows() == expected.size());
    std::size_t row = 0;
    for (const auto& [name, total] : expected) {
      CHECK(r["name"].text(row) == name);
      CHECK(r.reals("total")[row] == total);
      ++row;
    }
    CHECK(same(r, uncached<text>(db)));
  }
}

TEST_CASE("sql_database: a column whose sampled neighbours rise may still fall (a planner hint)") {
  // 9000 ascending keys but one row, between sampled pairs, holding a key past the last: the
  // planner takes the column's range from its ends, the index finds the real one.
  using rel::column_type;
  const std::size_t n = 9000, odd = unsampled_row(n, n / 2);
  std::string facts = "k,v\n", dims = "k,name\n";
  for (std::size_t r = 0; r < n; ++r)
    facts += std::to_string(r == odd ? 20000 : r) + "," + std::to_string(r % 7) + "\n";
  for (std::size_t d = 0; d < 30; ++d)
    dims += std::to_string(d * 700) + ",d" + std::to_string(d) + "\n";
  dims += "20000,far\n";
  loom::sql_database db;
  db.add("facts", rel::read_csv_text(facts, "facts",
                                     {{"k", column_type::int64}, {"v", column_type::int64}}));
  db.add("dims", rel::read_csv_text(dims, "dims",
                                    {{"k", column_type::int64}, {"name", column_type::string}}));
  const rel::column& k = db["facts"]["k"];
  CHECK(loom::sql_compiler::column_profile::of(k).rising);
  constexpr loom::fixed_string text = R"(
    SELECT name, SUM(v) AS total FROM dims, facts WHERE dims.k = facts.k GROUP BY name ORDER BY name)";
  // facts is the indexed table, by an array over the range the planner took from its ends
  CHECK(loom::sql_explain<text>(db).find(
            "join facts (9000 rows) on facts.k = dims.k (array-indexed)") != std::string::npos);
  const rel::table r = loom::sql<text>(db);
  CHECK(same(r, uncached<text>(db)));
  // a plain loop
  std::map<std::string, double> expected;
  for (std::size_t f = 0; f < n; ++f)
    for (std::size_t d = 0; d <= 30; ++d) {
      const std::int64_t dk = d == 30 ? 20000 : static_cast<std::int64_t>(d * 700);
      if (k.ints()[f] == dk)
        expected[d == 30 ? "far" : "d" + std::to_string(d)] += static_cast<double>(f % 7);
    }
  REQUIRE(r.rows() == expected.size());
  std::size_t row = 0;
  for (const auto& [name, total] : expected) {
    CHECK(r["name"].text(row) == name);
    CHECK(r.reals("total")[row] == total);
    ++row;
  }
  CHECK(expected.count("far") == 1);
}

TEST_CASE("key_index: a merge index finds keys from a cursor, probes in any order") {
  namespace sc = loom::sql_compiler;
  using rel::column_type;
  // ascending keys with gaps and repeats: 0 0 0 2 5 5 9 ... up to about 3000
  std::string text = "k\n";
  std::vector<std::int64_t> keys;
  std::uint64_t state = 12345;
  auto next_random = [&] {
    state = state * 6364136223846793005u + 1442695040888963407u;
    return state >> 33;
  };
  for (std::int64_t k = 0; keys.size() < 2000; k += static_cast<std::int64_t>(next_random() % 4))
    for (std::uint64_t copies = next_random() % 3; copies-- > 0;) {
      keys.push_back(k);
      text += std::to_string(k) + "\n";
    }
  const rel::table t = rel::read_csv_text(text, "t", {{"k", column_type::int64}});
  const sc::key_index h = sc::key_index::build_merge(t["k"], t.rows());
  REQUIRE(h.merge);
  CHECK(h.first.empty());
  CHECK(h.row.empty());
  CHECK(h.next.empty());
  auto expected = [&](std::int64_t k) {
    const auto at = std::lower_bound(keys.begin(), keys.end(), k);
    return at != keys.end() && *at == k ? static_cast<std::int64_t>(at - keys.begin())
                                        : sc::key_index::none;
  };
  // ascending probes (a scan in order), random probes, descending probes: each from one cursor
  for (int order = 0; order < 3; ++order) {
    CAPTURE(order);
    std::vector<std::int64_t> probes;
    for (int p = 0; p < 3000; ++p)
      probes.push_back(static_cast<std::int64_t>(next_random() % 4200) - 100);
    if (order == 0) std::sort(probes.begin(), probes.end());
    if (order == 2) std::sort(probes.rbegin(), probes.rend());
    std::size_t cursor = 0, wrong = 0;
    for (const std::int64_t k : probes) {
      const std::int64_t e = h.seek(k, cursor);
      wrong += e == expected(k) ? 0 : 1;
      // the cursor rests on the first entry not below k
      wrong += cursor == static_cast<std::size_t>(std::lower_bound(keys.begin(), keys.end(), k) -
                                                  keys.begin())
                   ? 0
                   : 1;
    }
    CHECK(wrong == 0);
  }
  // a key's entries follow each other
  for (std::int64_t k = 0; k < 50; ++k) {
    sc::key_index::key_type probe{};
    probe[0] = static_cast<double>(k);
    std::size_t count = 0;
    for (std::int64_t e = h.find(probe); e != sc::key_index::none; e = h.next_of(e)) {
      CHECK(keys[static_cast<std::size_t>(e)] == k);
      ++count;
    }
    CHECK(count == static_cast<std::size_t>(std::count(keys.begin(), keys.end(), k)));
  }
  // checked in parts on threads: the same index; a fall right at a part's start is seen
  {
    const loom::parallel_scope threads({.threads = 3});
    CHECK(sc::key_index::build_merge(t["k"], t.rows(), 3).merge);
    std::string falling = "k\n";
    for (std::size_t r = 0; r < 12288; ++r) falling += std::to_string(r == 4096 ? 0 : r) + "\n";
    const rel::table f = rel::read_csv_text(falling, "f", {{"k", column_type::int64}});
    CHECK(!sc::key_index::build_merge(f["k"], f.rows(), 3).merge);
  }
  // a column that falls somewhere is indexed as build_all does
  const rel::table u = rel::read_csv_text("k\n1\n4\n2\n", "u", {{"k", column_type::int64}});
  const sc::key_index fallen = sc::key_index::build_merge(u["k"], 3);
  CHECK(!fallen.merge);
  sc::key_index::key_type two{};
  two[0] = 2;
  CHECK(fallen.row_of(fallen.find(two)) == 2);
}

TEST_CASE("sql_database: a join whose probes and keys both ascend merges, on any thread count") {
  // orders(o_key ascending) probed by items(i_order ascending but for one unsampled row): the
  // index of orders is a merge index; each part of the scan keeps its own cursor; the one row
  // out of order still finds its key. Against a plain loop, on 1 to 3 threads.
  using rel::column_type;
  const std::size_t n = 60000, odd = unsampled_row(n, n / 3);
  std::string items = "i_order,qty\n", orders = "o_key,o_cust\n";
  std::vector<std::int64_t> item_order(n), item_qty(n);
  for (std::size_t r = 0; r < n; ++r) {
    item_order[r] = r == odd ? 7 : static_cast<std::int64_t>(r / 3 * 2);  // even keys
    item_qty[r] = static_cast<std::int64_t>(r % 11);
    items += std::to_string(item_order[r]) + "," + std::to_string(item_qty[r]) + "\n";
  }
  const std::int64_t orders_count = 45000;  // keys 0, 1, ..., some never probed
  for (std::int64_t o = 0; o < orders_count; ++o)
    orders += std::to_string(o) + "," + std::to_string(o % 13) + "\n";
  loom::sql_database db;
  db.add("items",
         rel::read_csv_text(items, "items",
                            {{"i_order", column_type::int64}, {"qty", column_type::int64}}));
  db.add("orders",
         rel::read_csv_text(orders, "orders",
                            {{"o_key", column_type::int64}, {"o_cust", column_type::int64}}));
  constexpr loom::fixed_string text = R"(
    SELECT o_cust, SUM(qty) AS total, COUNT(*) AS n FROM items, orders
    WHERE i_order = o_key AND qty > 2 GROUP BY o_cust ORDER BY o_cust)";
  const std::string plan = loom::sql_explain<text>(db);
  CHECK(plan.find("scan items") == 0);
  CHECK(plan.find("join orders (45000 rows) on o_key = i_order (merged: both ascend)") !=
        std::string::npos);
  std::map<std::int64_t, std::pair<double, std::int64_t>> expected;
  for (std::size_t r = 0; r < n; ++r)
    if (item_qty[r] > 2 && item_order[r] < orders_count) {
      auto& [total, count] = expected[item_order[r] % 13];
      total += static_cast<double>(item_qty[r]);
      ++count;
    }
  for (const int threads : {1, 2, 3}) {
    CAPTURE(threads);
    const loom::parallel_scope split({.threads = threads, .min_work = 1000});
    const rel::table r = loom::sql<text>(db);
    REQUIRE(r.rows() == expected.size());
    std::size_t row = 0;
    for (const auto& [cust, sums] : expected) {
      CHECK(r.ints("o_cust")[row] == cust);
      CHECK(r.reals("total")[row] == sums.first);
      CHECK(r.ints("n")[row] == sums.second);
      ++row;
    }
    CHECK(same(r, uncached<text>(db)));
  }
}

TEST_CASE("sql_database: a first run indexes only the rows its scan probes; the second keeps one") {
  // 30 red dims probe facts (20000 rows, keys 100 to 5099) by their ids 3, 13, ..., 293: the
  // first run indexes the facts rows with those keys that pass facts' own term, the next
  // builds the kept index of every row, the third reuses it; all equal a plain loop.
  using rel::column_type;
  std::string facts = "k,v,flag\n", dims = "id,colour\n";
  for (int r = 0; r < 20000; ++r)
    facts += std::to_string(r % 5000 + 100) + "," + std::to_string(r % 7) + "," +
             std::to_string(r % 3) + "\n";
  for (int d = 0; d < 300; ++d) dims += std::to_string(d) + (d % 10 == 3 ? ",red\n" : ",blue\n");
  const rel::table facts_table = rel::read_csv_text(
      facts, "facts",
      {{"k", column_type::int64}, {"v", column_type::int64}, {"flag", column_type::int64}});
  const rel::table dims_table = rel::read_csv_text(
      dims, "dims", {{"id", column_type::int64}, {"colour", column_type::string}});
  constexpr loom::fixed_string text = R"(
    SELECT id, SUM(v) AS total, COUNT(*) AS n FROM dims, facts
    WHERE k = id AND colour = 'red' AND flag <> 1 GROUP BY id ORDER BY id)";
  std::map<std::int64_t, std::pair<double, std::int64_t>> expected;
  for (int d = 3; d < 300; d += 10)
    for (int r = 0; r < 20000; ++r)
      if (r % 5000 + 100 == d && r % 3 != 1) {
        expected[d].first += r % 7;
        ++expected[d].second;
      }
  REQUIRE(expected.size() == 20);        // ids 103 to 293
  for (const int threads : {1, 2, 3}) {  // the reduced index's rows found in parts
    CAPTURE(threads);
    const loom::parallel_scope split({.threads = threads, .min_work = 1000});
    loom::sql_database db;
    db.add("facts", facts_table);
    db.add("dims", dims_table);
    const std::string first_plan = loom::sql_explain<text>(db);
    CHECK(first_plan.find("scan dims") == 0);
    CHECK(first_plan.find("first run: indexes only the rows whose key the scan probes") !=
          std::string::npos);
    check_three_runs<text>(db, "id", expected, &sc::database::index_counts::reduced);
    // dropping the indexes forgets the asking too
    db.drop_indexes();
    CHECK(loom::sql_explain<text>(db).find("first run") != std::string::npos);
  }
}

TEST_CASE("sql_database: a first run searches an ascending key column its few probes ask") {
  // 300 picks probe orders (60000 rows, keys ascending with gaps) in no order, for keys that
  // exist, keys in gaps and keys past either end: the first run searches o_key (no index), the
  // second builds the kept index, the third reuses it. Then the same where one row the
  // profile's neighbours do not sample breaks the order: the check finds it and indexes by an
  // array. Against a plain loop, on 1 to 3 threads.
  using rel::column_type;
  const std::size_t n = 60000;
  for (const bool falls : {false, true}) {
    CAPTURE(falls);
    const std::size_t odd = unsampled_row(n, n / 2);
    std::vector<std::int64_t> key(n);
    std::string orders = "o_key,o_cust\n", picks = "p_key,w\n";
    for (std::size_t r = 0; r < n; ++r) {
      key[r] = static_cast<std::int64_t>(r / 3 * 8 + r % 3 + 10);  // 3 keys of every 8
      if (falls && r == odd) key[r] = 12;
      orders += std::to_string(key[r]) + "," + std::to_string(r % 17) + "\n";
    }
    std::vector<std::int64_t> probe(300);
    for (std::size_t p = 0; p < probe.size(); ++p) {
      probe[p] = static_cast<std::int64_t>((p * 7919 + 13) % 160100);  // 0 to past the end
      picks += std::to_string(probe[p]) + "," + std::to_string(p % 5 + 1) + "\n";
    }
    const rel::table orders_table = rel::read_csv_text(
        orders, "orders", {{"o_key", column_type::int64}, {"o_cust", column_type::int64}});
    const rel::table picks_table = rel::read_csv_text(
        picks, "picks", {{"p_key", column_type::int64}, {"w", column_type::int64}});
    constexpr loom::fixed_string text = R"(
      SELECT o_cust, SUM(w) AS total, COUNT(*) AS n FROM picks, orders
      WHERE p_key = o_key GROUP BY o_cust ORDER BY o_cust)";
    std::map<std::int64_t, std::pair<double, std::int64_t>> expected;
    for (std::size_t p = 0; p < probe.size(); ++p)
      for (std::size_t r = 0; r < n; ++r)
        if (key[r] == probe[p]) {
          expected[static_cast<std::int64_t>(r % 17)].first += static_cast<double>(p % 5 + 1);
          ++expected[static_cast<std::int64_t>(r % 17)].second;
        }
    REQUIRE(expected.size() > 10);
    for (const int threads : {1, 2, 3}) {
      CAPTURE(threads);
      const loom::parallel_scope split({.threads = threads, .min_work = 1000});
      loom::sql_database db;
      db.add("orders", orders_table);
      db.add("picks", picks_table);
      const std::string plan = loom::sql_explain<text>(db);
      CHECK(plan.find("scan picks") == 0);
      CHECK(plan.find("first run: searches the ascending key column") != std::string::npos);
      check_three_runs<text>(db, "o_cust", expected, &sc::database::index_counts::searched);
    }
  }
}
