// Robustness: read_csv errors are loom::errors naming the right line, and the CSV
// reader reads numbers as the Matrix Market reader does.
// SPDX-License-Identifier: BSL-1.0
#include <loom/relational/csv.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace {
namespace rel = loom::relational;
using rel::column_type;
}  // namespace

TEST_CASE("read_csv on a directory throws a loom::io_error") {
  const std::filesystem::path dir = "loom_robust_csv_directory";
  std::filesystem::create_directories(dir);
  try {
    (void)rel::read_csv(dir.string(), {{"x", column_type::int64}});
    FAIL("no error");
  } catch (const loom::io_error& e) {
    CHECK(std::string(e.what()).find("directory") != std::string::npos);
  }
  std::filesystem::remove(dir);
}

TEST_CASE("header errors name the header's line, after blank lines") {
  const std::string text = "\n\n\r\nk,k,v\n1,2,3\n";
  try {
    (void)rel::read_csv_text(text, "h.csv", {{"k", column_type::int64}});
    FAIL("no error");
  } catch (const rel::csv_error& e) {
    CHECK(e.line() == 4);
    CHECK(std::string(e.what()).starts_with(
        "h.csv:4: column 2 (k): the header names this column twice"));
  }
  try {
    (void)rel::read_csv_text(text, "h.csv", {{"w", column_type::int64}});
    FAIL("no error");
  } catch (const rel::csv_error& e) {
    CHECK(e.line() == 4);
  }
}

TEST_CASE("the CSV reader accepts +5 and 1e-400, as the Matrix Market reader does") {
  const std::string text = "i,x\n+5,1e-400\n-3,+2.5\n+0,-1e-400\n";
  const rel::table t =
      rel::read_csv_text(text, "n.csv", {{"i", column_type::int64}, {"x", column_type::decimal}});
  REQUIRE(t.rows() == 3);
  CHECK(t.ints("i")[0] == 5);
  CHECK(t.ints("i")[1] == -3);
  CHECK(t.ints("i")[2] == 0);
  CHECK(t.reals("x")[0] == 0.0);
  CHECK(t.reals("x")[1] == 2.5);
  CHECK(t.reals("x")[2] == 0.0);
  // still refused: overflow, a doubled sign, a number and more
  for (const std::string bad : {"i,x\n1,1e400\n", "i,x\n++5,1\n", "i,x\n1,+-2\n", "i,x\n5x,1\n",
                                "i,x\n99999999999999999999,1\n"})
    CHECK_THROWS_AS(
        rel::read_csv_text(bad, "b.csv", {{"i", column_type::int64}, {"x", column_type::decimal}}),
        rel::csv_error);
}
