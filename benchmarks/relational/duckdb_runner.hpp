// Runs benchmarks/relational/duckdb_query.mjs through node when DuckDB is installed from npm
// ($LOOM_DUCKDB_DIR holds node_modules/@duckdb/node-api); otherwise reports it unavailable.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_RELATIONAL_DUCKDB_RUNNER_HPP
#define LOOM_BENCHMARKS_RELATIONAL_DUCKDB_RUNNER_HPP

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct duckdb_result {
  double load_ms = 0;
  double query_ms = 0;
  std::vector<std::string> rows;  // CSV text of each result row
};

inline std::optional<std::string> duckdb_dir() {
  const char* d = std::getenv("LOOM_DUCKDB_DIR");
  if (!d || !std::filesystem::exists(std::filesystem::path(d) / "node_modules/@duckdb/node-api"))
    return std::nullopt;
  return std::string(d);
}

/// `threads`: "1" or "default". `tables`: {"name=path.csv", ...}.
inline std::optional<duckdb_result> run_duckdb(const std::string& threads, int reps,
                                               const std::string& sql_file,
                                               const std::vector<std::string>& tables) {
  const auto dir = duckdb_dir();
  if (!dir) return std::nullopt;
  std::string cmd = "node '" + std::string(LOOM_BENCH_RELATIONAL_DIR) + "/duckdb_query.mjs' " +
                    threads + " " + std::to_string(reps) + " '" + sql_file + "'";
  for (const auto& t : tables) cmd += " '" + t + "'";
  cmd = "LOOM_DUCKDB_DIR='" + *dir + "' " + cmd;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  duckdb_result r;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    if (s.rfind("load_ms ", 0) == 0)
      r.load_ms = std::atof(s.c_str() + 8);
    else if (s.rfind("query_ms ", 0) == 0)
      r.query_ms = std::atof(s.c_str() + 9);
    else if (s.rfind("row ", 0) == 0)
      r.rows.push_back(s.substr(4));
  }
  if (pclose(p) != 0) return std::nullopt;
  return r;
}

}  // namespace bench

#endif  // LOOM_BENCHMARKS_RELATIONAL_DUCKDB_RUNNER_HPP
