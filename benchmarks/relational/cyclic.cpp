// Cyclic joins on real graphs (the repository's data/matrices): triangles, 4-cycles and 4-cliques
// counted by loom's fused generic join and by SQLite (indexes on both column orders). The graph
// is the symmetric pattern without loops; cliques use the edges oriented low -> high so each is
// counted once; the 4-cycle counts closed 4-walks a-b-c-d-a, the same in both systems. SQLite is
// interrupted after $LOOM_BENCH_BUDGET_S seconds (default 60).
//   cyclic [file.mtx ...]
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sqlite_db.hpp"
#include "timing.hpp"

namespace {
namespace rel = loom::relational;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
constexpr loom::index<"c"> c;
constexpr loom::index<"d"> d;
using trie = loom::tensor<std::int64_t, loom::csf<2>>;

trie relation(const std::set<std::pair<std::int64_t, std::int64_t>>& e, std::int64_t n) {
  std::vector<std::array<std::int64_t, 2>> crd;
  for (const auto& [x, y] : e) crd.push_back({x, y});
  return loom::from_coo<loom::csf<2>>({n, n}, crd, std::vector<std::int64_t>(crd.size(), 1));
}

double deadline_ms = 0;
int progress(void*) { return bench::now_ms() > deadline_ms ? 1 : 0; }
}  // namespace

int main(int argc, char** argv) {
  const double budget_s =
      std::getenv("LOOM_BENCH_BUDGET_S") ? std::atof(std::getenv("LOOM_BENCH_BUDGET_S")) : 60.0;
  std::vector<std::string> files;
  for (int k = 1; k < argc; ++k) files.push_back(argv[k]);
  if (files.empty()) {
    const std::filesystem::path dir =
        std::filesystem::path(LOOM_BENCH_RELATIONAL_DIR) / ".." / ".." / "data" / "matrices";
    for (const char* f :
         {"karate.mtx", "jagmesh7.mtx", "cryg2500.mtx", "bcsstk13.mtx", "pushpull.mtx"})
      files.push_back((dir / f).string());
  }
  std::printf(
      "| graph | nodes | edges | query | count | loom (ms) | SQLite (ms) | SQLite / loom |\n");
  std::printf("|---|---:|---:|---|---:|---:|---:|---:|\n");
  for (const auto& file : files) {
    const auto M = loom::read_matrix_market<double, loom::csr>(file);
    const std::int64_t n = std::max(M.shape()[0], M.shape()[1]);
    std::set<std::pair<std::int64_t, std::int64_t>> sym, up;
    M.for_each_stored([&](const auto& crd, double) {
      if (crd[0] == crd[1]) return;
      sym.insert({crd[0], crd[1]});
      sym.insert({crd[1], crd[0]});
      up.insert({std::min(crd[0], crd[1]), std::max(crd[0], crd[1])});
    });
    const trie E = relation(sym, n), U = relation(up, n);
    bench::sqlite_db db;
    db.exec("CREATE TABLE E(a INTEGER, b INTEGER); CREATE TABLE U(a INTEGER, b INTEGER);");
    std::vector<std::int64_t> fs, fu;
    for (const auto& [x, y] : sym) fs.push_back(x), fs.push_back(y);
    for (const auto& [x, y] : up) fu.push_back(x), fu.push_back(y);
    db.insert_ints("E", 2, fs);
    db.insert_ints("U", 2, fu);
    db.exec(
        "CREATE INDEX e_ab ON E(a, b); CREATE INDEX e_ba ON E(b, a);"
        "CREATE INDEX u_ab ON U(a, b); CREATE INDEX u_ba ON U(b, a); ANALYZE;");
    sqlite3_progress_handler(db.handle(), 100000, progress, nullptr);

    struct query {
      const char* name;
      std::function<std::int64_t()> loom;
      const char* sql;
    };
    const std::vector<query> queries{
        {"triangle", [&] { return loom::eval(loom::sum(a, b, c, U(a, b) * U(b, c) * U(a, c))); },
         "SELECT count(*) FROM U r, U s, U t WHERE r.b = s.a AND r.a = t.a AND s.b = t.b"},
        {"4-cycle",
         [&] { return loom::eval(loom::sum(a, b, c, d, E(a, b) * E(b, c) * E(c, d) * E(a, d))); },
         "SELECT count(*) FROM E r, E s, E t, E u WHERE r.b = s.a AND s.b = t.a AND t.b = u.b "
         "AND r.a = u.a"},
        {"4-clique",
         [&] {
           return loom::eval(
               loom::sum(a, b, c, d, U(a, b) * U(a, c) * U(a, d) * U(b, c) * U(b, d) * U(c, d)));
         },
         "SELECT count(*) FROM U ab, U ac, U ad, U bc, U bd, U cd WHERE ab.a = ac.a AND ab.a = "
         "ad.a "
         "AND ab.b = bc.a AND ac.b = bc.b AND ab.b = bd.a AND ad.b = bd.b AND ac.b = cd.a AND "
         "ad.b = cd.b"},
    };
    for (const auto& q : queries) {
      std::int64_t count = 0;
      const double lm = bench::median_ms([&] { count = q.loom(); }, 300, 1, 50);
      std::string sq = "", ratio = "";
      sqlite3_stmt* st = db.prepare(q.sql);
      std::int64_t got = -1;
      deadline_ms = bench::now_ms() + budget_s * 1000;
      const double t0 = bench::now_ms();
      try {
        db.query(st, [&](sqlite3_stmt* s) { got = sqlite3_column_int64(s, 0); });
        const double ms = bench::now_ms() - t0;
        if (got != count) {
          std::fprintf(stderr, "%s %s: loom %lld, SQLite %lld\n", file.c_str(), q.name,
                       (long long)count, (long long)got);
          return 1;
        }
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f", ms);
        sq = buf;
        std::snprintf(buf, sizeof buf, "%.0fx", ms / lm);
        ratio = buf;
      } catch (const std::exception&) {
        sq = "> " + std::to_string(static_cast<int>(budget_s)) + " s (interrupted)";
      }
      sqlite3_finalize(st);
      std::printf("| %s | %lld | %zu | %s | %lld | %.2f | %s | %s |\n",
                  std::filesystem::path(file).stem().string().c_str(), (long long)n, up.size(),
                  q.name, (long long)count, lm, sq.c_str(), ratio.c_str());
      std::fflush(stdout);
    }
  }
}
