// A deterministic mini fuzz of read_matrix_market: mutated data files load or throw loom::error.
// SPDX-License-Identifier: BSL-1.0
//
// tests/fuzz/fuzz_matrix_market.cpp is the libFuzzer target; this test keeps its guarantee in
// CI without libFuzzer: about 2000 fixed mutations (truncations, byte flips, duplicated, dropped
// and swapped lines, inserted tokens) of every .mtx file, read into several formats and value
// types. Reading must succeed or throw a loom::error; a parse_error must say `name:line: `.
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct mutator {
  std::mt19937_64 rng;  // its output sequence is fixed by the standard
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); }

  // [begin, end) of every line, the newline included.
  static std::vector<std::pair<std::size_t, std::size_t>> lines(const std::string& s) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t b = 0;
    while (b < s.size()) {
      const std::size_t e = std::min(s.find('\n', b), s.size() - 1) + 1;
      out.emplace_back(b, e);
      b = e;
    }
    return out;
  }

  void mutate_once(std::string& s) {
    static const std::vector<std::string> tokens = {
        "-1",
        "0",
        "99999999999999999999",
        "nan",
        "inf",
        "%",
        "\n",
        " ",
        "1e308",
        "-",
        "%%MatrixMarket matrix coordinate real general\n",
        "symmetric",
        "skew-symmetric",
        "array",
        "pattern",
        std::string(1, '\0'),
        "\r",
        "9223372036854775807",
        "1.5",
        "\t",
        "2147483648"};
    const auto ls = lines(s);
    switch (below(7)) {
      case 0:  // truncate
        s.resize(below(s.size() + 1));
        break;
      case 1:  // overwrite one to four bytes
        for (std::size_t k = 1 + below(4); k > 0 && !s.empty(); --k) {
          const std::size_t at = below(s.size());  // one statement each: a fixed draw order
          s[at] = static_cast<char>(below(256));
        }
        break;
      case 2:  // duplicate a line
        if (!ls.empty()) {
          const auto [b, e] = ls[below(ls.size())];
          s.insert(e, s.substr(b, e - b));
        }
        break;
      case 3:  // drop a line
        if (!ls.empty()) {
          const auto [b, e] = ls[below(ls.size())];
          s.erase(b, e - b);
        }
        break;
      case 4:  // swap two lines
        if (ls.size() >= 2) {
          auto x = ls[below(ls.size())], y = ls[below(ls.size())];
          if (x.first > y.first) std::swap(x, y);
          if (x.first != y.first) {
            const std::string a = s.substr(x.first, x.second - x.first);
            const std::string b = s.substr(y.first, y.second - y.first);
            s.replace(y.first, b.size(), a);
            s.replace(x.first, a.size(), b);
          }
        }
        break;
      case 5: {  // insert a token
        const std::size_t at = below(s.size() + 1);
        s.insert(at, tokens[below(tokens.size())]);
        break;
      }
      default:  // change a digit
        for (std::size_t tries = 0; tries < 64 && !s.empty(); ++tries) {
          char& c = s[below(s.size())];
          if (c >= '0' && c <= '9') {
            c = static_cast<char>('0' + below(10));
            break;
          }
        }
    }
  }
};

struct tally {
  int cases = 0, loaded = 0, rejected = 0;
};

// Reads `text` as `T` in `Format`: it must load, or throw a loom::error with a proper message.
template <class T, class Format>
void read_mutant(const std::string& text, const std::string& name, tally& t) {
  std::istringstream in(text);
  try {
    const auto A = loom::read_matrix_market<T, Format>(
        in, name, loom::read_options{.max_dense_elements = std::int64_t{1} << 22});
    CHECK(A.shape()[0] >= 0);
    CHECK(A.shape()[1] >= 0);
    ++t.loaded;
  } catch (const loom::parse_error& e) {
    const std::string msg = e.what();
    const std::size_t colon = name.size() + 1;
    const bool located = msg.starts_with(name + ":") && colon < msg.size() && msg[colon] >= '1' &&
                         msg[colon] <= '9' && msg.find(": ", colon) != std::string::npos;
    CHECK_MESSAGE(located, msg);
    ++t.rejected;
  } catch (const loom::error& e) {
    CHECK_MESSAGE(std::string(e.what()).starts_with(name + ":"), e.what());
    ++t.rejected;
  } catch (const std::exception& e) {
    FAIL_CHECK("not a loom::error: " << e.what() << "\ninput:\n" << text);
  }
}

}  // namespace

TEST_CASE("read_matrix_market: mutated data files load or throw loom::error") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(LOOM_DATA_DIR))
    if (entry.is_regular_file() && entry.path().extension() == ".mtx")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());

  tally t;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string original{std::istreambuf_iterator<char>(in), {}};
    const std::string file = path.filename().string();
    mutator m{std::mt19937_64(fnv1a(file))};
    const int cases = original.size() > 16384 ? 6 : 24;  // big files parse slowly under ASan
    for (int k = 0; k < cases; ++k) {
      std::string text = original;
      for (std::size_t n = 1 + m.below(3); n > 0; --n) m.mutate_once(text);
      const std::string name = file + "#" + std::to_string(k);
      CAPTURE(name);
      read_mutant<double, loom::csr>(text, name, t);
      switch (k % 3) {
        case 0:
          read_mutant<std::int32_t, loom::coo>(text, name, t);
          break;
        case 1:
          read_mutant<loom::boolean, loom::dcsc>(text, name, t);
          break;
        default:
          read_mutant<float, loom::dense_matrix>(text, name, t);
          break;
      }
      ++t.cases;
    }
  }
  MESSAGE("mini fuzz: " << t.cases << " mutants, " << t.loaded << " reads loaded, " << t.rejected
                        << " rejected");
  CHECK(t.cases >= 1900);
  CHECK(t.rejected > 0);
  CHECK(t.loaded > 0);
}
