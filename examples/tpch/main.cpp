// examples/tpch: generates TPC-H data (or reads it) and prints Q5 and Q9 computed by loom as CSV.
//   tpch                       generate scale factor 0.01 into a temporary folder and run both
//   tpch --sf 0.1 --dir data   generate SF 0.1 into data/ (kept) and run both
//   tpch --dir data --no-generate [--query 5|9] [--explain] [--all-columns]
// SPDX-License-Identifier: BSL-1.0
#include "dbgen.hpp"
#include "queries.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  double sf = 0.01;
  fs::path dir;
  bool generate = true, explain = false, all_columns = false;
  int query = 0;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&]() -> std::string {
      if (k + 1 >= argc) throw std::runtime_error("tpch: " + a + " needs a value");
      return argv[++k];
    };
    if (a == "--sf") sf = std::stod(value());
    else if (a == "--dir") dir = value();
    else if (a == "--no-generate") generate = false;
    else if (a == "--query") query = std::stoi(value());
    else if (a == "--explain") explain = true;
    else if (a == "--all-columns") all_columns = true;
    else {
      std::fprintf(stderr, "usage: tpch [--sf F] [--dir D] [--no-generate] [--query 5|9] [--explain] [--all-columns]\n");
      return 2;
    }
  }
  const bool temporary = dir.empty();
  if (temporary) dir = fs::temp_directory_path() / ("loom_tpch_" + std::to_string(::getpid()));
  auto ms_since = [](auto t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  try {
    auto t0 = std::chrono::steady_clock::now();
    if (generate) {
      tpch::generate(dir, sf, all_columns);
      std::fprintf(stderr, "generated SF %g in %s (%.0f ms)\n", sf, dir.string().c_str(), ms_since(t0));
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
        std::cerr << loom::explain(out(tpch::idx::nm), q.expression());
      }
      std::cout << "# Q5\n";
      result.write_csv(std::cout);
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
        std::cerr << loom::explain(out(tpch::idx::nm, tpch::idx::y), q.expression(green));
      }
      std::cout << "# Q9\n";
      result.write_csv(std::cout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tpch: %s\n", e.what());
    if (temporary) fs::remove_all(dir);
    return 1;
  }
  if (temporary) fs::remove_all(dir);
}
