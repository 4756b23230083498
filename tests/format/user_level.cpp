// The worked example of docs/levels.md: a level defined outside loom (the gap level of
// tests/support/models/minimal_level.hpp) stores, converts and runs kernels through the
// planner with no edit inside loom; the doc quotes that file verbatim, checked here.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/models/minimal_level.hpp"

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
// the text between the two `// [level]` markers
std::string marked(const std::string& text) {
  const std::string mark = "// [level]\n";
  const auto a = text.find(mark);
  const auto b = text.find(mark, a + 1);
  if (a == std::string::npos || b == std::string::npos) return {};
  return text.substr(a + mark.size(), b - a - mark.size());
}
}  // namespace

TEST_CASE("docs/levels.md quotes the user level verbatim") {
  const auto here = std::filesystem::path(__FILE__).parent_path();
  const std::string level = marked(slurp(here / "../support/models/minimal_level.hpp"));
  const std::string doc = slurp(here / "../../docs/levels.md");
  REQUIRE(!level.empty());
  CHECK(doc.find(level) != std::string::npos);
}

// [usage]
TEST_CASE("a user-defined level: assembly, conversion and kernels") {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  // a 4 x 6 matrix in CSR with gap-encoded columns
  auto A = loom::from_coo<example::gap_csr>({4, 6}, {{0, 1}, {0, 5}, {2, 0}, {2, 3}, {3, 2}},
                                            std::vector<double>{1, 2, 3, 4, 5});
  CHECK(A.level<1>().gap[1] == 4);  // column 5 is stored as 5 - 1
  CHECK(A.at(2, 3) == 4);
  CHECK(A.at(1, 3) == 0);

  loom::tensor<double, loom::dense_vector> x({6}), y({4});
  for (std::int64_t k = 0; k < 6; ++k) x.at(k) = static_cast<double>(k + 1);
  y(i) = loom::sum(j, A(i, j) * x(j));  // the planner iterates the user level
  CHECK(y.at(0) == 1 * 2 + 2 * 6);
  CHECK(y.at(1) == 0);
  CHECK(y.at(2) == 3 * 1 + 4 * 4);
  CHECK(y.at(3) == 5 * 3);

  loom::tensor<double, loom::csr> B(A);  // conversion both ways
  loom::tensor<double, example::gap_csr> C({4, 6});
  C(i, j) = A(i, j) * B(i, j) + A(i, j);  // a user-level output is assembled by its hook
  CHECK(C.at(0, 5) == 2 * 2 + 2);
  CHECK(C.nnz() == 5);
  CHECK(loom::explain(y(i), loom::sum(j, A(i, j) * x(j))).find("gap") != std::string::npos);
}
// [usage]
