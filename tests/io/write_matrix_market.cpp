// Tests write_matrix_market: fields, layouts, failures, and write-then-read round trips.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

template <class T, class Format, bool O1, bool O2>
void check_same_entries(const loom::basic_tensor<T, Format, O1>& a,
                        const loom::basic_tensor<T, Format, O2>& b) {
  CHECK(a.shape() == b.shape());
  REQUIRE(a.nnz() == b.nnz());
  std::vector<std::pair<std::array<std::int64_t, 2>, T>> ea, eb;
  a.for_each_stored([&](const auto& c, const T& v) { ea.emplace_back(c, v); });
  b.for_each_stored([&](const auto& c, const T& v) { eb.emplace_back(c, v); });
  CHECK(ea == eb);
}

template <class T> std::vector<T> sample_values() {
  if constexpr (std::is_same_v<T, loom::boolean>)
    return {true, true, true, true, true, true};
  else if constexpr (std::is_integral_v<T>)
    return {T(-7), std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), T(0), T(3), T(1)};
  else
    return {T(0.1),      std::numeric_limits<T>::max(),      -std::numeric_limits<T>::denorm_min(),
            T(1) / T(3), std::numeric_limits<T>::infinity(), T(-2.5e-7)};
}

template <class T, class Format> loom::tensor<T, Format> sample_matrix() {
  const std::vector<std::array<std::int64_t, 2>> coords = {{0, 0}, {4, 1}, {2, 3},
                                                           {3, 2}, {0, 5}, {2, 0}};
  return loom::from_coo<Format>({5, 6}, coords, sample_values<T>());
}
}  // namespace

TEST_CASE_TEMPLATE("write_matrix_market then read_matrix_market gives the same entries", F,
                   loom::csr, loom::csc, loom::coo, loom::dense_matrix, loom::dcsr) {
  SUBCASE("double") {
    const auto A = sample_matrix<double, F>();
    std::stringstream s;
    loom::write_matrix_market(s, A);
    CHECK(s.str().starts_with("%%MatrixMarket matrix coordinate real general\n5 6 6\n"));
    check_same_entries(A, loom::read_matrix_market<double, F>(s, "rt.mtx"));
  }
  SUBCASE("float") {
    const auto A = sample_matrix<float, F>();
    std::stringstream s;
    loom::write_matrix_market(s, A);
    check_same_entries(A, loom::read_matrix_market<float, F>(s, "rt.mtx"));
  }
  SUBCASE("int64") {
    const auto A = sample_matrix<std::int64_t, F>();
    std::stringstream s;
    loom::write_matrix_market(s, A);
    CHECK(s.str().starts_with("%%MatrixMarket matrix coordinate integer general\n"));
    check_same_entries(A, loom::read_matrix_market<std::int64_t, F>(s, "rt.mtx"));
  }
  SUBCASE("boolean as pattern") {
    const auto A = sample_matrix<loom::boolean, F>();
    std::stringstream s;
    loom::write_matrix_market(s, A);
    CHECK(s.str().starts_with("%%MatrixMarket matrix coordinate pattern general\n5 6 6\n1 1\n"));
    check_same_entries(A, loom::read_matrix_market<loom::boolean, F>(s, "rt.mtx"));
  }
  SUBCASE("array layout") {
    const auto A = sample_matrix<double, F>();
    std::stringstream s;
    loom::write_matrix_market(s, A, {.layout = loom::matrix_market_layout::array});
    CHECK(s.str().starts_with("%%MatrixMarket matrix array real general\n5 6\n0.1\n0\n"));
    const auto D = loom::read_matrix_market<double, loom::dense_matrix>(s, "rt.mtx");
    check_same_entries(loom::tensor<double, loom::dense_matrix>(A), D);
  }
  SUBCASE("through a file") {
    const auto A = sample_matrix<std::int32_t, F>();
    const auto path = (std::filesystem::temp_directory_path() / "loom_io_round_trip.mtx").string();
    loom::write_matrix_market(path, A, {.comment = "written by tests/io/matrix_market.cpp"});
    check_same_entries(A, loom::read_matrix_market<std::int32_t, F>(path));
    std::filesystem::remove(path);
  }
}

TEST_CASE("write_matrix_market: fields, comments and failures") {
  const auto B =
      loom::from_coo<loom::csr>({2, 2}, {{0, 0}, {1, 1}}, std::vector<loom::boolean>{true, false});
  std::ostringstream s;
  loom::write_matrix_market(s, B, {.comment = "line one\n\nline three"});
  CHECK(s.str() ==
        "%%MatrixMarket matrix coordinate integer general\n% line one\n%\n% line three\n"
        "2 2 2\n1 1 1\n2 2 0\n");  // a stored false is kept, so the field is integer

  const auto A = loom::from_coo<loom::coo>({2, 3}, {{1, 2}}, std::vector<double>{0.5});
  std::ostringstream p;
  loom::write_matrix_market(p, A, {.field = loom::matrix_market_field::pattern});
  CHECK(p.str() == "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n2 3\n");
  std::ostringstream ignored;
  CHECK_THROWS_AS(
      loom::write_matrix_market(ignored, A, {.field = loom::matrix_market_field::integer}),
      loom::error);
  CHECK_THROWS_AS(loom::write_matrix_market(ignored, A,
                                            {.field = loom::matrix_market_field::pattern,
                                             .layout = loom::matrix_market_layout::array}),
                  loom::error);
  CHECK_THROWS_AS(loom::write_matrix_market("/nonexistent-dir/x.mtx", A), loom::io_error);
  std::ostringstream failed;
  failed.setstate(std::ios::badbit);
  CHECK_THROWS_AS(loom::write_matrix_market(failed, A), loom::io_error);

  // every double reads back bit for bit, nan included
  const std::vector<double> odd = {std::numeric_limits<double>::quiet_NaN(), -0.0, 5e-324,
                                   1.7976931348623157e308, 0.1 + 0.2};
  const auto O = loom::from_coo<loom::coo>({1, 5}, {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}}, odd);
  std::stringstream t;
  loom::write_matrix_market(t, O);
  const auto R = loom::read_matrix_market<double, loom::coo>(t, "odd.mtx");
  REQUIRE(R.nnz() == 5);
  CHECK(std::isnan(R.values()[0]));
  CHECK(std::signbit(R.values()[1]));
  for (std::size_t k = 2; k < odd.size(); ++k) CHECK(R.values()[k] == odd[k]);
}
