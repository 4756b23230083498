// What the fuzz targets of tests/fuzz share: comparing two tensors' entries, the shape of a
// parse_error's message, and (without LOOM_FUZZ_LIBFUZZER) replaying a corpus folder as a doctest.
// SPDX-License-Identifier: BSL-1.0
//
// Each target defines `int fuzz_one(const std::uint8_t*, std::size_t)` in an unnamed namespace
// and ends with LOOM_FUZZ_ENTRY(<corpus folder>, fuzz_one): with LOOM_FUZZ_LIBFUZZER that is
// libFuzzer's LLVMFuzzerTestOneInput, otherwise a test case of tests.fuzz that passes every file
// of tests/fuzz/corpus/<folder> to fuzz_one (so all the targets link into one executable).
#ifndef LOOM_TESTS_FUZZ_FUZZ_SUPPORT_HPP
#define LOOM_TESTS_FUZZ_FUZZ_SUPPORT_HPP

#include <loom/core/error.hpp>
#include <loom/format/tensor.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loom_fuzz {

/// a == b, where two NaNs are the same (also inside a semiring wrapper such as min_plus).
template <class T> bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  } else if constexpr (requires { a.value; }) {
    return same_value(a.value, b.value);
  }
  return a == b;
}

/// Aborts unless A and B have the same shape and the same stored entries in the same order.
template <class T, class Format, bool OwningA, bool OwningB, std::size_t N = Format::order>
void check_same_entries(const loom::basic_tensor<T, Format, OwningA>& A,
                        const loom::basic_tensor<T, Format, OwningB>& B) {
  std::vector<std::pair<std::array<std::int64_t, N>, T>> a, b;
  A.for_each_stored([&](const auto& c, const T& v) { a.emplace_back(c, v); });
  B.for_each_stored([&](const auto& c, const T& v) { b.emplace_back(c, v); });
  if (A.shape() != B.shape() || a.size() != b.size()) std::abort();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].first != b[k].first || !same_value(a[k].second, b[k].second)) std::abort();
}

/// A parse_error must say `name:line: `; one about the rewritten text is a writer bug.
inline void check_message(const loom::error& e, const std::string& name) {
  const std::string msg = e.what();
  const std::size_t at = name.size() + 1;
  if (!msg.starts_with(name + ":") || msg.size() <= at || msg[at] < '1' || msg[at] > '9')
    std::abort();
}

}  // namespace loom_fuzz

#ifdef LOOM_FUZZ_LIBFUZZER
#  define LOOM_FUZZ_ENTRY(folder, fn)                                                   \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
      return fn(data, size);                                                            \
    }
#else
#  include <doctest/doctest.h>

#  include <filesystem>
#  include <fstream>
#  include <iterator>

namespace loom_fuzz {
/// Passes every file of each folder to `fn`; returns how many there were.
inline int replay(const std::vector<std::filesystem::path>& dirs,
                  int (*fn)(const std::uint8_t*, std::size_t)) {
  int inputs = 0;
  for (const auto& dir : dirs) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes{std::istreambuf_iterator<char>(in), {}};
      CAPTURE(entry.path().string());
      fn(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  return inputs;
}
inline std::filesystem::path corpus(const char* folder) {
  return std::filesystem::path(__FILE__).parent_path() / "corpus" / folder;
}
}  // namespace loom_fuzz

#  define LOOM_FUZZ_ENTRY(folder, fn)                                                 \
    TEST_CASE("fuzz " folder ": every file of tests/fuzz/corpus/" folder " passes") { \
      CHECK(loom_fuzz::replay({loom_fuzz::corpus(folder)}, fn) > 0);                  \
    }
#endif

#endif  // LOOM_TESTS_FUZZ_FUZZ_SUPPORT_HPP
