// The join's semi-join: a table joined between the scanned table and a filtered table it alone
// leads to (fact -> dim -> grp) keeps in its index only the rows with a partner there, so that a
// probe fails one lookup earlier. Results against a brute-force loop (a key with two partners,
// one passing; the middle table's own filter tested while probing), the count of narrowed
// indexes, the explain line, and no narrowing where the next table is reached from elsewhere.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational.hpp>
#include <loom/sql.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;

struct star {
  std::string fact = "f_id,f_dim,f_grp,f_val\n", dim = "d_key,d_group\n", grp = "g_key,g_name\n";
  std::vector<std::array<long, 4>> facts;
  std::vector<std::array<long, 2>> dims;
  std::vector<std::pair<long, std::string>> groups;
  star() {
    for (long f = 0; f < 30000; ++f) facts.push_back({f, (f * 37) % 100, f % 11, f % 13});
    for (long d = 0; d < 100; ++d) dims.push_back({d, d % 10});
    for (long g = 0; g < 10; ++g) groups.push_back({g, "g" + std::to_string(g)});
    groups.push_back({5, "g3"});  // key 5 has two partners: g5 fails the filter, g3 passes
    for (const auto& [a, b, c, d] : facts)
      fact += std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "," +
              std::to_string(d) + "\n";
    for (const auto& [a, b] : dims) dim += std::to_string(a) + "," + std::to_string(b) + "\n";
    for (const auto& [a, b] : groups) grp += std::to_string(a) + "," + b + "\n";
  }
  loom::sql_database database() const {
    loom::sql_database db;
    db.add("fact", rel::read_csv_text(fact, "fact",
                                      {{"f_id", column_type::int64},
                                       {"f_dim", column_type::int64},
                                       {"f_grp", column_type::int64},
                                       {"f_val", column_type::int64}}));
    db.add("dim",
           rel::read_csv_text(dim, "dim",
                              {{"d_key", column_type::int64}, {"d_group", column_type::int64}}));
    db.add("grp",
           rel::read_csv_text(grp, "grp",
                              {{"g_key", column_type::int64}, {"g_name", column_type::string}}));
    return db;
  }
};
}  // namespace

TEST_CASE("sql joins: a dimension chain's middle index keeps the rows with a partner") {
  const star s;
  const loom::sql_database db = s.database();
  constexpr loom::fixed_string text = R"(
    SELECT g_name, SUM(f_val) AS total, COUNT(*) AS n FROM fact, dim, grp
    WHERE f_dim = d_key AND d_group = g_key AND g_name IN ('g3', 'g7') AND d_key <> 3
      AND f_val = 3
    GROUP BY g_name ORDER BY g_name)";
  const std::string plan = loom::sql_explain<text>(db);
  CAPTURE(plan);
  REQUIRE(plan.rfind("scan fact", 0) == 0);
  CHECK(plan.find("join dim (100 rows) on d_key = f_dim (array-indexed)\n") != std::string::npos);
  CHECK(plan.find("join dim (100 rows) on d_key = f_dim (array-indexed)\n"
                  "  filter dim: d_key <> 3\n"
                  "  semi-join: indexes only the rows with a partner in grp (when a quarter or "
                  "more have none)\n") != std::string::npos);
  const rel::table r = loom::sql<text>(db);
  CHECK(db.counts().narrowed == 1);
  // brute force
  std::map<std::string, std::pair<long, long>> want;
  for (const auto& [f, d, fg, v] : s.facts)
    for (const auto& [dk, dg] : s.dims)
      if (dk == d && dk != 3 && v == 3)
        for (const auto& [gk, gn] : s.groups)
          if (gk == dg && (gn == "g3" || gn == "g7")) {
            want[gn].first += v;
            ++want[gn].second;
          }
  REQUIRE(r.rows() == want.size());
  std::size_t row = 0;
  for (const auto& [name, tn] : want) {
    CHECK(r["g_name"].text(row) == name);
    CHECK(r.reals("total")[row] == static_cast<double>(tn.first));
    CHECK(r.ints("n")[row] == tn.second);
    ++row;
  }
}

TEST_CASE("sql joins: no semi-join where the next table is looked up from another table") {
  const star s;
  const loom::sql_database db = s.database();
  // grp is reached from fact (f_grp), not from dim: dim's rows cannot be narrowed by it
  constexpr loom::fixed_string text = R"(
    SELECT COUNT(*) AS n FROM fact, dim, grp
    WHERE f_dim = d_key AND f_grp = g_key AND g_name = 'g3' AND f_val = 3)";
  const std::string plan = loom::sql_explain<text>(db);
  CAPTURE(plan);
  CHECK(plan.find("semi-join") == std::string::npos);
  const rel::table r = loom::sql<text>(db);
  CHECK(db.counts().narrowed == 0);
  long want = 0;
  for (const auto& [f, d, fg, v] : s.facts)
    for (const auto& [gk, gn] : s.groups)
      if (gk == fg && gn == "g3" && v == 3) ++want;  // every f_dim has a dim row
  REQUIRE(r.rows() == 1);
  CHECK(r.ints("n")[0] == want);
}
