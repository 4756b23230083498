// libFuzzer target of the FROSTT reader: any bytes load or throw loom::error, and round-trip
// when loaded.
// SPDX-License-Identifier: BSL-1.0
//
// Build and run it with clang (tests/fuzz/CMakeLists.txt, docs/testing.md "Fuzzing"):
//   ./fuzz_tns -max_total_time=120 -max_len=4096 -dict=tests/fuzz/tns.dict
//           corpus/ tests/fuzz/corpus/tns
// The bytes go to read_tns as csf<3> of double (duplicates summed), coo_n<4> of int
// (duplicates an error), an order-2 doubly compressed matrix of float with 16-bit positions and
// coordinates (duplicates: the last one kept; wide coordinates must be an overflow_error) and a
// dense vector of min_plus<double>. Any exception other than loom::error escapes and aborts; so
// does a parse_error without `name:line:`, or a loaded tensor that does not read back the same
// after write_tns (read with the first reading's shape). Without LOOM_FUZZ_LIBFUZZER, a doctest
// of tests.fuzz replays tests/fuzz/corpus/tns.
#include <loom/format.hpp>
#include <loom/io/tns.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"

namespace {

using narrow = loom::compressed_level<loom::uniqueness::unique, std::uint16_t, std::int16_t>;

template <class T, class Format>
void read_tns_as(const std::string& text, loom::duplicates policy) {
  const loom::read_options options{.policy = policy, .max_dense_elements = 1 << 16};
  std::istringstream in(text);
  try {
    const auto A = loom::read_tns<T, Format>(in, "fuzz.tns", options);
    std::stringstream out;
    loom::write_tns(out, A);
    try {
      loom_fuzz::check_same_entries(
          A, loom::read_tns<T, Format>(out, "rewritten.tns", A.shape(), options));
    } catch (const loom::error&) {
      std::abort();  // the writer wrote what cannot be read
    }
  } catch (const loom::parse_error& e) {
    loom_fuzz::check_message(e, "fuzz.tns");
  } catch (const loom::error&) {
  }
}

int fuzz_one(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  read_tns_as<double, loom::csf<3>>(text, loom::duplicates::sum);
  read_tns_as<int, loom::coo_n<4>>(text, loom::duplicates::error);
  read_tns_as<float, loom::format<narrow, narrow>>(text, loom::duplicates::last);
  read_tns_as<loom::min_plus<double>, loom::dense_vector>(text, loom::duplicates::sum);
  return 0;
}

}  // namespace

LOOM_FUZZ_ENTRY("tns", fuzz_one)
