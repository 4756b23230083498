// The worked example of docs/levels.md: a level defined outside loom (the gap level of
// tests/support/models/minimal_level.hpp) stores, converts and runs kernels through the
// planner with no edit inside loom; the doc quotes that file verbatim, checked here.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>

#include "support/models/layout_level.hpp"
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

// A user level that declares loom's compressed layout gets the fast paths keyed by it (
// item 4): online append of sparse outputs, csr rows written in parallel, statistics read from
// the arrays; the results equal csr's.
TEST_CASE("a user level declaring a layout gets the built-in level's fast paths") {
  using fmt = example::scan_csr;
  static_assert(loom::layout_of<example::scan_level> == loom::level_layout::compressed);
  static_assert(loom::layout_of<example::gap_level> == loom::level_layout::other);
  static_assert(loom::detail::appender<double, fmt>::online &&
                loom::detail::appender<double, fmt>::by_rows);
  static_assert(!loom::detail::appender<double, example::gap_csr>::online);
  static_assert(loom::parallel::rows_format<fmt> && !loom::parallel::rows_format<example::gap_csr>);
  static_assert(loom::detail::levels_read_from_arrays_v<fmt::levels>);

  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  std::vector<std::array<std::int64_t, 2>> ca, cb;
  std::vector<double> va, vb;
  for (std::int64_t r = 0; r < 300; ++r)
    for (std::int64_t c = (r * 7) % 5; c < 200; c += 3 + r % 4) {
      ca.push_back({r, c});
      va.push_back(static_cast<double>(r - c));
      if ((r + c) % 2 == 0) {
        cb.push_back({r, c});
        vb.push_back(0.5 * static_cast<double>(c));
      }
      cb.push_back({r, (c + 1) % 200});
      vb.push_back(1.0);
    }
  const auto A = loom::from_coo<fmt>({300, 200}, ca, va, loom::duplicates::sum);
  const auto B = loom::from_coo<fmt>({300, 200}, cb, vb, loom::duplicates::sum);
  const loom::tensor<double, loom::csr> Ar(A), Br(B);
  loom::tensor<double, loom::csr> want({300, 200});
  want(i, j) = Ar(i, j) + Br(i, j);

  const auto sa = loom::gather_statistics(A), sr = loom::gather_statistics(Ar);
  CHECK(sa.nnz == sr.nnz);
  CHECK(sa.nonempty_fibers == sr.nonempty_fibers);
  CHECK(sa.max_degree == sr.max_degree);

  loom::set_parallel_min_work(0);            // split however small
  for (const unsigned threads : {1u, 3u}) {  // serial append, then parallel rows
    CAPTURE(threads);
    loom::set_num_threads(threads);
    loom::tensor<double, fmt> C({300, 200});
    C(i, j) = A(i, j) + B(i, j);
    const loom::tensor<double, loom::csr> got(C);
    const auto& gl = got.level<1>();
    const auto& wl = want.level<1>();
    CHECK(std::equal(gl.pos.begin(), gl.pos.end(), wl.pos.begin(), wl.pos.end()));
    CHECK(std::equal(gl.crd.begin(), gl.crd.end(), wl.crd.begin(), wl.crd.end()));
    CHECK(std::ranges::equal(got.values(), want.values()));
  }
  loom::set_num_threads(1);
  loom::set_parallel_min_work(-1);
}

// The per-level search has its own name; levels written against the old one still compile,
// with a deprecation warning.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static_assert(std::is_same_v<loom::skip_policy, loom::search_strategy>);
#pragma GCC diagnostic pop
