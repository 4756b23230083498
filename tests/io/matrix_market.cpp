// Tests read_matrix_market on inline inputs: the format's rules, value types and every error.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

namespace {

template <class T, class Format = loom::csr>
loom::tensor<T, Format> read_text(const std::string& text, const loom::read_options& options = {}) {
  std::istringstream in(text);
  return loom::read_matrix_market<T, Format>(in, "inline.mtx", options);
}

/// The message of the parse_error that reading `text` as `T` throws ("" if none).
template <class T = double, class Format = loom::csr>
std::string parse_failure(const std::string& text, const loom::read_options& options = {}) {
  try {
    (void)read_text<T, Format>(text, options);
  } catch (const loom::parse_error& e) {
    return e.what();
  }
  return "";
}

constexpr const char* general_header = "%%MatrixMarket matrix coordinate real general\n";

}  // namespace

TEST_CASE("read_matrix_market: symmetric files mirror off-diagonal entries") {
  const auto A = read_text<double>(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 2.5\n"
      "2 1 -1\n"
      "3 2 4\n"
      "1 3 7\n");  // the upper triangle is accepted too
  CHECK(A.nnz() == 7);
  CHECK(A.at(0, 0) == 2.5);
  CHECK(A.at(1, 0) == -1);
  CHECK(A.at(0, 1) == -1);
  CHECK(A.at(2, 1) == 4);
  CHECK(A.at(1, 2) == 4);
  CHECK(A.at(0, 2) == 7);
  CHECK(A.at(2, 0) == 7);
  CHECK(A.at(1, 1) == 0);
}

TEST_CASE("read_matrix_market: skew-symmetric files mirror with negation") {
  const auto A = read_text<std::int32_t, loom::dcsr>(
      "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
      "3 3 2\n"
      "2 1 5\n"
      "3 2 -7\n");
  CHECK(A.nnz() == 4);
  CHECK(A.at(1, 0) == 5);
  CHECK(A.at(0, 1) == -5);
  CHECK(A.at(2, 1) == -7);
  CHECK(A.at(1, 2) == 7);
  CHECK(A.at(0, 0) == 0);

  const auto S = read_text<double, loom::dense_matrix>(
      "%%MatrixMarket matrix array real skew-symmetric\n"
      "3 3\n"
      "1\n2\n3\n");  // column by column, strictly below the diagonal: (2,1) (3,1) (3,2)
  CHECK(S.at(1, 0) == 1);
  CHECK(S.at(2, 0) == 2);
  CHECK(S.at(2, 1) == 3);
  CHECK(S.at(0, 2) == -2);
  CHECK(S.at(1, 2) == -3);

  CHECK(parse_failure<std::int32_t>("%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                    "3 3 1\n2 2 5\n")
            .starts_with("inline.mtx:3: entry (2,2) lies on the diagonal"));
  CHECK(parse_failure<std::int8_t>("%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                   "3 3 1\n2 1 -128\n")
            .starts_with("inline.mtx:3: value '-128' has no negation in the value type int8"));
  CHECK(parse_failure<loom::boolean>("%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                     "3 3 1\n2 1 1\n")
            .starts_with("inline.mtx:3: value '1' has no negation"));
  CHECK(parse_failure("%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 0\n")
            .starts_with("inline.mtx:1: 'pattern skew-symmetric' is not a valid combination"));
}

TEST_CASE("read_matrix_market: array files are column-major") {
  const auto A = read_text<double, loom::dense_matrix>(
      "%%MatrixMarket matrix array real general\n"
      "2 3\n"
      "1\n2\n3\n4\n5\n6\n");
  CHECK(A.at(0, 0) == 1);
  CHECK(A.at(1, 0) == 2);
  CHECK(A.at(0, 1) == 3);
  CHECK(A.at(1, 2) == 6);
  // zeros of an array are values: a sparse format stores them
  const auto B = read_text<double>("%%MatrixMarket matrix array real general\n2 1\n0\n0\n");
  CHECK(B.nnz() == 2);
  const auto S = read_text<double>("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n");
  CHECK(S.at(1, 0) == 2);
  CHECK(S.at(0, 1) == 2);
  CHECK(S.at(1, 1) == 3);
  CHECK(parse_failure("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n")
            .starts_with("inline.mtx:5: unexpected end of input: the 2 x 2 array (line 2) needs "
                         "4 values, but the file holds only 3"));
  CHECK(parse_failure("%%MatrixMarket matrix array real general\n1 1\n1\n2\n")
            .starts_with("inline.mtx:4: more values than the 1 the size line (line 2) declares"));
  CHECK(parse_failure("%%MatrixMarket matrix array real general\n1 1 1\n1\n")
            .starts_with("inline.mtx:2: unexpected token '1' on the size line"));
  CHECK(parse_failure("%%MatrixMarket matrix array real symmetric\n2 3\n")
            .starts_with("inline.mtx:2: a symmetric matrix must be square"));
  CHECK(parse_failure("%%MatrixMarket matrix array real general\n"
                      "4000000000 4000000000\n")
            .starts_with("inline.mtx:2: the array holds 4000000000 x 4000000000 values, more "
                         "than 2^63"));
}

TEST_CASE("read_matrix_market: keywords, comments, blanks and line ends") {
  const auto A = read_text<double>(
      "%%matrixmarket MATRIX Coordinate DOUBLE General\r\n"
      "% a comment\r\n"
      "\r\n"
      "   \t\r\n"
      "2 2 2\r\n"
      "% a comment between entries\r\n"
      "1\t1   1.5\r\n"
      "\r\n"
      "  2 2 +2e0  \r\n"
      "% and after them\r\n");
  CHECK(A.nnz() == 2);
  CHECK(A.at(0, 0) == 1.5);
  CHECK(A.at(1, 1) == 2.0);
  // append, not +: g++ 12 -O1 warns falsely (-Warray-bounds) about the temporary's move when
  // loom.hpp comes first (the tests' precompiled header)
  const auto no_final_newline =
      read_text<double>(std::string(general_header).append("1 1 1\n1 1 3"));
  CHECK(no_final_newline.at(0, 0) == 3);
}

TEST_CASE("read_matrix_market: value types") {
  const std::string ints =
      "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 -3\n2 2 4\n";
  CHECK(read_text<std::int64_t>(ints).at(0, 0) == -3);
  CHECK(read_text<float>(ints).at(1, 1) == 4.0f);
  CHECK(read_text<loom::min_plus<double>>(ints).at(0, 0) == loom::min_plus<double>(-3));
  CHECK(parse_failure<std::uint32_t>(ints).starts_with(
      "inline.mtx:3: value '-3' does not fit the value type uint32"));
  CHECK(parse_failure<loom::boolean>(ints).starts_with(
      "inline.mtx:3: value '-3' is not a boolean (0 or 1)"));
  CHECK(parse_failure<loom::min_plus<std::uint8_t>>(ints).find(
            "does not fit the value type uint8") != std::string::npos);

  const std::string reals = std::string(general_header) + "1 3 3\n1 1 nan\n1 2 -inf\n1 3 1e-320\n";
  const auto R = read_text<double>(reals);
  CHECK(std::isnan(R.at(0, 0)));
  CHECK(R.at(0, 1) == -std::numeric_limits<double>::infinity());
  CHECK(R.at(0, 2) > 0);                            // a subnormal
  CHECK(read_text<float>(reals).at(0, 2) == 0.0f);  // underflow rounds to zero
  CHECK(parse_failure<std::int32_t>(reals).starts_with(
      "inline.mtx:3: value 'nan' is not an integer, but the value type is int32"));
  CHECK(parse_failure<float>(std::string(general_header) + "1 1 1\n1 1 1e39\n")
            .starts_with("inline.mtx:3: value '1e39' does not fit the value type float"));
  CHECK(parse_failure<std::int32_t>(std::string(general_header) + "1 1 1\n1 1 3.0\n")
            .starts_with("inline.mtx:3: value '3.0' is not an integer"));
  CHECK(parse_failure(std::string(general_header) + "1 1 1\n1 1 1.0x\n")
            .starts_with("inline.mtx:3: value '1.0x' is not a number"));
  CHECK(parse_failure(std::string(general_header) + "1 1 1\n1 1 ++1\n")
            .starts_with("inline.mtx:3: value '++1' is not a number"));

  const std::string pattern = "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1\n";
  CHECK(read_text<double>(pattern).at(1, 0) == 1.0);
  CHECK(read_text<loom::boolean>(pattern).at(1, 0) == loom::boolean(true));
  CHECK(read_text<loom::min_plus<double>>(pattern).at(1, 0) ==
        loom::semiring_traits<loom::min_plus<double>>::one());
}

TEST_CASE("read_matrix_market: malformed headers and size lines name their line") {
  CHECK(parse_failure("").starts_with("inline.mtx:1: the input is empty"));
  CHECK(parse_failure("\n").starts_with("inline.mtx:1: expected the banner"));
  CHECK(parse_failure("%%MatrixMarket matrix coordinate real\n")
            .starts_with("inline.mtx:1: the banner ends before its symmetry"));
  CHECK(parse_failure("%%MatrixMarket\n")
            .starts_with("inline.mtx:1: the banner ends before its object"));
  CHECK(parse_failure("%%MatrixMarket matrix coordinate real general extra\n")
            .starts_with("inline.mtx:1: unexpected word 'extra'"));
  CHECK(parse_failure("%%MatrixMarket vector coordinate real general\n")
            .starts_with("inline.mtx:1: unknown object 'vector'"));
  CHECK(parse_failure("%%MatrixMarket matrix coordinate complex general\n")
            .starts_with("inline.mtx:1: the complex field is not supported yet"));
  CHECK(parse_failure(general_header)
            .starts_with("inline.mtx:1: unexpected end of input: expected the size line 'rows "
                         "columns entries'"));
  CHECK(parse_failure(std::string(general_header) + "% only comments\n\n")
            .starts_with("inline.mtx:3: unexpected end of input"));
  CHECK(parse_failure(std::string(general_header) + "3 3\n")
            .starts_with("inline.mtx:2: the size line '3 3' has 2 number(s)"));
  CHECK(parse_failure(std::string(general_header) + "3 3 1 1\n")
            .starts_with("inline.mtx:2: unexpected token '1' on the size line"));
  CHECK(parse_failure(std::string(general_header) + "-3 3 0\n")
            .starts_with("inline.mtx:2: the number of rows is negative (-3)"));
  CHECK(parse_failure(std::string(general_header) + "3 3 -1\n")
            .starts_with("inline.mtx:2: the number of entries is negative (-1)"));
  CHECK(
      parse_failure(std::string(general_header) + "3 99999999999999999999 0\n")
          .starts_with("inline.mtx:2: the number of columns '99999999999999999999' does not fit"));
  CHECK(parse_failure(std::string(general_header) + "3 x 0\n")
            .starts_with("inline.mtx:2: the number of columns 'x' is not an integer"));
  CHECK(parse_failure(std::string(general_header) + "3 3.0 0\n")
            .starts_with("inline.mtx:2: the number of columns '3.0' is not an integer"));
  CHECK(parse_failure(std::string("%%MatrixMarket matrix coordinate real general\n\x01\xff 2 3\n"))
            .starts_with("inline.mtx:2: the number of rows '\\x01\\xff' is not an integer"));
}

TEST_CASE("read_matrix_market: malformed entries name their line") {
  const std::string h = std::string(general_header) + "3 4 2\n";
  CHECK(parse_failure(h + "1 1 1\n")
            .starts_with("inline.mtx:3: unexpected end of input: the size line (line 2) declares 2 "
                         "entries, but the "
                         "file holds only 1"));
  CHECK(parse_failure(h + "1 1 1\n2 2 2\n3 3 3\n")
            .starts_with("inline.mtx:5: more entries than the 2 the size line (line 2) declares: "
                         "found '3 3 3'"));
  CHECK(parse_failure(h + "1 1 1\n2 2 2\ngarbage\n").starts_with("inline.mtx:5: more entries"));
  CHECK(parse_failure(h + "0 1 1\n")
            .starts_with("inline.mtx:3: row index '0' is outside 1..3 (indices are 1-based)"));
  CHECK(parse_failure(h + "1 5 1\n").starts_with("inline.mtx:3: column index '5' is outside 1..4"));
  CHECK(parse_failure(h + "-1 1 1\n").starts_with("inline.mtx:3: row index '-1' is outside"));
  CHECK(parse_failure(h + "99999999999999999999 1 1\n")
            .starts_with("inline.mtx:3: row index '99999999999999999999' is outside"));
  CHECK(parse_failure(h + "1.5 1 1\n")
            .starts_with("inline.mtx:3: row index '1.5' is not an integer"));
  CHECK(parse_failure(h + "1 1\n")
            .starts_with("inline.mtx:3: expected an entry 'row column value', found '1 1'"));
  CHECK(parse_failure(h + "1 1 1 0\n")
            .starts_with("inline.mtx:3: unexpected token '0' after the entry 'row column value'"));
  CHECK(parse_failure("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 1 1\n")
            .starts_with("inline.mtx:3: unexpected token '1' after the entry 'row column'"));
  CHECK(parse_failure("%%MatrixMarket matrix coordinate real general\n0 0 1\n1 1 1\n")
            .starts_with("inline.mtx:3: row index '1' is out of range: the matrix has no rows"));
}

TEST_CASE("read_matrix_market: duplicates follow the policy") {
  // appended, not `std::string(...) + "..."`: g++ 12 -O1 draws a false -Warray-bounds from the
  // latter once enough of the reader is inlined here
  std::string text(general_header);
  text.append("2 2 3\n1 1 1\n2 2 5\n1 1 2\n");
  CHECK(read_text<double>(text).at(0, 0) == 3);
  CHECK(read_text<double>(text, {.policy = loom::duplicates::last}).at(0, 0) == 2);
  CHECK(parse_failure(text, {.policy = loom::duplicates::error})
            .starts_with("inline.mtx:5: duplicate entry (1,1), first given at line 3"));
  // a symmetric file listing both triangles duplicates its mirror
  const std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 1\n";
  CHECK(read_text<double>(sym).at(1, 0) == 2);
  CHECK(parse_failure(sym, {.policy = loom::duplicates::error})
            .starts_with("inline.mtx:4: duplicate entry"));
}

TEST_CASE("read_matrix_market: huge declared shapes") {
  // hypersparse: sparse formats hold a 10^9 x 10^9 matrix with one entry
  const std::string huge = std::string(general_header) + "1000000000 1000000000 1\n7 999999999 2\n";
  CHECK(read_text<double, loom::coo>(huge).at(6, 999999998) == 2);
  CHECK(read_text<double, loom::dcsr>(huge).nnz() == 1);
  // formats that allocate per row or per value refuse before allocating
  CHECK(parse_failure<double, loom::csr>(huge).starts_with(
      "inline.mtx:2: the shape 1000000000 x 1000000000 needs 1000000002 positions and values"));
  CHECK(parse_failure<double, loom::dense_matrix>(huge).find(
            "loom::read_options::max_dense_elements") != std::string::npos);
  // the limit is an option: csr needs rows + 1 positions
  const std::string tall = std::string(general_header) + "2000 2 1\n2000 2 1\n";
  CHECK(parse_failure<double, loom::csr>(tall, {.max_dense_elements = 1000})
            .starts_with("inline.mtx:2: the shape 2000 x 2 needs 2002 positions and values"));
  CHECK(read_text<double, loom::csr>(tall, {.max_dense_elements = 2000}).nnz() == 1);
  // a coordinate wider than the format's 32-bit coordinates: overflow_error, with file and line
  const std::string wide = std::string(general_header) + "1 5000000000 1\n1 4999999999 1\n";
  try {
    (void)read_text<double, loom::dcsr>(wide);
    FAIL("expected an overflow_error");
  } catch (const loom::overflow_error& e) {
    CHECK(std::string(e.what()).starts_with("inline.mtx:2: loom: largest coordinate of mode 1"));
  }
  // a declared count far beyond the file is only a truncated file
  CHECK(parse_failure(std::string(general_header) + "2 2 9000000000000000000\n1 1 1\n")
            .starts_with("inline.mtx:3: unexpected end of input"));
}

TEST_CASE("read_matrix_market: files and streams") {
  std::string missing(LOOM_DATA_DIR);  // appended: see "duplicates follow the policy"
  missing.append("/no_such_file.mtx");
  try {
    (void)loom::read_matrix_market<double>(missing);
    FAIL("expected an io_error");
  } catch (const loom::io_error& e) {
    std::string quoted("cannot open '");  // appended: see "duplicates follow the policy"
    quoted.append(missing).append("'");
    CHECK(std::string(e.what()).find(quoted) != std::string::npos);
  }
  CHECK_THROWS_AS((void)loom::read_matrix_market<double>(std::string(LOOM_DATA_DIR)),
                  loom::io_error);
  // a stream that throws on failure is read all the same, and keeps its exception mask
  std::string one(general_header);
  one.append("1 1 1\n1 1 4\n");
  std::istringstream in(one);
  in.exceptions(std::ios::failbit | std::ios::badbit);
  CHECK(loom::read_matrix_market<double>(in, "s.mtx").at(0, 0) == 4);
  CHECK(in.exceptions() == (std::ios::failbit | std::ios::badbit));
}
