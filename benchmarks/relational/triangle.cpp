// Triangle query Σ_{a,b,c} R(a,b)·S(b,c)·T(a,c) on R = S = T = {(1,x),(x,1)}, x = 1..n:
// loom's fused generic join (linear in n) against SQLite with both column-order indexes
// (pairwise joins: quadratic) and, when $LOOM_DUCKDB_DIR has @duckdb/node-api, DuckDB with one
// thread. Prints a table; a system is skipped once its predicted time exceeds the budget
// (LOOM_BENCH_BUDGET_S, default 120 s).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "duckdb_runner.hpp"
#include "sqlite_db.hpp"
#include "timing.hpp"

namespace {
namespace rel = loom::relational;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
constexpr loom::index<"c"> c;

rel::table instance(std::int64_t n) {
  std::vector<std::int64_t> src, dst;
  for (std::int64_t x = 1; x <= n; ++x) {
    src.push_back(1), dst.push_back(x);
    if (x != 1) src.push_back(x), dst.push_back(1);
  }
  rel::table t("R");
  t.add(rel::column("a", std::move(src)));
  t.add(rel::column("b", std::move(dst)));
  return t;
}
}  // namespace

int main(int argc, char** argv) {
  const double budget_s =
      std::getenv("LOOM_BENCH_BUDGET_S") ? std::atof(std::getenv("LOOM_BENCH_BUDGET_S")) : 120.0;
  const bool duck = bench::duckdb_dir().has_value();
  const auto tmp = std::filesystem::temp_directory_path();
  const std::string sql_path = (tmp / "loom_triangle.sql").string();
  std::ofstream(sql_path)
      << "SELECT count(*) FROM R r, R s, R t WHERE r.b = s.a AND s.b = t.b AND r.a = t.a\n";
  double last_duck_ms = 0;
  std::int64_t last_duck_n = 0;
  std::vector<std::int64_t> sizes{1000, 3000, 10000, 30000, 100000, 300000, 1000000};
  if (argc > 1) sizes = {std::atoll(argv[1])};
  std::printf(
      "| n | result | loom build (ms) | loom query (ms) | loom ns per n | SQLite (ms) | SQLite / "
      "loom | DuckDB 1 thread (ms) | DuckDB / loom |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  double last_sqlite_ms = 0;
  std::int64_t last_sqlite_n = 0;
  for (const std::int64_t n : sizes) {
    const rel::table t = instance(n);
    loom::tensor<std::int64_t, loom::csf<2>> R;
    const double build = bench::median_ms(
        [&] {
          R = rel::key_by<2>(t, {"a", "b"}, rel::exists(), {n + 1, n + 1});
        },
        0, 1, 1);
    std::int64_t result = 0;
    const double query = bench::median_ms(
        [&] { result = loom::eval(loom::sum(a, b, c, R(a, b) * R(b, c) * R(a, c))); });
    if (result != 3 * n - 2) {
      std::fprintf(stderr, "wrong result %lld for n = %lld\n", (long long)result, (long long)n);
      return 1;
    }
    std::string sqlite_cell = "skipped", ratio_cell = "";
    const double predicted_ms =
        last_sqlite_n ? last_sqlite_ms * std::pow(double(n) / double(last_sqlite_n), 2.0) : 0;
    if (predicted_ms <= budget_s * 1000) {
      bench::sqlite_db db;
      db.exec("CREATE TABLE R(a INTEGER, b INTEGER)");
      std::vector<std::int64_t> flat;
      for (std::size_t r = 0; r < t.rows(); ++r) {
        flat.push_back(t.ints("a")[r]);
        flat.push_back(t.ints("b")[r]);
      }
      db.insert_ints("R", 2, flat);
      db.exec("CREATE INDEX r_ab ON R(a, b); CREATE INDEX r_ba ON R(b, a); ANALYZE;");
      sqlite3_stmt* st = db.prepare(
          "SELECT count(*) FROM R r, R s, R t WHERE r.b = s.a AND s.b = t.b AND r.a = t.a");
      std::int64_t got = -1;
      const double ms = bench::median_ms(
          [&] { db.query(st, [&](sqlite3_stmt* s) { got = sqlite3_column_int64(s, 0); }); }, 0, 1,
          1);
      sqlite3_finalize(st);
      if (got != result) {
        std::fprintf(stderr, "SQLite disagrees: %lld\n", (long long)got);
        return 1;
      }
      last_sqlite_ms = ms;
      last_sqlite_n = n;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f", ms);
      sqlite_cell = buf;
      std::snprintf(buf, sizeof buf, "%.0fx", ms / query);
      ratio_cell = buf;
    } else {
      char buf[96];
      std::snprintf(buf, sizeof buf, "skipped (predicted %.0f s)", predicted_ms / 1000);
      sqlite_cell = buf;
    }
    std::string duck_cell = duck ? "skipped" : "not installed", duck_ratio = "";
    const double duck_predicted =
        last_duck_n ? last_duck_ms * std::pow(double(n) / double(last_duck_n), 2.0) : 0;
    if (duck && duck_predicted <= budget_s * 1000) {
      const std::string csv = (tmp / "loom_triangle.csv").string();
      {
        std::ofstream f(csv);
        t.write_csv(f);
      }
      const auto r = bench::run_duckdb("1", 1, sql_path, {"R=" + csv});
      if (r && r->rows.size() == 1 && std::atoll(r->rows[0].c_str()) == result) {
        last_duck_ms = r->query_ms;
        last_duck_n = n;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f", r->query_ms);
        duck_cell = buf;
        std::snprintf(buf, sizeof buf, "%.0fx", r->query_ms / query);
        duck_ratio = buf;
      } else {
        duck_cell = "failed";
      }
    } else if (duck) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "skipped (predicted %.0f s)", duck_predicted / 1000);
      duck_cell = buf;
    }
    std::printf("| %lld | %lld | %.1f | %.3f | %.1f | %s | %s | %s | %s |\n", (long long)n,
                (long long)result, build, query, query * 1e6 / double(n), sqlite_cell.c_str(),
                ratio_cell.c_str(), duck_cell.c_str(), duck_ratio.c_str());
    std::fflush(stdout);
  }
}
