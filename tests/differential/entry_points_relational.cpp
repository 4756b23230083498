// Differential tests of loom::rel: small relational queries (key_by, join, selection, group-by,
// MIN, a triangle) against SQLite's sqlite3 shell, skipped with a message when it is not
// installed; moved from entry_points.cpp (one unit per entry point).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <support/compare.hpp>
#include <unistd.h>  // getpid: a file name of this process for the SQL scripts

namespace {

namespace lt = loom::test;
namespace rel = loom::rel;

// SQLite -----------------------------------------------------------------------------------------

bool have_sqlite3() { return std::system("sqlite3 -version > /dev/null 2>&1") == 0; }

// Runs `script` in `sqlite3 :memory:`; its output (list mode: `a|b` per row). A failure of the
// shell fails the case and returns nothing.
std::optional<std::string> run_sqlite(const std::string& script) {
  namespace fs = std::filesystem;
  // one file name per process: ctest runs each differential source file in its own process
  const std::string stem = lt::concat("loom_entry_points_", std::to_string(::getpid()));
  const fs::path in = fs::temp_directory_path() / lt::concat(stem, ".sql");
  const fs::path out = fs::temp_directory_path() / lt::concat(stem, ".out");
  std::ofstream(in) << script;
  const std::string cmd =
      lt::concat("sqlite3 -batch :memory: < '", in.string(), "' > '", out.string(), "' 2>&1");
  const int rc = std::system(cmd.c_str());
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  fs::remove(in);
  fs::remove(out);
  if (rc != 0) {
    FAIL_CHECK("sqlite3 failed (exit " << rc << "): " << text.str());
    return std::nullopt;
  }
  return text.str();
}

// A table as CSV text (for rel::read_csv_text) and as SQL (CREATE TABLE, INSERT).
struct sql_table {
  std::string csv, sql;
};
sql_table make_table(const std::string& name, const std::vector<std::string>& columns,
                     const std::vector<std::array<std::int64_t, 2>>& ranges, int rows,
                     std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  sql_table t;
  t.sql = lt::concat("CREATE TABLE ", name, "(");
  for (std::size_t c = 0; c < columns.size(); ++c) {
    t.csv.append(c ? "," : "").append(columns[c]);
    t.sql.append(c ? ", " : "").append(columns[c]).append(" INTEGER");
  }
  t.csv += "\n";
  t.sql.append(");\nINSERT INTO ").append(name).append(" VALUES ");
  for (int r = 0; r < rows; ++r) {
    t.sql += r ? ",(" : "(";
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string v = std::to_string(lt::draw(rng, ranges[c][0], ranges[c][1]));
      t.csv.append(c ? "," : "").append(v);
      t.sql.append(c ? "," : "").append(v);
    }
    t.csv += "\n";
    t.sql += ")";
  }
  t.sql += ";\n";
  return t;
}

rel::table read_table(const sql_table& t, const std::string& name,
                      const std::vector<std::string>& columns) {
  std::vector<rel::column_spec> schema;
  for (const auto& c : columns) schema.push_back({c, rel::column_type::int64});
  return rel::read_csv_text(t.csv, lt::concat(name, ".csv"), schema);
}

// Rows `key|value`, as sqlite3 prints them.
template <class Rows> std::string rows_text(const Rows& rows) {
  std::string s;
  for (const auto& r : rows) {
    std::int64_t v = 0;
    if constexpr (requires { r.value.value; })
      v = r.value.value;  // min_plus<int64>
    else
      v = r.value;
    s.append(std::to_string(r.keys[0])).append("|").append(std::to_string(v)).append("\n");
  }
  return s;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Relational queries against SQLite
// ------------------------------------------------------------------------------------------------

TEST_CASE("entry points: relational joins, selections and group-bys against SQLite") {
  if (!have_sqlite3()) {
    MESSAGE("skipped: sqlite3 is not installed (apt-get install sqlite3)");
    return;
  }
  for (const std::uint64_t seed : lt::seeds) {
    CAPTURE(seed);
    // R(a, b, v), S(b, c, w): bags (repeated keys), positive values; E(src, dst): a multigraph
    const sql_table r = make_table("R", {"a", "b", "v"}, {{{0, 24}}, {{0, 19}}, {{1, 9}}}, 300,
                                   lt::mix_seed(seed, 1));
    const sql_table s = make_table("S", {"b", "c", "w"}, {{{0, 19}}, {{0, 9}}, {{1, 9}}}, 200,
                                   lt::mix_seed(seed, 2));
    const sql_table g =
        make_table("E", {"src", "dst"}, {{{0, 19}}, {{0, 19}}}, 120, lt::mix_seed(seed, 3));
    const rel::table R = read_table(r, "R", {"a", "b", "v"});
    const rel::table S = read_table(s, "S", {"b", "c", "w"});
    const rel::table E = read_table(g, "E", {"src", "dst"});
    const std::int64_t nb = rel::extent_of(R["b"], S["b"]);
    constexpr loom::index<"a"> a;
    constexpr loom::index<"b"> b;
    constexpr loom::index<"c"> c;

    {  // SUM over a join with a range selection, grouped
      const auto sql = run_sqlite(r.sql + s.sql +
                                  "SELECT R.a, SUM(R.v * S.w) FROM R JOIN S ON R.b = S.b "
                                  "WHERE S.c >= 2 AND S.c < 6 GROUP BY R.a ORDER BY R.a;\n");
      REQUIRE(sql.has_value());
      REQUIRE(!sql->empty());  // groups exist: the comparison is not vacuous
      const auto Rv =
          rel::key_by<loom::dcsr>(R, {"a", "b"}, rel::sum_of<std::int64_t>("v"), {0, nb});
      const auto Sw = rel::key_by<2>(S, {"b", "c"}, rel::sum_of<std::int64_t>("w"), {nb, 0});
      const auto in_range = rel::range<std::int64_t>(2, 6, Sw.shape()[1]);
      loom::tensor<std::int64_t, loom::sparse_vector> q({Rv.shape()[0]});
      q(a) = loom::sum(b, c, Rv(a, b) * Sw(b, c) * in_range(c));
      CHECK(rows_text(rel::to_rows(q)) == *sql);
    }
    {  // MIN over a join, grouped: the (min, +) semiring
      const auto sql = run_sqlite(r.sql + s.sql +
                                  "SELECT R.a, MIN(R.v + S.w) FROM R JOIN S ON R.b = S.b "
                                  "GROUP BY R.a ORDER BY R.a;\n");
      REQUIRE(sql.has_value());
      REQUIRE(!sql->empty());
      const auto Rmin = rel::key_by<2>(R, {"a", "b"}, rel::min_of<std::int64_t>("v"), {0, nb});
      const auto Smin = rel::key_by<1>(S, {"b"}, rel::min_of<std::int64_t>("w"), {nb});
      loom::tensor<loom::min_plus<std::int64_t>, loom::sparse_vector> q({Rmin.shape()[0]});
      q(a) = loom::sum(b, Rmin(a, b) * Smin(b));
      CHECK(rows_text(rel::to_rows(q)) == *sql);
    }
    {  // COUNT(*) of the triangles of a multigraph (bag semantics: repeated edges count)
      const auto sql = run_sqlite(g.sql +
                                  "SELECT COUNT(*) FROM E e1, E e2, E e3 WHERE e1.dst = e2.src "
                                  "AND e2.dst = e3.src AND e3.dst = e1.src;\n");
      REQUIRE(sql.has_value());
      const std::int64_t n = rel::extent_of(E["src"], E["dst"]);
      const auto Ef = rel::key_by<loom::csr>(E, {"src", "dst"}, rel::count(), {n, n});
      const auto Eb = rel::key_by<loom::dcsr>(E, {"dst", "src"}, rel::count(), {n, n});
      // e3 = (c, a) is Eb(a, c): every factor is read in the order a, b, c
      const std::int64_t triangles = loom::eval(loom::sum(a, b, c, Ef(a, b) * Ef(b, c) * Eb(a, c)));
      CHECK(std::to_string(triangles) + "\n" == *sql);
    }
  }
}
