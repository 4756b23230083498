// TPC-H Q5 and Q9: loom (examples/tpch) against SQLite (in memory, with indexes in loom's key
// orders, prepared statements) and, when $LOOM_DUCKDB_DIR has @duckdb/node-api, DuckDB with one
// thread and with its default thread count. Load times are reported apart from query times.
//   tpch [sf ...]        default: 0.1 1; data in $LOOM_TPCH_DATA/sf<sf> (default /tmp), reused
// SPDX-License-Identifier: BSL-1.0
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "duckdb_runner.hpp"
#include "sqlite_db.hpp"
#include "timing.hpp"
#include "tpch/dbgen.hpp"
#include "tpch/queries.hpp"

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;

// SQLite: the tables from our parsed columns (so the same values), dates as ISO text.
void load_sqlite(bench::sqlite_db& db, const tpch::database& data) {
  db.exec("PRAGMA cache_size=-4000000;");
  std::string schema;
  for (const rel::table* t : {&data.region, &data.nation, &data.supplier, &data.customer,
                              &data.orders, &data.lineitem, &data.part, &data.partsupp}) {
    const std::string name = fs::path(t->name()).stem().string();
    std::string sql = "CREATE TABLE " + name + "(";
    bool first = true;
    for (const auto& c : t->columns()) {
      if (c.name() == "o_year") continue;  // derived by loom, not a table column
      sql += (first ? "" : ", ") + c.name() + " " +
             (c.type() == rel::column_type::decimal ? "REAL"
              : c.type() == rel::column_type::int64 ? "INTEGER"
                                                    : "TEXT");
      first = false;
    }
    db.exec(sql + ")");
    std::string ins = "INSERT INTO " + name + " VALUES(";
    first = true;
    std::vector<const rel::column*> cols;
    for (const auto& c : t->columns()) {
      if (c.name() == "o_year") continue;
      ins += first ? "?" : ",?";
      first = false;
      cols.push_back(&c);
    }
    db.exec("BEGIN");
    sqlite3_stmt* st = db.prepare(ins + ")");
    std::vector<std::string> texts(cols.size());
    for (std::size_t r = 0; r < t->rows(); ++r) {
      for (std::size_t k = 0; k < cols.size(); ++k) {
        const rel::column& c = *cols[k];
        const int at = static_cast<int>(k + 1);
        if (c.type() == rel::column_type::int64)
          sqlite3_bind_int64(st, at, c.ints()[r]);
        else if (c.type() == rel::column_type::decimal)
          sqlite3_bind_double(st, at, c.reals()[r]);
        else {
          texts[k] = c.text(r);
          sqlite3_bind_text(st, at, texts[k].c_str(), -1, SQLITE_STATIC);
        }
      }
      if (sqlite3_step(st) != SQLITE_DONE) throw std::runtime_error("sqlite insert failed");
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    db.exec("COMMIT");
  }
  // Indexes with loom's key orders (the paper's fairness rule (e)).
  db.exec(
      "CREATE INDEX o_date ON orders(o_orderdate, o_orderkey, o_custkey);"
      "CREATE UNIQUE INDEX o_key ON orders(o_orderkey, o_orderdate);"
      "CREATE INDEX l_os ON lineitem(l_orderkey, l_suppkey);"
      "CREATE INDEX l_pso ON lineitem(l_partkey, l_suppkey, l_orderkey);"
      "CREATE UNIQUE INDEX c_key ON customer(c_custkey, c_nationkey);"
      "CREATE UNIQUE INDEX s_key ON supplier(s_suppkey, s_nationkey);"
      "CREATE UNIQUE INDEX n_key ON nation(n_nationkey, n_regionkey, n_name);"
      "CREATE UNIQUE INDEX r_key ON region(r_regionkey, r_name);"
      "CREATE UNIQUE INDEX p_key ON part(p_partkey, p_name);"
      "CREATE UNIQUE INDEX ps_key ON partsupp(ps_partkey, ps_suppkey, ps_supplycost);"
      "ANALYZE;");
}

std::string read_file(const fs::path& p) {
  std::FILE* f = std::fopen(p.string().c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read " + p.string());
  std::string s;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// The last column of each result row, in order (both queries end in their aggregate).
std::vector<double> last_column(const rel::table& t) {
  const auto v = t.columns().back().reals();
  return {v.begin(), v.end()};
}
bool close(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::abs(a[k] - b[k]) > 1e-6 * std::abs(b[k])) return false;
  return true;
}
std::string cell(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, ms >= 100 ? "%.0f" : "%.2f", ms);
  return b;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<double> sfs{0.1, 1};
  if (argc > 1) {
    sfs.clear();
    for (int k = 1; k < argc; ++k) sfs.push_back(std::atof(argv[k]));
  }
  const fs::path root = std::getenv("LOOM_TPCH_DATA") ? fs::path(std::getenv("LOOM_TPCH_DATA"))
                                                      : fs::temp_directory_path();
  const fs::path sql =
      fs::path(LOOM_BENCH_RELATIONAL_DIR) / ".." / ".." / "examples" / "tpch" / "sql";
  const bool duck = bench::duckdb_dir().has_value();
  std::printf(
      "| SF | query | loom (ms) | SQLite (ms) | DuckDB 1 thread (ms) | DuckDB default (ms) | "
      "SQLite / loom | DuckDB-1 / loom |\n|---:|---|---:|---:|---:|---:|---:|---:|\n");
  std::vector<std::string> load_lines;
  for (const double sf : sfs) {
    char tag[32];
    std::snprintf(tag, sizeof tag, "sf%g", sf);
    const fs::path dir = root / ("loom_tpch_" + std::string(tag));
    if (!fs::exists(dir / "lineitem.csv")) tpch::generate(dir, sf);

    double t0 = bench::now_ms();
    const tpch::database db = tpch::load(dir);
    const double read_ms = bench::now_ms() - t0;
    t0 = bench::now_ms();
    const tpch::q5 q5(db);
    const double key5 = bench::now_ms() - t0;
    t0 = bench::now_ms();
    const tpch::q9 q9(db);
    const double key9 = bench::now_ms() - t0;
    rel::table r5, r9;
    const double loom5 = bench::median_ms([&] { r5 = q5.run(); }, 1000, 5);
    const double loom9 = bench::median_ms([&] { r9 = q9.run(); }, 1000, 5);

    bench::sqlite_db sq;
    t0 = bench::now_ms();
    load_sqlite(sq, db);
    const double sqlite_load = bench::now_ms() - t0;
    auto sqlite_run = [&](const char* q, std::vector<double>& last) {
      std::string text = read_file(sql / q);
      sqlite3_stmt* st = sq.prepare(text);
      const double ms = bench::median_ms(
          [&] {
            last.clear();
            sq.query(st, [&](sqlite3_stmt* s) {
              last.push_back(sqlite3_column_double(s, sqlite3_column_count(s) - 1));
            });
          },
          0, sf >= 1 ? 1 : 3, 3);
      sqlite3_finalize(st);
      return ms;
    };
    std::vector<double> s5, s9;
    const double sqlite5 = sqlite_run("q5.sql", s5), sqlite9 = sqlite_run("q9.sql", s9);
    if (!close(last_column(r5), s5) || !close(last_column(r9), s9)) {
      std::fprintf(stderr, "loom and SQLite disagree at SF %g\n", sf);
      return 1;
    }

    std::map<std::string, double> duck_ms;
    std::map<std::string, double> duck_load;  // per thread setting: the fastest of its loads
    if (duck) {
      std::vector<std::string> tables;
      for (const char* t :
           {"region", "nation", "supplier", "customer", "orders", "lineitem", "part", "partsupp"})
        tables.push_back(std::string(t) + "=" + (dir / (std::string(t) + ".csv")).string());
      for (const char* threads : {"1", "default"})
        for (const char* q : {"q5", "q9"}) {
          const auto r =
              bench::run_duckdb(threads, 5, (sql / (std::string(q) + ".sql")).string(), tables);
          if (!r) continue;
          duck_ms[std::string(threads) + q] = r->query_ms;
          const auto [at, fresh] = duck_load.try_emplace(threads, r->load_ms);
          if (!fresh) at->second = std::min(at->second, r->load_ms);
        }
    }
    auto duck_cell = [&](const std::string& k) {
      return duck_ms.count(k) ? cell(duck_ms[k]) : std::string(duck ? "failed" : "n/a");
    };
    auto ratio = [](double a, double b) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1fx", a / b);
      return std::string(buf);
    };
    for (const auto& [q, lm, sm] :
         {std::tuple{"q5", loom5, sqlite5}, std::tuple{"q9", loom9, sqlite9}}) {
      const std::string k1 = std::string("1") + q;
      std::printf("| %g | %s | %s | %s | %s | %s | %s | %s |\n", sf, q, cell(lm).c_str(),
                  cell(sm).c_str(), duck_cell(k1).c_str(),
                  duck_cell(std::string("default") + q).c_str(), ratio(sm, lm).c_str(),
                  duck_ms.count(k1) ? ratio(duck_ms[k1], lm).c_str() : "");
    }
    std::fflush(stdout);
    char line[384];
    std::snprintf(line, sizeof line,
                  "SF %g: loom reads CSV in %.0f ms, keys Q5's tensors in %.0f ms and Q9's in "
                  "%.0f ms (%.0f ms in all, 1 thread); SQLite loads + indexes in %.0f ms; DuckDB "
                  "reads CSV in %.0f ms with 1 thread, %.0f ms with its default threads",
                  sf, read_ms, key5, key9, read_ms + key5 + key9, sqlite_load, duck_load["1"],
                  duck_load["default"]);
    load_lines.push_back(line);
  }
  std::printf("\nLoad (not included above):\n");
  for (const auto& l : load_lines) std::printf("- %s\n", l.c_str());
}
