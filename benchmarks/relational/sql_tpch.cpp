// The TPC-H queries of examples/tpch/sql_queries.hpp as SQL text: loom::sql against DuckDB (1
// and 2 threads, through node, when $LOOM_DUCKDB_DIR has @duckdb/node-api) and SQLite (in
// memory, primary keys declared, ANALYZE) on the same generated CSV files, results checked
// equal. Per query: cold (the query alone in a fresh process that loaded the tables: loom
// reruns this program with --cold-one, DuckDB runs node with that query only; SQLite: the
// query's first run after the load), the first run in list order after the queries before it
// (what end to end adds up), and warm (the best of 5 more runs in the process, fewer once they
// took --budget ms). Loads are timed apart.
//   sql_tpch [--sf 1] [--threads 2] [--reps 5] [--budget 3000] [--no-duckdb] [--no-sqlite]
//            [--cold-runs 1] [--no-cold]
// --cold-runs n: each cold figure the median of n such processes.
// Data in $LOOM_TPCH_DATA/sf<sf> (default: the temporary folder), generated when missing.
// SPDX-License-Identifier: BSL-1.0
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sqlite_db.hpp"
#include "timing.hpp"
#include "tpch/dbgen.hpp"
#include "tpch/sql_queries.hpp"
#include <unistd.h>

namespace {
namespace fs = std::filesystem;
namespace rel = loom::relational;
using cells = std::vector<std::vector<std::string>>;

struct query_case {
  std::string name;
  std::string_view text;  // loom's text, which DuckDB runs too
  rel::table (*run)(const loom::sql_database&);
};
#define LOOM_TPCH_QUERY(n)                                                                 \
  query_case {                                                                             \
    "q" #n, tpch::sql::q##n##_text.view(),                                                 \
        [](const loom::sql_database& db) { return loom::sql<tpch::sql::q##n##_text>(db); } \
  }
// Every query of examples/tpch/sql_queries.hpp, in the specification's order.
const std::vector<query_case> queries = {
    LOOM_TPCH_QUERY(1),  LOOM_TPCH_QUERY(3),  LOOM_TPCH_QUERY(5),  LOOM_TPCH_QUERY(6),
    LOOM_TPCH_QUERY(7),  LOOM_TPCH_QUERY(8),  LOOM_TPCH_QUERY(9),  LOOM_TPCH_QUERY(10),
    LOOM_TPCH_QUERY(12), LOOM_TPCH_QUERY(14), LOOM_TPCH_QUERY(19),
};

const char* const table_names[] = {"lineitem", "orders", "customer", "supplier",
                                   "nation",   "region", "part",     "partsupp"};

cells cells_of(const rel::table& t) {
  cells out(t.rows());
  for (std::size_t r = 0; r < t.rows(); ++r)
    for (const rel::column& c : t.columns()) out[r].push_back(c.text(r));
  return out;
}

/// Whether two results agree: the same rows, text cells equal, numbers to 1e-6 relative.
bool agree(const cells& a, const cells& b, std::string& why) {
  if (a.size() != b.size()) {
    why = std::to_string(a.size()) + " rows against " + std::to_string(b.size());
    return false;
  }
  for (std::size_t r = 0; r < a.size(); ++r) {
    if (a[r].size() != b[r].size()) {
      why = "row " + std::to_string(r) + ": column counts differ";
      return false;
    }
    for (std::size_t c = 0; c < a[r].size(); ++c) {
      const std::string &x = a[r][c], &y = b[r][c];
      if (x == y) continue;
      char *ex = nullptr, *ey = nullptr;
      const double dx = std::strtod(x.c_str(), &ex), dy = std::strtod(y.c_str(), &ey);
      if (!x.empty() && !y.empty() && *ex == 0 && *ey == 0 &&
          std::abs(dx - dy) <= 1e-6 * std::max(1.0, std::abs(dy)))
        continue;
      why =
          "row " + std::to_string(r) + " column " + std::to_string(c) + ": " + x + " against " + y;
      return false;
    }
  }
  return true;
}

struct timing {
  double cold = NAN, first = NAN, warm = NAN;
  int runs = 0;
  bool checked = false, equal = true, stopped = false;  // stopped: past --sqlite-limit
};

/// First run, then the best of up to `reps` more, stopping once they took `budget` ms (none
/// when the first run alone took that long).
template <class F> void time_runs(timing& t, F&& f, int reps, double budget) {
  double t0 = bench::now_ms();
  f();
  t.first = bench::now_ms() - t0;
  double spent = t.first;
  t.warm = NAN;
  for (t.runs = 0; t.runs < reps && spent < budget; ++t.runs) {
    t0 = bench::now_ms();
    f();
    const double ms = bench::now_ms() - t0;
    t.warm = std::isnan(t.warm) ? ms : std::min(t.warm, ms);
    spent += ms;
  }
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ms_cell(double ms) {
  if (std::isnan(ms)) return "–";
  char b[32];
  std::snprintf(b, sizeof b, ms >= 100 ? "%.0f" : ms >= 10 ? "%.1f" : "%.2f", ms);
  return b;
}

// SQLite: the tables from loom's columns (the same values), dates as ISO text, primary keys.
double load_sqlite(bench::sqlite_db& db, const loom::sql_database& tables) {
  const double t0 = bench::now_ms();
  db.exec("PRAGMA cache_size=-4000000;");
  const std::map<std::string, std::string> keys = {{"region", "r_regionkey"},
                                                   {"nation", "n_nationkey"},
                                                   {"supplier", "s_suppkey"},
                                                   {"customer", "c_custkey"},
                                                   {"orders", "o_orderkey"},
                                                   {"part", "p_partkey"},
                                                   {"partsupp", "ps_partkey, ps_suppkey"}};
  for (const char* name : table_names) {
    if (!tables.has(name)) continue;
    const rel::table& t = tables[name];
    std::string create = "CREATE TABLE " + std::string(name) + "(", insert;
    for (const rel::column& c : t.columns()) {
      create +=
          (insert.empty() ? "" : ", ") + c.name() +
          (c.type() == rel::column_type::decimal || c.type() == rel::column_type::fixed ? " REAL"
           : c.type() == rel::column_type::int64                                        ? " INTEGER"
                                                                                        : " TEXT");
      insert += insert.empty() ? "?" : ",?";
    }
    if (keys.count(name)) create += ", PRIMARY KEY (" + keys.at(name) + ")";
    db.exec(create + ")");
    db.exec("BEGIN");
    sqlite3_stmt* st = db.prepare("INSERT INTO " + std::string(name) + " VALUES(" + insert + ")");
    std::vector<std::string> texts(t.columns().size());
    for (std::size_t r = 0; r < t.rows(); ++r) {
      for (std::size_t k = 0; k < t.columns().size(); ++k) {
        const rel::column& c = t.columns()[k];
        const int at = static_cast<int>(k + 1);
        if (c.type() == rel::column_type::int64) {
          sqlite3_bind_int64(st, at, c.ints()[r]);
        } else if (c.type() == rel::column_type::decimal || c.type() == rel::column_type::fixed) {
          sqlite3_bind_double(st, at, c.number(r));
        } else {
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
  db.exec("ANALYZE;");
  return bench::now_ms() - t0;
}

struct duckdb_run {
  bool ok = false;
  double load = NAN;
  std::map<std::string, timing> times;
  std::map<std::string, cells> results;
};

/// DuckDB on every query in list order, or on `only` alone (its first run: a cold one).
duckdb_run run_duckdb(int threads, int reps, double budget, const loom::sql_database& tables,
                      const fs::path& dir, const std::string& only = {}) {
  duckdb_run out;
  const char* home = std::getenv("LOOM_DUCKDB_DIR");
  if (!home || !fs::exists(fs::path(home) / "node_modules/@duckdb/node-api")) return out;
  std::string cmd = "LOOM_DUCKDB_DIR='" + std::string(home) + "' node '" +
                    std::string(LOOM_BENCH_RELATIONAL_DIR) + "/duckdb_tpch.mjs' " +
                    std::to_string(threads) + " " + std::to_string(reps) + " " +
                    std::to_string(budget);
  for (const char* name : table_names) {
    if (!tables.has(name)) continue;
    std::string columns;
    for (const rel::column& c : tables[name].columns())
      columns += (columns.empty() ? "" : ",") + c.name();
    cmd += " 'table=" + std::string(name) + "=" + (dir / (std::string(name) + ".csv")).string() +
           ":" + columns + "'";
  }
  for (const query_case& q : queries) {
    if (!only.empty() && q.name != only) continue;
    std::string text(q.text);
    // DuckDB does not take the interval's precision that the specification writes in Q1.
    for (std::size_t at; (at = text.find(" day (3)")) != std::string::npos;)
      text.replace(at, 8, " day");
    const fs::path file = dir / ("duckdb_" + q.name + ".sql");
    std::ofstream(file) << text;
    cmd += " 'query=" + q.name + ":" + file.string() + "'";
  }
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::string line;
  for (int ch; (ch = std::fgetc(p)) != EOF;) {
    if (ch != '\n') {
      line += static_cast<char>(ch);
      continue;
    }
    std::istringstream s(line);
    std::string word, name;
    s >> word;
    if (word == "load_ms") {
      s >> out.load;
    } else if (word == "query") {
      timing& t = out.times[(s >> name, name)];
      s >> t.first >> t.warm >> t.runs;
      t.cold = t.first;
    } else if (word == "row") {
      std::vector<std::string> row;
      std::string rest = line.substr(4);
      std::size_t tab = rest.find('\t');
      name = rest.substr(0, tab);
      while (tab != std::string::npos) {
        const std::size_t next = rest.find('\t', tab + 1);
        row.push_back(rest.substr(tab + 1, next == std::string::npos ? next : next - tab - 1));
        tab = next;
      }
      out.results[name].push_back(row);
    }
    line.clear();
  }
  out.ok = pclose(p) == 0;
  return out;
}

/// A cold run: this program again with --cold-one, which loads the tables and runs the query
/// once in its own process (NaN when it fails).
double cold_in_own_process(const query_case& q, int threads, double sf) {
  char cmd[512];
  std::snprintf(cmd, sizeof cmd, "/proc/%d/exe --sf %g --threads %d --cold-one %s",
                static_cast<int>(getpid()), sf, threads, q.name.c_str());
  FILE* p = popen(cmd, "r");
  if (!p) return NAN;
  double ms = NAN;
  char line[256];
  while (std::fgets(line, sizeof line, p))
    if (std::sscanf(line, "cold_ms %lf", &ms) == 1) break;
  while (std::fgets(line, sizeof line, p)) {
  }
  return pclose(p) == 0 ? ms : NAN;
}

/// The median of `runs` calls of `f` (NaN when any is NaN).
template <class F> double median_of(int runs, F&& f) {
  std::vector<double> ms;
  for (int k = 0; k < runs; ++k) ms.push_back(f());
  if (std::any_of(ms.begin(), ms.end(), [](double x) { return std::isnan(x); })) return NAN;
  std::sort(ms.begin(), ms.end());
  return ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  double sf = 1, budget = 3000, sqlite_limit = 30000;
  int threads = 2, reps = 5;
  bool duckdb = true, sqlite = true, cold = true;
  int cold_runs = 1;
  std::string cold_one;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--sf" && k + 1 < argc)
      sf = std::atof(argv[++k]);
    else if (a == "--threads" && k + 1 < argc)
      threads = std::atoi(argv[++k]);
    else if (a == "--reps" && k + 1 < argc)
      reps = std::atoi(argv[++k]);
    else if (a == "--budget" && k + 1 < argc)
      budget = std::atof(argv[++k]);
    else if (a == "--sqlite-limit" && k + 1 < argc)
      sqlite_limit = 1000 * std::atof(argv[++k]);
    else if (a == "--no-duckdb")
      duckdb = false;
    else if (a == "--no-sqlite")
      sqlite = false;
    else if (a == "--no-cold")
      cold = false;
    else if (a == "--cold-runs" && k + 1 < argc)
      cold_runs = std::max(1, std::atoi(argv[++k]));
    else if (a == "--cold-one" && k + 1 < argc)
      cold_one = argv[++k];
    else {
      std::fprintf(
          stderr,
          "usage: sql_tpch [--sf 1] [--threads 2] [--reps 5] [--budget 3000] [--sqlite-limit 30] "
          "[--no-duckdb] [--no-sqlite] [--cold-runs 1] [--no-cold]\n");
      return 2;
    }
  }
  char tag[32];
  std::snprintf(tag, sizeof tag, "sf%g", sf);
  const fs::path dir = (std::getenv("LOOM_TPCH_DATA") ? fs::path(std::getenv("LOOM_TPCH_DATA"))
                                                      : fs::temp_directory_path()) /
                       tag;
  if (!cold_one.empty()) {           // a cold run, in a process of its own: load, then one query
    loom::set_num_threads(threads);  // as a program would at its start, before loading
    const tpch::sql::tables loaded(dir);
    const loom::sql_database db = loaded.database();
    for (const query_case& q : queries) {
      if (q.name != cold_one) continue;
      const double t0 = bench::now_ms();
      (void)q.run(db);
      std::printf("cold_ms %.3f\n", bench::now_ms() - t0);
      return 0;
    }
    return 2;
  }
  if (!fs::exists(dir / "lineitem.csv")) {
    const double t0 = bench::now_ms();
    tpch::generate(dir, sf, true);
    std::printf("generated SF %g in %s in %.0f ms\n", sf, dir.string().c_str(),
                bench::now_ms() - t0);
  }

  // The tables the queries read, with the columns examples/tpch/sql_queries.hpp reads: once
  // serially (read_csv, one file after the other), once by read_csv_files with `threads`.
  double t0 = bench::now_ms();
  std::vector<rel::csv_file> files;
  {
    const tpch::sql::tables loaded(dir);
    const double serial_ms = bench::now_ms() - t0;
    const loom::sql_database view = loaded.database();
    std::vector<std::string> names;
    for (const char* name : table_names) {
      if (!view.has(name)) continue;
      rel::csv_file f{(dir / (std::string(name) + ".csv")).string(), {}, {}};
      for (const rel::column& c : view[name].columns())
        f.schema.push_back({c.name(), c.type(), c.scale()});
      files.push_back(f);
    }
    std::printf("loom: read CSV serially in %.0f ms\n", serial_ms);
  }
  std::map<int, double> parallel_ms;
  loom::sql_database db;
  for (const int n : {1, threads}) {
    t0 = bench::now_ms();
    std::vector<rel::table> read = rel::read_csv_files(files, static_cast<unsigned>(n));
    parallel_ms[n] = bench::now_ms() - t0;
    std::printf("loom: read_csv_files with %d thread(s) in %.0f ms\n", n, parallel_ms[n]);
    if (n != threads) continue;
    std::size_t k = 0;
    for (const char* name : table_names)
      if (k < files.size() && files[k].path == (dir / (std::string(name) + ".csv")).string())
        db.add(name, std::move(read[k++]));
  }
  std::fflush(stdout);

  // loom with 1, then 2 threads a query (loom::set_num_threads): cold, each query alone in a
  // process of its own; then, from no kept index, every query once in order in this process
  // (keeping indexes: "first"), then warm. The 2-thread results must equal the 1-thread.
  std::map<int, std::map<std::string, timing>> mine;
  std::map<std::string, cells> expected;
  bool threads_agree = true;
  for (const int n : {1, 2}) {
    loom::set_num_threads(n);
    db.drop_indexes();
    const auto before = db.counts();
    if (cold)
      for (const query_case& q : queries)
        mine[n][q.name].cold = median_of(cold_runs, [&] { return cold_in_own_process(q, n, sf); });
    for (const query_case& q : queries) {
      t0 = bench::now_ms();
      const rel::table r = q.run(db);
      mine[n][q.name].first = bench::now_ms() - t0;
      if (n == 1) {
        expected[q.name] = cells_of(r);
      } else {
        std::string why;
        if (!agree(expected[q.name], cells_of(r), why)) {
          threads_agree = false;
          std::printf("loom %s with 2 threads differs: %s\n", q.name.c_str(), why.c_str());
        }
      }
    }
    for (const query_case& q : queries) {
      timing& t = mine[n][q.name];
      const double first = t.first;
      time_runs(
          t, [&] { (void)q.run(db); }, reps, budget);
      t.first = first;
    }
    const auto counts = db.counts();
    std::printf(
        "loom, %d thread(s): %zu indexes built and kept, %zu reused, %zu filtered, %zu "
        "narrowed\n",
        n, counts.built - before.built, counts.reused - before.reused,
        counts.filtered - before.filtered, counts.narrowed - before.narrowed);
    std::fflush(stdout);
  }
  loom::set_num_threads(0);

  // SQLite: examples/tpch/sql/<query>.sql.
  std::map<std::string, timing> lite;
  double lite_load = NAN;
  if (sqlite) {
    bench::sqlite_db sq;
    lite_load = load_sqlite(sq, db);
    double deadline = INFINITY;  // a run past --sqlite-limit is interrupted
    sqlite3_progress_handler(
        sq.handle(), 1 << 16,
        [](void* at) { return bench::now_ms() > *static_cast<double*>(at) ? 1 : 0; }, &deadline);
    const fs::path sql_dir =
        fs::path(LOOM_BENCH_RELATIONAL_DIR) / ".." / ".." / "examples" / "tpch" / "sql";
    for (const query_case& q : queries) {
      timing& t = lite[q.name];
      const fs::path file = sql_dir / (q.name + ".sql");
      if (!fs::exists(file)) continue;
      sqlite3_stmt* st = sq.prepare(read_text(file));
      cells got;
      time_runs(
          t,
          [&] {
            got.clear();
            deadline = bench::now_ms() + sqlite_limit;
            try {
              sq.query(st, [&](sqlite3_stmt* s) {
                std::vector<std::string> row;
                for (int c = 0; c < sqlite3_column_count(s); ++c) {
                  const unsigned char* v = sqlite3_column_text(s, c);
                  row.emplace_back(v ? reinterpret_cast<const char*>(v) : "");
                }
                got.push_back(std::move(row));
              });
            } catch (const std::exception&) {  // interrupted
              t.stopped = true;
            }
          },
          reps, budget);
      t.cold = t.first;
      if (t.stopped) {  // repeats of an interrupted query tell nothing
        t.warm = NAN;
        t.runs = 0;
      }
      sqlite3_finalize(st);
      std::string why;
      t.checked = !t.stopped;
      t.equal = t.stopped || agree(expected[q.name], got, why);
      if (!t.equal) std::printf("SQLite %s differs: %s\n", q.name.c_str(), why.c_str());
      std::printf("SQLite %s: %.0f ms first\n", q.name.c_str(), t.first);
      std::fflush(stdout);
    }
  }

  std::map<int, duckdb_run> duck;
  if (duckdb)
    for (const int n : {1, 2}) {
      duck[n] = run_duckdb(n, reps, budget, db, dir);
      for (auto& [name, t] : duck[n].times) {
        std::string why;
        t.checked = true;
        t.equal = agree(expected[name], duck[n].results[name], why);
        if (!t.equal) std::printf("DuckDB %d %s differs: %s\n", n, name.c_str(), why.c_str());
        t.cold = NAN;
        if (cold)
          t.cold = median_of(cold_runs, [&] {
            const duckdb_run alone = run_duckdb(n, 0, budget, db, dir, name);
            return alone.ok && alone.times.count(name) ? alone.times.at(name).first : NAN;
          });
      }
    }

  auto check = [](const timing& t) { return !t.checked ? "" : t.equal ? " ✓" : " ✗"; };
  std::printf(
      "\n| query | loom 1 cold | loom 1 first | loom 1 warm | loom 2 cold | loom 2 warm | DuckDB 1 "
      "cold | DuckDB 1 warm | DuckDB 2 cold | DuckDB 2 warm | SQLite cold | SQLite warm |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::map<std::string, double> sums;
  for (const query_case& q : queries) {
    const timing& l = mine[1][q.name];
    const timing& l2 = mine[2][q.name];
    const timing d1 = duck[1].times.count(q.name) ? duck[1].times[q.name] : timing{};
    const timing d2 = duck[2].times.count(q.name) ? duck[2].times[q.name] : timing{};
    const timing s = lite.count(q.name) ? lite[q.name] : timing{};
    auto warm = [&](const timing& t) {
      return ms_cell(t.warm) +
             (t.runs > 0 && t.runs < reps ? " (" + std::to_string(t.runs) + ")" : std::string());
    };
    const std::string lite_cold = s.stopped ? "> " + ms_cell(sqlite_limit) : ms_cell(s.cold);
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s%s | %s | %s%s | %s | %s%s |\n",
                q.name.c_str(), ms_cell(l.cold).c_str(), ms_cell(l.first).c_str(), warm(l).c_str(),
                ms_cell(l2.cold).c_str(), warm(l2).c_str(), ms_cell(d1.cold).c_str(),
                warm(d1).c_str(), check(d1), ms_cell(d2.cold).c_str(), warm(d2).c_str(), check(d2),
                lite_cold.c_str(), warm(s).c_str(), check(s));
    sums["loom"] += l.first;
    sums["loom2"] += l2.first;
    sums["d1"] += d1.first;
    sums["d2"] += d2.first;
    sums["sqlite"] += s.first;
  }
  std::printf("\n| end to end (ms) | load | queries, each once | total |\n|---|---:|---:|---:|\n");
  auto line = [](const std::string& who, double load, double q) {
    std::printf("| %s | %s | %s | %s |\n", who.c_str(), ms_cell(load).c_str(), ms_cell(q).c_str(),
                ms_cell(load + q).c_str());
  };
  line("loom, " + std::to_string(threads) + " threads to load, 2 a query", parallel_ms[threads],
       sums["loom2"]);
  line("loom, 1 thread to load and a query", parallel_ms[1], sums["loom"]);
  if (duckdb) {
    line("DuckDB, 1 thread", duck[1].load, sums["d1"]);
    line("DuckDB, 2 threads", duck[2].load, sums["d2"]);
  }
  if (sqlite)
    line(std::string("SQLite (load: inserts of loom's columns)") +
             (std::any_of(lite.begin(), lite.end(), [](const auto& q) { return q.second.stopped; })
                  ? ", interrupted queries counted at the limit"
                  : ""),
         lite_load, sums["sqlite"]);
  bool all_equal = threads_agree;
  for (auto* engine : {&lite, &duck[1].times, &duck[2].times})
    for (const auto& [name, t] : *engine) all_equal = all_equal && t.equal;
  std::printf("\nresults %s\n", all_equal ? "agree" : "DIFFER");
  return all_equal ? 0 : 1;
}
