// libFuzzer target of the readers: any bytes load or throw loom::error, and round-trip when loaded.
// SPDX-License-Identifier: BSL-1.0
//
// Build and run it with clang (include/loom/io/README.md, tests/fuzz/CMakeLists.txt):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_FUZZ_LIBFUZZER
//           -I include tests/fuzz/fuzz_matrix_market.cpp -o fuzz_matrix_market
//   ./fuzz_matrix_market -max_total_time=120 -max_len=4096 -dict=tests/fuzz/matrix_market.dict
//           corpus/ tests/fuzz/corpus ../shared/data/matrices
// The bytes go to read_matrix_market (csr<double>, coo<int>) and read_tns (coo_n<3><double>).
// Any exception other than loom::error escapes and aborts; so does a parse_error without
// `name:line:` or a loaded tensor that does not survive write-then-read. Built without LOOM_FUZZ_LIBFUZZER (the tests/ glob does that), the file
// is a doctest that replays the regression corpus and the data files through the same entry.
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>
#include <loom/io/tns.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  }
  return a == b;
}

template <class T, class Format, std::size_t N = Format::order>
void check_same_entries(const loom::tensor<T, Format>& A, const loom::tensor<T, Format>& B) {
  std::vector<std::pair<std::array<std::int64_t, N>, T>> a, b;
  A.for_each_stored([&](const auto& c, const T& v) { a.emplace_back(c, v); });
  B.for_each_stored([&](const auto& c, const T& v) { b.emplace_back(c, v); });
  if (A.shape() != B.shape() || a.size() != b.size()) std::abort();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].first != b[k].first || !same_value(a[k].second, b[k].second)) std::abort();
}

// A parse_error must say `name:line: `; one about the rewritten text is a writer bug.
void check_message(const loom::parse_error& e, const std::string& name) {
  const std::string msg = e.what();
  const std::size_t at = name.size() + 1;
  if (!msg.starts_with(name + ":") || msg.size() <= at || msg[at] < '1' || msg[at] > '9')
    std::abort();
}

constexpr loom::read_options options{.max_dense_elements = 1 << 16};  // fast, below malloc caps

// Reads `text` as Matrix Market; when it loads, writing and reading again gives the same entries.
template <class T, class Format>
void read_matrix_market_as(const std::string& text) {
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

// The same for FROSTT text, read with the shape of the first reading.
template <class T, class Format>
void read_tns_as(const std::string& text) {
  std::istringstream in(text);
  try {
    const auto A = loom::read_tns<T, Format>(in, "fuzz.tns", options);
    std::stringstream out;
    loom::write_tns(out, A);
    try {
      check_same_entries(A, loom::read_tns<T, Format>(out, "rewritten.tns", A.shape(), options));
    } catch (const loom::error&) {
      std::abort();
    }
  } catch (const loom::parse_error& e) {
    check_message(e, "fuzz.tns");
  } catch (const loom::error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  read_matrix_market_as<double, loom::csr>(text);
  read_matrix_market_as<int, loom::coo>(text);
  read_tns_as<double, loom::coo_n<3>>(text);
  return 0;
}

#ifndef LOOM_FUZZ_LIBFUZZER
#  include <doctest/doctest.h>

#  include <filesystem>
#  include <fstream>
#  include <iterator>

TEST_CASE("fuzz_matrix_market: the regression corpus and the data files pass the fuzz entry") {
  std::vector<std::filesystem::path> dirs = {std::filesystem::path(__FILE__).parent_path() /
                                             "corpus"};
#  ifdef LOOM_DATA_DIR
  dirs.emplace_back(LOOM_DATA_DIR);
#  endif
  int inputs = 0;
  for (const auto& dir : dirs) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), {}};
      CAPTURE(entry.path().string());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  CHECK(inputs > 0);
}
#endif
