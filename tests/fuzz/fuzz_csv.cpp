// libFuzzer target of the CSV reader (loom::relational::read_csv_text): any bytes load or throw
// loom::error, and round-trip through table::write_csv when loaded.
// SPDX-License-Identifier: BSL-1.0
//
// Build and run it with clang (tests/fuzz/CMakeLists.txt, docs/testing.md "Fuzzing"):
//   ./fuzz_csv -max_total_time=120 -max_len=4096 -dict=tests/fuzz/csv.dict
//           corpus/ tests/fuzz/corpus/csv
// The first two bytes pick the reading (bits of the little-endian 16-bit word): bit 0 a header
// line or not, bits 1-2 the delimiter (',', '|', ';', tab), bits 3-4 how many columns (1 to 3,
// named a, b, c), bits 5-10 their types, two bits each (int64, decimal, date, string); the rest
// is the text. Any exception other than
// loom::error escapes and aborts; so does a csv_error without `fuzz.csv:line:`, a table whose
// columns differ in length, a string code outside its dictionary, or a table that does not
// read back the same (same rows, same texts, decimals bit for bit) after write_csv. Without
// LOOM_FUZZ_LIBFUZZER, a doctest of tests.fuzz replays tests/fuzz/corpus/csv.
#include <loom/relational/csv.hpp>
#include <loom/relational/table.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

namespace {

namespace rel = loom::relational;

void check_table(const rel::table& t, std::size_t columns) {
  if (t.columns().size() != columns) std::abort();
  for (const rel::column& c : t.columns()) {
    if (c.size() != t.rows()) std::abort();
    if (c.type() == rel::column_type::string) {
      if (!c.dict()) std::abort();
      for (const std::int64_t code : c.ints())
        if (code < 0 || code >= c.dict()->size()) std::abort();
    }
  }
}

void check_same_table(const rel::table& a, const rel::table& b) {
  if (a.rows() != b.rows() || a.columns().size() != b.columns().size()) std::abort();
  for (std::size_t k = 0; k < a.columns().size(); ++k) {
    const rel::column &x = a.columns()[k], &y = b.columns()[k];
    if (x.name() != y.name() || x.type() != y.type()) std::abort();
    for (std::size_t r = 0; r < a.rows(); ++r) {
      if (x.type() == rel::column_type::decimal) {
        if (!loom_fuzz::same_value(x.reals()[r], y.reals()[r])) std::abort();
      } else if (x.text(r) != y.text(r)) {
        std::abort();
      }
    }
  }
}

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const unsigned config = data[0] | (unsigned{data[1]} << 8);
  const bool header = (config & 1) != 0;
  const char delimiter = ",|;\t"[(config >> 1) & 3];
  const std::size_t columns = 1 + ((config >> 3) & 3) % 3;
  std::vector<rel::column_spec> schema;
  for (std::size_t k = 0; k < columns; ++k)
    schema.push_back({std::string(1, static_cast<char>('a' + k)),
                      static_cast<rel::column_type>((config >> (5 + 2 * k)) & 3)});
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  try {
    const rel::table t =
        rel::read_csv_text(text, "fuzz.csv", schema, {.delimiter = delimiter, .header = header});
    check_table(t, columns);
    std::stringstream out;
    t.write_csv(out, delimiter);
    try {
      const rel::table u = rel::read_csv_text(out.str(), "rewritten.csv", schema,
                                              {.delimiter = delimiter, .header = true});
      check_table(u, columns);
      check_same_table(t, u);
    } catch (const loom::error&) {
      std::abort();  // the writer wrote what cannot be read
    }
  } catch (const loom::parse_error& e) {
    loom_fuzz::check_message(e, "fuzz.csv");
  } catch (const loom::error&) {
  }
  return 0;
}

}  // namespace

LOOM_FUZZ_ENTRY("csv", fuzz_one)
