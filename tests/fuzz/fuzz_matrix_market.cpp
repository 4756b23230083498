// libFuzzer target of the Matrix Market reader: any bytes load or throw loom::error, and
// round-trip when loaded.
// SPDX-License-Identifier: BSL-1.0
//
// Build and run it with clang (tests/fuzz/CMakeLists.txt, docs/testing.md "Fuzzing"):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_FUZZ_LIBFUZZER
//           -I include tests/fuzz/fuzz_matrix_market.cpp -o fuzz_matrix_market
//   ./fuzz_matrix_market -max_total_time=120 -max_len=4096 -dict=tests/fuzz/matrix_market.dict
//           corpus/ tests/fuzz/corpus/matrix_market data/matrices
// The bytes go to read_matrix_market (csr<double>, coo<int>). Any exception other than
// loom::error escapes and aborts; so does a parse_error without `name:line:` or a loaded tensor
// that does not survive write-then-read. Built without LOOM_FUZZ_LIBFUZZER (the tests/ glob does
// that), the file is a doctest of tests.fuzz that replays tests/fuzz/corpus/matrix_market and the
// data files through the same entry.
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using loom_fuzz::check_message;
using loom_fuzz::check_same_entries;

constexpr loom::read_options options{.max_dense_elements = 1 << 16};  // fast, below malloc caps

// Reads `text` as Matrix Market; when it loads, writing and reading again gives the same entries.
template <class T, class Format> void read_matrix_market_as(const std::string& text) {
  std::istringstream in(text);
  try {
    const auto A = loom::read_matrix_market<T, Format>(in, "fuzz.mtx", options);
    std::stringstream out;
    loom::write_matrix_market(out, A);
    try {
      check_same_entries(A, loom::read_matrix_market<T, Format>(out, "rewritten.mtx", options));
    } catch (const loom::error&) {
      std::abort();  // the writer wrote what cannot be read
    }
  } catch (const loom::parse_error& e) {
    check_message(e, "fuzz.mtx");
  } catch (const loom::error&) {
  }
}

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  read_matrix_market_as<double, loom::csr>(text);
  read_matrix_market_as<int, loom::coo>(text);
  return 0;
}

}  // namespace

#ifdef LOOM_FUZZ_LIBFUZZER
LOOM_FUZZ_ENTRY("matrix_market", fuzz_one)
#else
TEST_CASE("fuzz matrix_market: tests/fuzz/corpus/matrix_market and the data files pass") {
  std::vector<std::filesystem::path> dirs = {loom_fuzz::corpus("matrix_market")};
#  ifdef LOOM_DATA_DIR
  dirs.emplace_back(LOOM_DATA_DIR);
#  endif
  CHECK(loom_fuzz::replay(dirs, fuzz_one) > 0);
}
#endif
