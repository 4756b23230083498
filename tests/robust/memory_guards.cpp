// Robustness: readers and levels that allocate by extent respect
// read_options::max_dense_elements (default 2^28), the Matrix Market array layout is guarded on
// both sides, and allocation failures surface as loom::errors naming the tensor and the size.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/io/matrix_market.hpp>
#include <loom/io/tns.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {
template <class F> std::string message_of(F&& f) {
  try {
    f();
  } catch (const loom::error& e) {
    return e.what();
  }
  return "no error";
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
using bitmap_rows = loom::format<loom::dense, loom::bitmap>;
using band = loom::format<loom::dense, loom::banded>;
}  // namespace

TEST_CASE("a bitmap file whose shape needs more than max_dense_elements is refused") {
  const std::string mm = "%%MatrixMarket matrix coordinate real general\n3 20000000 1\n1 1 2\n";
  const loom::read_options small{.max_dense_elements = 1000000};
  std::istringstream in(mm);
  const auto what =
      message_of([&] { (void)loom::read_matrix_market<double, bitmap_rows>(in, "b.mtx", small); });
  CHECK(contains(what, "b.mtx:2:"));
  CHECK(contains(what, "max_dense_elements (1000000)"));
  // the default limit, 2^28: 3 x 2e8 is refused, 3 x 2e7 (6e7 positions) is within it
  std::istringstream in2("%%MatrixMarket matrix coordinate real general\n3 200000000 1\n1 1 2\n");
  CHECK_THROWS_AS(((void)loom::read_matrix_market<double, bitmap_rows>(in2, "b.mtx")),
                  loom::parse_error);
  // FROSTT: the shape given or found
  std::istringstream tns("1 20000000 2.5\n");
  CHECK_THROWS_AS(((void)loom::read_tns<double, bitmap_rows>(tns, "b.tns", small)),
                  loom::parse_error);
}

TEST_CASE("a band that would pad more than max_dense_elements is refused as it is built") {
  // two entries per row at both ends: 2 x 200000 positions for 4 entries
  const std::string mm =
      "%%MatrixMarket matrix coordinate real general\n2 200000 4\n1 1 1\n1 200000 2\n2 1 3\n2 "
      "200000 4\n";
  std::istringstream in(mm);
  const auto what = message_of([&] {
    (void)loom::read_matrix_market<double, band>(in, "band.mtx", {.max_dense_elements = 100000});
  });
  CHECK(contains(what, "band.mtx"));
  CHECK(contains(what, "banded level of mode 1"));
  CHECK(contains(what, "400000 positions for 4 entries"));
  std::istringstream ok(mm);
  CHECK(loom::read_matrix_market<double, band>(ok, "band.mtx").nnz() == 4);
}

TEST_CASE("the limit counts the kept entries, so a tensor read is read again after writing") {
  using loom::min_plus;
  const loom::read_options limit{.policy = loom::duplicates::sum, .max_dense_elements = 65536};
  auto read_vector = [&]<class T>(const std::string& text, T) {
    std::istringstream in(text);
    return loom::read_tns<T, loom::dense_vector>(in, "v.tns", limit);
  };
  // two fill entries stretch the extent to 65537 but store nothing: refused (found by fuzz_tns;
  // it used to be read, written as an empty file and refused when read back)
  const std::string fills = "\n70 inf\n65537 inf\n";
  const auto refused = message_of([&] { (void)read_vector(fills, min_plus<double>{}); });
  CHECK(contains(refused, "v.tns:3:"));
  CHECK(contains(refused, "dense level of mode 0 (extent 65537) would hold 65537 positions"));
  CHECK(contains(refused, "more than the 65536 allowed"));
  // duplicates that cancel leave nothing kept either
  CHECK(contains(message_of([&] { (void)read_vector("65537 1\n65537 -1\n", 0.0); }),
                 "more than the 65536 allowed"));
  // two kept entries allow 65536 + 2 positions: read, written, read again with its shape
  const auto A = read_vector("70 3\n65537 inf\n65538 4\n", min_plus<double>{});
  CHECK(A.shape()[0] == 65538);
  std::stringstream written;
  loom::write_tns(written, A);
  CHECK(written.str() == "70 3\n65538 4\n");
  const auto B =
      loom::read_tns<min_plus<double>, loom::dense_vector>(written, "w.tns", A.shape(), limit);
  CHECK(B.shape()[0] == 65538);
  CHECK(B.nnz() == A.nnz());
  // the same shape given by the caller with fewer kept entries is refused
  std::istringstream one("70 3\n");
  CHECK(contains(message_of([&] {
                   (void)loom::read_tns<min_plus<double>, loom::dense_vector>(one, "o.tns",
                                                                              A.shape(), limit);
                 }),
                 "loom::read_tns: o.tns: the dense level of mode 0 (extent 65538)"));
}

TEST_CASE("the Matrix Market array layout is guarded when written and read") {
  const auto A = loom::from_coo<loom::csr>({100000, 100000}, {{5, 7}}, std::vector<double>{1});
  std::ostringstream out;
  const auto what = message_of(
      [&] { loom::write_matrix_market(out, A, {.layout = loom::matrix_market_layout::array}); });
  CHECK(
      contains(what, "loom::write_matrix_market: the array layout of the 100000 x 100000 matrix"));
  CHECK(contains(what, "10000000000 values"));
  CHECK(out.str().empty());  // refused before anything is written
  std::ostringstream small;
  loom::write_matrix_market(small,
                            loom::from_coo<loom::csr>({2, 2}, {{1, 0}}, std::vector<double>{4}),
                            {.layout = loom::matrix_market_layout::array});
  CHECK(small.str() == "%%MatrixMarket matrix array real general\n2 2\n0\n4\n0\n0\n");

  std::istringstream in("%%MatrixMarket matrix array real general\n100000 100000\n1\n");
  const auto read = message_of([&] { (void)loom::read_matrix_market<double>(in, "a.mtx"); });
  CHECK(contains(read, "a.mtx:2:"));
  CHECK(contains(read, "10000000000 values, more than loom::read_options::max_dense_elements"));
}

TEST_CASE("allocation failure while building a tensor is a loom::error naming the size") {
  // 2^31 x 2^31 dense positions overflow no 64-bit count, but no allocator can give them
  using dense_rows = loom::format<loom::dense, loom::dense>;
  const std::int64_t big = std::int64_t{1} << 31;
  const auto what = message_of([&] { loom::tensor<double, dense_rows> D({big, big}); });
  CHECK(contains(what, "loom::tensor: out of memory building a 2147483648 x 2147483648 tensor"));
  CHECK(contains(what, "4611686018427387904 positions and values of 8 bytes"));
}
