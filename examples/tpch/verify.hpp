// Checks loom's Q5 and Q9 against SQLite: runs the standard SQL (sql/*.sql) with the sqlite3
// command-line shell on the same CSV files and compares the results cell by cell.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXAMPLES_TPCH_VERIFY_HPP
#define LOOM_EXAMPLES_TPCH_VERIFY_HPP

#include <loom/relational.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tpch {

inline bool have_sqlite3() { return std::system("sqlite3 -version > /dev/null 2>&1") == 0; }

/// Runs sql/<query>.sql in SQLite over the CSV files in `data`; returns its CSV output.
inline std::string sqlite_answer(const std::filesystem::path& sql_dir,
                                 const std::filesystem::path& data, const std::string& query) {
  const auto script = data / ("run_" + query + ".sqlite"), out = data / (query + ".sqlite.csv");
  {
    std::ofstream s(script);
    // Each file goes into a staging table named by its header, then its columns of
    // schema.sql are copied by name into the typed table (the files may hold more columns).
    s << ".read '" << (sql_dir / "schema.sql").string() << "'\n.mode csv\n";
    const std::pair<const char*, const char*> tables[] = {
        {"region", "r_regionkey, r_name"},
        {"nation", "n_nationkey, n_name, n_regionkey"},
        {"supplier", "s_suppkey, s_nationkey"},
        {"customer", "c_custkey, c_nationkey"},
        {"orders", "o_orderkey, o_custkey, o_orderdate"},
        {"lineitem", "l_orderkey, l_partkey, l_suppkey, l_quantity, l_extendedprice, l_discount"},
        {"part", "p_partkey, p_name"},
        {"partsupp", "ps_partkey, ps_suppkey, ps_supplycost"}};
    for (const auto& [t, cols] : tables)
      s << ".import '" << (data / (std::string(t) + ".csv")).string() << "' " << t << "_csv\n"
        << "insert into " << t << " select " << cols << " from " << t << "_csv;\n";
    s << ".headers on\n.once '" << out.string() << "'\n.read '"
      << (sql_dir / (query + ".sql")).string() << "'\n";
  }
  const std::string cmd = "sqlite3 :memory: < '" + script.string() + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("tpch: failed: " + cmd);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The differences between loom's result and SQLite's CSV (keys exactly, decimals to a
/// relative 1e-9: both add the same doubles in different orders); empty when they agree.
inline std::vector<std::string> differences(
    const loom::relational::table& loom_result, const std::string& sqlite_csv,
    const std::vector<loom::relational::column_spec>& schema) {
  namespace rel = loom::relational;
  const rel::table expected = rel::read_csv_text(sqlite_csv, "sqlite", schema);
  std::vector<std::string> diffs;
  if (expected.rows() == 0) diffs.push_back("SQLite returned no rows");
  if (loom_result.rows() != expected.rows())
    diffs.push_back("loom has " + std::to_string(loom_result.rows()) + " rows, SQLite " +
                    std::to_string(expected.rows()));
  for (const auto& spec : schema)
    for (std::size_t r = 0; r < std::min(expected.rows(), loom_result.rows()); ++r) {
      const std::string a = loom_result[spec.name].text(r), b = expected[spec.name].text(r);
      const bool same =
          spec.type == rel::column_type::decimal  // loom's may be exact (a fixed decimal)
              ? std::abs(loom_result[spec.name].number(r) - expected.reals(spec.name)[r]) <=
                    1e-9 * std::abs(expected.reals(spec.name)[r])
              : a == b;
      if (!same)
        diffs.push_back(spec.name + " row " + std::to_string(r + 1) + ": loom " + a + ", SQLite " +
                        b);
    }
  return diffs;
}

}  // namespace tpch

#endif  // LOOM_EXAMPLES_TPCH_VERIFY_HPP
