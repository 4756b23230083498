// A thin RAII wrapper over the SQLite C API for the relational benchmarks: in-memory database,
// batched inserts, timed prepared queries.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_BENCHMARKS_RELATIONAL_SQLITE_DB_HPP
#define LOOM_BENCHMARKS_RELATIONAL_SQLITE_DB_HPP

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <sqlite3.h>

namespace bench {

class sqlite_db {
 public:
  sqlite_db() {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK)
      throw std::runtime_error("sqlite3_open failed");
    exec(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;"
        "PRAGMA threads=0;");
  }
  ~sqlite_db() { sqlite3_close(db_); }
  sqlite_db(const sqlite_db&) = delete;
  sqlite_db& operator=(const sqlite_db&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error("sqlite: " + msg + " in: " + sql.substr(0, 200));
    }
  }

  /// Inserts rows of int64 through one prepared statement inside a transaction.
  void insert_ints(const std::string& table, std::size_t columns,
                   const std::vector<std::int64_t>& flat) {
    std::string sql = "INSERT INTO " + table + " VALUES(";
    for (std::size_t c = 0; c < columns; ++c) sql += c ? ",?" : "?";
    sql += ")";
    exec("BEGIN");
    sqlite3_stmt* st = prepare(sql);
    for (std::size_t r = 0; r + columns <= flat.size(); r += columns) {
      for (std::size_t c = 0; c < columns; ++c)
        sqlite3_bind_int64(st, static_cast<int>(c + 1), flat[r + c]);
      if (sqlite3_step(st) != SQLITE_DONE) throw std::runtime_error("sqlite insert failed");
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    exec("COMMIT");
  }

  /// Runs a prepared query; calls `row(stmt)` per result row.
  void query(sqlite3_stmt* st, const std::function<void(sqlite3_stmt*)>& row) {
    sqlite3_reset(st);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
    if (rc != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db_));
  }

  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("sqlite prepare: ") + sqlite3_errmsg(db_));
    return st;
  }
  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace bench

#endif  // LOOM_BENCHMARKS_RELATIONAL_SQLITE_DB_HPP
