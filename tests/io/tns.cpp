// Tests read_tns and write_tns: FROSTT files of several orders, errors, round trips.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/io/tns.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

template <class T, class Format>
loom::tensor<T, Format> read_text(const std::string& text, const loom::read_options& options = {}) {
  std::istringstream in(text);
  return loom::read_tns<T, Format>(in, "inline.tns", options);
}

template <class T = double, class Format = loom::csf<3>>
std::string parse_failure(const std::string& text, const loom::read_options& options = {}) {
  try {
    (void)read_text<T, Format>(text, options);
  } catch (const loom::parse_error& e) {
    return e.what();
  }
  return "";
}

template <class T, class Format, std::size_t N = Format::order>
std::vector<std::pair<std::array<std::int64_t, N>, T>> entries(const loom::tensor<T, Format>& A) {
  std::vector<std::pair<std::array<std::int64_t, N>, T>> out;
  A.for_each_stored([&](const auto& c, const T& v) { out.emplace_back(c, v); });
  return out;
}

}  // namespace

TEST_CASE("read_tns: entries, comments and the inferred shape") {
  const auto A = read_text<double, loom::csf<3>>(
      "# a FROSTT tensor\n"
      "1 2 3 1.5\n"
      "\n"
      "% another comment\n"
      "4\t1 1 -2\r\n"
      "  2 5 1 1e3  \n");
  CHECK(A.shape() == std::array<std::int64_t, 3>{4, 5, 3});
  CHECK(A.nnz() == 3);
  CHECK(A.at(0, 1, 2) == 1.5);
  CHECK(A.at(3, 0, 0) == -2);
  CHECK(A.at(1, 4, 0) == 1000);
  CHECK(A.name() == "inline.tns");

  const auto E = read_text<double, loom::coo_n<3>>("# nothing\n");
  CHECK(E.shape() == std::array<std::int64_t, 3>{0, 0, 0});
  CHECK(E.nnz() == 0);

  std::istringstream in("1 1 2\n2 3 4\n");
  const auto S = loom::read_tns<std::int64_t, loom::csr>(in, "m.tns", {5, 5});
  CHECK(S.shape() == std::array<std::int64_t, 2>{5, 5});
  CHECK(S.at(1, 2) == 4);
}

TEST_CASE("read_tns: malformed lines name their line") {
  CHECK(parse_failure("1 2 3 1\n1 2 1\n")
            .starts_with("inline.tns:2: expected 4 tokens, found '1 2 1': an order-3 tensor has 3 "
                         "coordinates and a "
                         "value per line"));
  CHECK(parse_failure("1 2 3 4 5\n")
            .starts_with("inline.tns:1: unexpected token '5' after the value"));
  CHECK(parse_failure("\n\n0 1 1 1\n")
            .starts_with("inline.tns:3: coordinate 1 '0' is below 1 (coordinates are 1-based)"));
  CHECK(parse_failure("1 x 1 1\n").starts_with("inline.tns:1: coordinate 2 'x' is not an integer"));
  CHECK(parse_failure("1 1 99999999999999999999 1\n")
            .starts_with("inline.tns:1: coordinate 3 '99999999999999999999' does not fit"));
  CHECK(parse_failure("1 1 1 one\n").starts_with("inline.tns:1: value 'one' is not a number"));
  CHECK(parse_failure<std::uint8_t>("1 1 1 300\n")
            .starts_with("inline.tns:1: value '300' does not fit the value type uint8"));
  CHECK(parse_failure("1 1 1 1\n1 1 1 2\n", {.policy = loom::duplicates::error})
            .starts_with("inline.tns:2: duplicate entry (1,1,1), first given at line 1"));
  CHECK(read_text<double, loom::csf<3>>("1 1 1 1\n1 1 1 2\n").at(0, 0, 0) == 3);

  std::istringstream outside("1 1 1 1\n3 1 1 1\n");
  try {
    (void)loom::read_tns<double, loom::csf<3>>(outside, "s.tns", {2, 2, 2});
    FAIL("expected a parse_error");
  } catch (const loom::parse_error& e) {
    CHECK(std::string(e.what()).starts_with("s.tns:2: coordinate 1 '3' is outside 1..2"));
  }
  using csf3 = loom::csf<3>;
  std::istringstream negative("1 1 1 1\n");
  const auto read_negative = [&] {
    return loom::read_tns<double, csf3>(negative, "s.tns", {2, -2, 2});
  };
  CHECK_THROWS_AS(read_negative(), loom::shape_error);
  const std::string missing = std::string(LOOM_DATA_DIR) + "/none.tns";
  const auto read_missing = [&] { return loom::read_tns<double, csf3>(missing); };
  CHECK_THROWS_AS(read_missing(), loom::io_error);
}

TEST_CASE("read_tns: huge coordinates") {
  const std::string text = "1 1 1 1\n2 3000000000 1 1\n";
  // the dense levels would need 2 * 3e9 * 1 values: refused, at the line that set the extent
  CHECK(parse_failure<double, loom::dense_n<3>>(text).starts_with(
      "inline.tns:2: the shape 2 x 3000000000 x 1 needs"));
  // 3e9 exceeds the 32-bit coordinates of csf<3>
  try {
    (void)read_text<double, loom::csf<3>>(text);
    FAIL("expected an overflow_error");
  } catch (const loom::overflow_error& e) {
    CHECK(std::string(e.what()).starts_with("inline.tns:2: loom: largest coordinate of mode 1"));
  }
}

TEST_CASE_TEMPLATE("write_tns then read_tns gives the same entries", F, loom::csf<3>,
                   loom::coo_n<3>, loom::dense_n<3>) {
  const std::vector<std::array<std::int64_t, 3>> coords = {{0, 0, 0}, {3, 1, 2}, {1, 4, 0},
                                                           {1, 4, 1}, {2, 0, 2}, {3, 4, 2}};
  SUBCASE("double") {
    const std::vector<double> values = {0.1, -1e300, 1.0 / 3.0, 7, -0.5, 2.5e-310};
    const auto A = loom::from_coo<F>({4, 5, 3}, coords, values);
    std::stringstream s;
    loom::write_tns(s, A);
    CHECK(s.str().starts_with("1 1 1 0.1\n"));
    const auto B = loom::read_tns<double, F>(s, "rt.tns");
    CHECK(B.shape() == A.shape());
    CHECK(entries(A) == entries(B));
  }
  SUBCASE("int64, shape given, through a file") {
    const std::vector<std::int64_t> values = {1,  std::numeric_limits<std::int64_t>::min(),
                                              3,  std::numeric_limits<std::int64_t>::max(),
                                              -5, 6};
    const auto A = loom::from_coo<F>({6, 5, 4}, coords, values);  // trailing slices are empty
    const auto path = (std::filesystem::temp_directory_path() / "loom_io_round_trip.tns").string();
    loom::write_tns(path, A);
    const auto B = loom::read_tns<std::int64_t, F>(path, A.shape());
    CHECK(B.shape() == A.shape());
    CHECK(entries(A) == entries(B));
    std::filesystem::remove(path);
  }
  SUBCASE("boolean") {
    const std::vector<loom::boolean> values = {true, false, true, true, false, true};
    const auto A = loom::from_coo<F>({4, 5, 3}, coords, values);
    std::stringstream s;
    loom::write_tns(s, A);
    const auto B = loom::read_tns<loom::boolean, F>(s, "rt.tns");
    CHECK(entries(A) == entries(B));
  }
}

TEST_CASE("write_tns: other orders") {
  const auto M = loom::from_coo<loom::csc>({3, 2}, {{2, 1}, {0, 0}}, std::vector<float>{1.5f, -2});
  std::ostringstream s;
  loom::write_tns(s, M);
  CHECK(s.str() == "1 1 -2\n3 2 1.5\n");  // storage order: column by column
  const auto V = loom::from_coo<loom::sparse_vector>({9}, {{4}}, std::vector<int>{3});
  std::ostringstream v;
  loom::write_tns(v, V);
  CHECK(v.str() == "5 3\n");
  const auto Q = loom::from_coo<loom::csf<4>>({2, 2, 2, 2}, {{1, 0, 1, 0}}, std::vector<int>{-1});
  std::stringstream q;
  loom::write_tns(q, Q);
  CHECK(entries(loom::read_tns<int, loom::csf<4>>(q, "q.tns", {2, 2, 2, 2})) == entries(Q));
}
