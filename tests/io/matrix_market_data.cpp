// Tests read_matrix_market on every file of the shared data folder: each loads or names its flaw.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// The value type a file is read as: mostly what its `%%GraphBLAS type` comment says.
enum class kind { f64, f32, i8, i16, i32, i64, u8, u16, u32, u64, boolean };

template <class F> void with_value_type(kind k, F&& f) {
  switch (k) {
    case kind::f64:
      return f(std::type_identity<double>{});
    case kind::f32:
      return f(std::type_identity<float>{});
    case kind::i8:
      return f(std::type_identity<std::int8_t>{});
    case kind::i16:
      return f(std::type_identity<std::int16_t>{});
    case kind::i32:
      return f(std::type_identity<std::int32_t>{});
    case kind::i64:
      return f(std::type_identity<std::int64_t>{});
    case kind::u8:
      return f(std::type_identity<std::uint8_t>{});
    case kind::u16:
      return f(std::type_identity<std::uint16_t>{});
    case kind::u32:
      return f(std::type_identity<std::uint32_t>{});
    case kind::u64:
      return f(std::type_identity<std::uint64_t>{});
    case kind::boolean:
      return f(std::type_identity<loom::boolean>{});
  }
}

// One expected outcome. `line == 0`: the file loads as rows x cols with `stored` entries
// (symmetric files: 2 * off-diagonal + diagonal). Else reading throws loom::parse_error whose
// message contains `<file>:<line>:` and `what`.
struct expectation {
  const char* file;
  kind type;
  std::int64_t rows, cols, stored;
  std::int64_t line = 0;
  const char* what = "";
  loom::duplicates policy = loom::duplicates::sum;
};

constexpr auto error_policy = loom::duplicates::error;

// Every file of LOOM_DATA_DIR; a new file must be added here (checked below).
const std::vector<expectation> table = {
    // loads --------------------------------------------------------------------------------------
    {"A.mtx", kind::boolean, 7, 7, 30},  // pattern symmetric, 15 off-diagonal
    {"A2.mtx", kind::boolean, 7, 7, 30},
    {"LFAT5.mtx", kind::f64, 14, 14, 46},  // 30 stored: 14 diagonal + 16 off-diagonal
    {"LFAT5_hypersparse.mtx", kind::f64, 2000, 2000, 46},
    {"LFAT5_two.mtx", kind::f64, 28, 28, 92},
    {"bcsstk13.mtx", kind::f64, 2003, 2003, 83883},
    {"comments_cover.mtx", kind::i32, 7, 7, 12},
    {"comments_full.mtx", kind::f64, 3, 3, 9},          // array
    {"comments_west0067.mtx", kind::f64, 67, 67, 295},  // one value is nan
    {"cover.mtx", kind::i32, 7, 7, 12},
    {"cover_structure.mtx", kind::boolean, 7, 7, 12},
    {"cryg2500.mtx", kind::f64, 2500, 2500, 12349},
    {"empty.mtx", kind::i32, 3, 4, 0},
    {"full.mtx", kind::f64, 3, 3, 9},
    {"full_symmetric.mtx", kind::f64, 4, 4, 16},  // array symmetric: 10 values, lower triangle
    {"jagmesh7.mtx", kind::boolean, 1138, 1138, 7450},
    {"karate.mtx", kind::boolean, 34, 34, 156},
    {"ldbc-cdlp-directed-example.mtx", kind::boolean, 8, 8, 18},
    {"ldbc-cdlp-undirected-example.mtx", kind::boolean, 8, 8, 24},
    {"ldbc-directed-example-bool.mtx", kind::boolean, 10, 10, 17},
    {"ldbc-directed-example-unweighted.mtx", kind::boolean, 10, 10, 17},
    {"ldbc-directed-example.mtx", kind::f64, 10, 10, 17},
    {"ldbc-undirected-example-bool.mtx", kind::boolean, 9, 9, 24},  // upper triangle stored
    {"ldbc-undirected-example-unweighted.mtx", kind::boolean, 9, 9, 24},
    {"ldbc-undirected-example.mtx", kind::f64, 9, 9, 24},
    {"ldbc-wcc-example.mtx", kind::i64, 10, 10, 30},
    {"lp_afiro.mtx", kind::f64, 27, 51, 102},
    {"lp_afiro_structure.mtx", kind::boolean, 27, 51, 102},
    {"matrix_bool.mtx", kind::boolean, 7, 7, 12},  // explicit false entries are stored
    {"matrix_fp32.mtx", kind::f32, 7, 7, 12},      // inf and -inf in an integer field
    {"matrix_fp32_structure.mtx", kind::boolean, 7, 7, 12},
    {"matrix_fp64.mtx", kind::f64, 7, 7, 12},
    {"matrix_int16.mtx", kind::i16, 7, 7, 12},
    {"matrix_int32.mtx", kind::i32, 7, 7, 12},
    {"matrix_int64.mtx", kind::i64, 7, 7, 12},
    {"matrix_int8.mtx", kind::i8, 7, 7, 12},
    {"matrix_uint16.mtx", kind::u16, 7, 7, 12},
    {"matrix_uint32.mtx", kind::u32, 7, 7, 12},
    {"matrix_uint64.mtx", kind::u64, 7, 7, 12},
    {"matrix_uint8.mtx", kind::u8, 7, 7, 12},
    {"msf1.mtx", kind::i64, 6, 6, 8},
    {"msf2.mtx", kind::i64, 8, 8, 12},
    {"msf3.mtx", kind::i64, 5, 5, 7},
    {"olm1000.mtx", kind::f64, 1000, 1000, 3996},
    {"pushpull.mtx", kind::boolean, 4000, 4000, 196305},
    {"sample.mtx", kind::boolean, 8, 8, 12},
    {"sample2.mtx", kind::boolean, 8, 8, 28},
    {"skew_fp32.mtx", kind::f32, 6, 6, 20},
    {"skew_fp64.mtx", kind::f64, 6, 6, 20},
    {"skew_int16.mtx", kind::i16, 6, 6, 20},
    {"skew_int32.mtx", kind::i32, 6, 6, 20},
    {"skew_int64.mtx", kind::i64, 6, 6, 20},
    {"skew_int8.mtx", kind::i8, 6, 6, 20},
    {"sources_7.mtx", kind::i64, 64, 1, 64},
    {"structure.mtx", kind::i32, 7, 7, 12},  // pattern read as int32: every value is 1
    {"test_BF.mtx", kind::f64, 7, 7, 12},
    {"test_FW_1000.mtx", kind::f64, 1000, 1000, 3996},
    {"test_FW_2003.mtx", kind::f64, 2003, 2003, 23973},
    {"test_FW_2500.mtx", kind::f64, 2500, 2500, 7852},
    {"tree-example.mtx", kind::i64, 6, 6, 10},
    {"west0067.mtx", kind::f64, 67, 67, 294},
    {"west0067_jumbled.mtx", kind::f64, 67, 67, 294},  // entries out of order, blank lines
    {"zenios.mtx", kind::f64, 2873, 2873, 27191},
    // mangled only for the type its GraphBLAS comment names: fine as double
    {"mangled14.mtx", kind::f64, 3, 4, 2},  // a duplicate, summed by default
    {"mangled_bool.mtx", kind::f64, 7, 7, 12},
    {"mangled_int16.mtx", kind::f64, 7, 7, 12},
    {"mangled_int32.mtx", kind::f64, 7, 7, 12},
    {"mangled_int8.mtx", kind::f64, 7, 7, 12},
    {"mangled_uint16.mtx", kind::f64, 7, 7, 12},
    {"mangled_uint32.mtx", kind::f64, 7, 7, 12},
    {"mangled_uint8.mtx", kind::f64, 7, 7, 12},
    {"mangled_skew.mtx", kind::i16, 6, 6, 20},
    // errors -------------------------------------------------------------------------------------
    {"comments.txt", kind::f64, 0, 0, 0, 1, "expected the banner"},
    {"complex.mtx", kind::f64, 0, 0, 0, 1, "complex field is not supported"},
    {"full_noheader.mtx", kind::f64, 0, 0, 0, 1, "expected the banner"},
    {"garbage.lagraph", kind::f64, 0, 0, 0, 1, "expected the banner"},
    {"west0067_noheader.mtx", kind::f64, 0, 0, 0, 1, "expected the banner"},
    {"mangled1.mtx", kind::boolean, 0, 0, 0, 1, "unknown object 'mangled'"},
    {"mangled2.mtx", kind::boolean, 0, 0, 0, 1, "unknown format 'mangled'"},
    {"mangled3.mtx", kind::boolean, 0, 0, 0, 1, "unknown field 'mangled'"},
    {"mangled4.mtx", kind::boolean, 0, 0, 0, 1, "unknown symmetry 'mangled'"},
    {"mangled5.mtx", kind::boolean, 0, 0, 0, 1, "hermitian symmetry is not supported"},
    {"mangled6.mtx", kind::f64, 0, 0, 0, 1, "hermitian symmetry is not supported"},
    {"mangled7.mtx", kind::f64, 0, 0, 0, 5, "expected an entry 'row column value'"},
    {"mangled8.mtx", kind::f64, 0, 0, 0, 4, "the size line '3' has 1 number"},
    {"mangled9.mtx", kind::f64, 0, 0, 0, 4, "must be square"},
    {"mangled10.mtx", kind::f64, 0, 0, 0, 6, "declares 3 entries, but the file holds only 2"},
    {"mangled11.mtx", kind::f64, 0, 0, 0, 5, "column index 'zero' is not an integer"},
    {"mangled12.mtx", kind::f64, 0, 0, 0, 5, "expected an entry 'row column value'"},
    {"mangled13.mtx", kind::f64, 0, 0, 0, 7, "column index '9999' is outside 1..4"},
    {"mangled14.mtx", kind::f64, 0, 0, 0, 8, "duplicate entry (2,2), first given at line 7",
     error_policy},
    {"mangled15.mtx", kind::f64, 0, 0, 0, 5, "unexpected token '.959'"},
    {"mangled16.mtx", kind::f64, 0, 0, 0, 5, "unexpected token '.959'"},
    {"mangled_bool.mtx", kind::boolean, 0, 0, 0, 10, "value '2' is not a boolean"},
    {"mangled_format.mtx", kind::i64, 0, 0, 0, 1, "'array pattern' is not a valid combination"},
    {"mangled_int16.mtx", kind::i16, 0, 0, 0, 8,
     "value '-32769' does not fit the value type int16"},
    {"mangled_int32.mtx", kind::i32, 0, 0, 0, 8, "value '-2147483649' does not fit"},
    {"mangled_int8.mtx", kind::i8, 0, 0, 0, 8, "value '-129' does not fit the value type int8"},
    {"mangled_skew.mtx", kind::u8, 0, 0, 0, 4,
     "value '12' has no negation in the value type uint8"},
    {"mangled_uint16.mtx", kind::u16, 0, 0, 0, 9, "value '65536' does not fit"},
    {"mangled_uint32.mtx", kind::u32, 0, 0, 0, 9, "value '4294967296' does not fit"},
    {"mangled_uint8.mtx", kind::u8, 0, 0, 0, 9, "value '256' does not fit the value type uint8"},
};

// appended in place: `std::string(LOOM_DATA_DIR) + "/" + file` draws a false -Warray-bounds from
// g++ 12 -O1 when loom.hpp comes first (the tests' precompiled header)
std::string data_path(const std::string& file) {
  std::string path = LOOM_DATA_DIR;
  path += '/';
  path += file;
  return path;
}

template <class T, class Format> void check_loads(const expectation& x) {
  const auto A = loom::read_matrix_market<T, Format>(data_path(x.file), x.policy);
  CHECK(A.shape()[0] == x.rows);
  CHECK(A.shape()[1] == x.cols);
  if constexpr (Format::all_dense)
    CHECK(A.nnz() == x.rows * x.cols);
  else
    CHECK(A.nnz() == x.stored);
  CHECK(A.name() == data_path(x.file));
}

template <class T> void check_fails(const expectation& x) {
  const std::string path = data_path(x.file);
  try {
    (void)loom::read_matrix_market<T, loom::csr>(path, x.policy);
    FAIL("no exception; expected line " << x.line << ": " << x.what);
  } catch (const loom::parse_error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.starts_with(path + ":" + std::to_string(x.line) + ": "));
    CHECK(msg.find(x.what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("read_matrix_market: every file of the data folder loads or names its flaw") {
  for (const expectation& x : table) {
    CAPTURE(x.file);
    with_value_type(x.type, [&]<class T>(std::type_identity<T>) {
      if (x.line == 0) {
        check_loads<T, loom::csr>(x);
        // a second format, with non-unique levels; narrow integer types only in csr (compile time)
        if constexpr (std::is_same_v<T, double> || std::is_same_v<T, loom::boolean> ||
                      std::is_same_v<T, std::int64_t>)
          check_loads<T, loom::coo>(x);
      } else {
        check_fails<T>(x);
      }
    });
  }
}

TEST_CASE("read_matrix_market: the table lists every file of the data folder") {
  std::set<std::string> listed;
  for (const expectation& x : table) listed.insert(x.file);
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOOM_DATA_DIR)) {
    // README.md describes the folder (sources, licence); it is not test data
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    ++seen;
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    CHECK_MESSAGE(listed.count(name) == 1,
                  "a new data file: add it to the table in tests/io/matrix_market_data.cpp");
  }
  CHECK(seen == listed.size());
}

TEST_CASE("read_matrix_market: data files in other formats agree") {
  for (const char* file : {"west0067.mtx", "west0067_jumbled.mtx", "lp_afiro.mtx", "full.mtx",
                           "skew_fp64.mtx", "LFAT5.mtx"}) {
    CAPTURE(file);
    const auto A = loom::read_matrix_market<double, loom::csr>(data_path(file));
    const auto B = loom::read_matrix_market<double, loom::dcsc>(data_path(file));
    const auto D = loom::read_matrix_market<double, loom::dense_matrix>(data_path(file));
    REQUIRE(A.nnz() == B.nnz());
    A.for_each_stored([&](const std::array<std::int64_t, 2>& c, double v) {
      CHECK(B.at(c[0], c[1]) == v);
      CHECK(D.at(c[0], c[1]) == v);
    });
  }
}

TEST_CASE("read_matrix_market: values of the data files") {
  SUBCASE("jumbled and ordered west0067 hold the same matrix") {
    const auto A = loom::read_matrix_market<double, loom::csr>(data_path("west0067.mtx"));
    const auto B = loom::read_matrix_market<double, loom::csr>(data_path("west0067_jumbled.mtx"));
    CHECK(std::equal(A.values().begin(), A.values().end(), B.values().begin(), B.values().end()));
    CHECK(A.at(54, 66) == 1.0);  // last line: 55 67 1
  }
  SUBCASE("extreme integers, infinities, nan") {
    const auto i64 =
        loom::read_matrix_market<std::int64_t, loom::csr>(data_path("matrix_int64.mtx"));
    CHECK(i64.at(3, 0) == -9223372036854775800);
    CHECK(i64.at(0, 1) == std::numeric_limits<std::int64_t>::max());
    const auto u64 =
        loom::read_matrix_market<std::uint64_t, loom::csr>(data_path("matrix_uint64.mtx"));
    CHECK(u64.at(0, 1) == std::numeric_limits<std::uint64_t>::max());
    const auto i8 = loom::read_matrix_market<std::int8_t, loom::csr>(data_path("matrix_int8.mtx"));
    CHECK(i8.at(3, 0) == -128);
    const auto f32 = loom::read_matrix_market<float, loom::csr>(data_path("matrix_fp32.mtx"));
    CHECK(f32.at(3, 0) == -std::numeric_limits<float>::infinity());
    CHECK(f32.at(0, 1) == std::numeric_limits<float>::infinity());
    const auto w = loom::read_matrix_market<double, loom::csr>(data_path("comments_west0067.mtx"));
    CHECK(std::isnan(w.at(0, 0)));
  }
  SUBCASE("skew-symmetric mirrors with negation") {
    const auto S = loom::read_matrix_market<std::int64_t, loom::csr>(data_path("skew_int64.mtx"));
    CHECK(S.at(4, 0) == std::numeric_limits<std::int64_t>::max());
    CHECK(S.at(0, 4) == -std::numeric_limits<std::int64_t>::max());
    CHECK(S.at(3, 2) == 0);  // a stored zero, and its mirror
    CHECK(S.at(2, 3) == 0);
    const auto F = loom::read_matrix_market<double, loom::csr>(data_path("skew_fp64.mtx"));
    CHECK(F.at(4, 0) == std::numeric_limits<double>::infinity());
    CHECK(F.at(0, 4) == -std::numeric_limits<double>::infinity());
  }
  SUBCASE("booleans keep explicit false entries") {
    const auto B = loom::read_matrix_market<loom::boolean, loom::csr>(data_path("matrix_bool.mtx"));
    CHECK(B.at(3, 0) == loom::boolean(false));
    CHECK(B.at(0, 1) == loom::boolean(true));
  }
  SUBCASE("symmetric arrays mirror the lower triangle") {
    const auto S =
        loom::read_matrix_market<double, loom::dense_matrix>(data_path("full_symmetric.mtx"));
    CHECK(S.at(1, 0) == 18.18952178955078);
    CHECK(S.at(0, 1) == 18.18952178955078);
    CHECK(S.at(3, 3) == 3.9635860919952393);
  }
  SUBCASE("duplicates: sum by default, last on request") {
    const auto sum = loom::read_matrix_market<double, loom::csr>(data_path("mangled14.mtx"));
    CHECK(sum.at(1, 1) == 3.4 + 7.1);
    const auto last = loom::read_matrix_market<double, loom::csr>(data_path("mangled14.mtx"),
                                                                  loom::duplicates::last);
    CHECK(last.at(1, 1) == 7.1);
  }
}
