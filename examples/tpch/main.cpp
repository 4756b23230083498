// examples/tpch: generates TPC-H data (or reads it) and prints Q5 and Q9 computed by loom as CSV.
//   tpch                       generate scale factor 0.01 into a temporary folder and run both
//   tpch --sf 0.1 --dir data   generate SF 0.1 into data/ (kept) and run both
//   tpch --dir data --no-generate [--query 5|9] [--explain] [--all-columns]
//   tpch --verify              also run the standard SQL in sqlite3 on the same CSV files and
//                              fail (exit 1) unless both answers agree (skipped without sqlite3)
// SPDX-License-Identifier: BSL-1.0
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "dbgen.hpp"
#include "queries.hpp"
#include "verify.hpp"
#include <unistd.h>  // getpid

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  double sf = 0.01;
  fs::path dir;
  bool generate = true, explain = false, all_columns = false, verify = false;
  int query = 0;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&]() -> std::string {
      if (k + 1 >= argc) throw std::runtime_error("tpch: " + a + " needs a value");
      return argv[++k];
    };
    if (a == "--sf")
      sf = std::stod(value());
    else if (a == "--dir")
      dir = value();
    else if (a == "--no-generate")
      generate = false;
    else if (a == "--query")
      query = std::stoi(value());
    else if (a == "--explain")
      explain = true;
    else if (a == "--all-columns")
      all_columns = true;
    else if (a == "--verify")
      verify = true;
    else {
      std::fprintf(stderr,
                   "usage: tpch [--sf F] [--dir D] [--no-generate] [--query 5|9] [--explain] "
                   "[--all-columns] [--verify]\n");
      return 2;
    }
  }
  const bool temporary = dir.empty();
  if (temporary) dir = fs::temp_directory_path() / ("loom_tpch_" + std::to_string(::getpid()));
  auto ms_since = [](auto t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  const fs::path sql_dir = fs::path(__FILE__).parent_path() / "sql";
  if (verify && !tpch::have_sqlite3()) {
    std::printf("skipped --verify: sqlite3 is not installed (apt-get install sqlite3)\n");
    verify = false;
  }
  int failures = 0;
  auto check = [&](const loom::relational::table& result, const char* query,
                   const std::vector<loom::relational::column_spec>& schema) {
    if (!verify) return;
    const auto diffs = tpch::differences(result, tpch::sqlite_answer(sql_dir, dir, query), schema);
    for (const auto& d : diffs)
      std::fprintf(stderr, "%s differs from SQLite: %s\n", query, d.c_str());
    std::fprintf(stderr, "%s: %s SQLite\n", query,
                 diffs.empty() ? "agrees with" : "DISAGREES with");
    failures += diffs.empty() ? 0 : 1;
  };
  using loom::relational::column_type;
  try {
    auto t0 = std::chrono::steady_clock::now();
    if (generate) {
      tpch::generate(dir, sf, all_columns);
      std::fprintf(stderr, "generated SF %g in %s (%.0f ms)\n", sf, dir.string().c_str(),
                   ms_since(t0));
    }
    t0 = std::chrono::steady_clock::now();
    const tpch::database db = tpch::load(dir);
    std::fprintf(stderr, "read CSV: %.0f ms\n", ms_since(t0));
    if (query == 0 || query == 5) {
      t0 = std::chrono::steady_clock::now();
      const tpch::q5 q(db);
      const double build = ms_since(t0);
      t0 = std::chrono::steady_clock::now();
      const auto result = q.run();
      std::fprintf(stderr, "Q5: keyed in %.1f ms, ran in %.2f ms\n", build, ms_since(t0));
      if (explain) {
        auto out = q.output();
        const auto an = q.asia_nations();
        std::cerr << loom::explain(out(tpch::idx::nm), q.expression(an));
      }
      std::cout << "# Q5\n";
      result.write_csv(std::cout);
      check(result, "q5", {{"n_name", column_type::string}, {"revenue", column_type::decimal}});
    }
    if (query == 0 || query == 9) {
      t0 = std::chrono::steady_clock::now();
      const tpch::q9 q(db);
      const double build = ms_since(t0);
      t0 = std::chrono::steady_clock::now();
      const auto result = q.run();
      std::fprintf(stderr, "Q9: keyed in %.1f ms, ran in %.2f ms\n", build, ms_since(t0));
      if (explain) {
        auto out = q.output();
        const auto green = q.green_parts();
        const auto sn = q.supplier_nation();
        std::cerr << loom::explain(out(tpch::idx::nm, tpch::idx::y), q.expression(green, sn));
      }
      std::cout << "# Q9\n";
      result.write_csv(std::cout);
      check(result, "q9",
            {{"nation", column_type::string},
             {"o_year", column_type::int64},
             {"sum_profit", column_type::decimal}});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpch: %s\n", e.what());
    if (temporary) fs::remove_all(dir);
    return 1;
  }
  if (temporary) fs::remove_all(dir);
  return failures == 0 ? 0 : 1;
}
