// Robustness: a banded level counts and writes its stored entries, not its padding.
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
using band = loom::format<loom::dense, loom::banded>;

std::int64_t lines_of(const std::string& s) {
  std::int64_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST_CASE("a 2 x 200000 band with 2 entries has nnz 2 and writes 2 entries") {
  const auto A =
      loom::from_coo<band>({2, 200000}, {{0, 0}, {0, 199999}}, std::vector<double>{1, 2});
  CHECK(A.values().size() == 200000);  // the band of row 0 is stored whole
  CHECK(A.nnz() == 2);
  std::ostringstream mm;
  loom::write_matrix_market(mm, A);
  CHECK(mm.str() ==
        "%%MatrixMarket matrix coordinate real general\n2 200000 2\n1 1 1\n1 200000 2\n");
  std::istringstream back(mm.str());
  const auto B = loom::read_matrix_market<double, band>(back, "band.mtx");
  CHECK(B.nnz() == 2);
  CHECK(B.at(0, 199999) == 2);
  std::ostringstream tns;
  loom::write_tns(tns, A);
  CHECK(lines_of(tns.str()) == 2);
  CHECK(loom::convert<loom::csr>(A).nnz() == 2);
}
