// The example of docs/mappings.md, compiled and run: the doc quotes the code between the
// `// [doc]` markers and the plan explain prints for it, both checked verbatim here.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// [doc]
namespace lm = loom::mapping;
using namespace lm::literals;  // 2_c: a constant of index arithmetic

constexpr loom::index<"r"> r;  // the mapping's own index names
constexpr loom::index<"c"> c;
constexpr auto R = lm::var(r);
constexpr auto C = lm::var(c);

// A(r, c) = vals(r*(r+1)/2 + c) for r in 0:N, c in 0:N where c <= r
constexpr auto my_lower_mapping =
    lm::define<"my_lower">(lm::range(r, 0_c, lm::extent), lm::range(c, 0_c, lm::extent, C <= R),
                           lm::values(R*(R + 1_c) / 2_c + C));
using my_lower = lm::format_of<decltype(my_lower_mapping)>;

std::string lower_times_vector(std::vector<double>& result) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  // [1; 2 3; 4 5 6], rows packed; a view would borrow the array instead (make_view)
  auto L = lm::make_tensor<my_lower>({3, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  L.set_name("L");
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  x.values()[0] = 1, x.values()[1] = 2, x.values()[2] = 3;
  x.set_name("x"), y.set_name("y");
  y(i) = loom::sum(j, L(i, j) * x(j));  // for i: for j in 0..i: y[i] += vals[i(i+1)/2 + j] * x[j]
  result.assign(y.values().begin(), y.values().end());
  return loom::explain(y(i), loom::sum(j, L(i, j) * x(j)));
}
// [doc]

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string marked(const std::string& text) {
  const std::string mark = "// [doc]\n";
  const auto a = text.find(mark);
  const auto b = text.find(mark, a + 1);
  if (a == std::string::npos || b == std::string::npos) return {};
  return text.substr(a + mark.size(), b - a - mark.size());
}
}  // namespace

TEST_CASE("docs/mappings.md: the example compiles, runs, and the doc quotes it and its plan") {
  std::vector<double> y;
  const std::string plan = lower_times_vector(y);
  CHECK(y == std::vector<double>{1, 8, 32});
  const auto here = std::filesystem::path(__FILE__).parent_path();
  const std::string code = marked(slurp(here / "doc_example.cpp"));
  const std::string doc = slurp(here / "../../../docs/mappings.md");
  REQUIRE(!code.empty());
  CHECK(doc.find(code) != std::string::npos);
  CAPTURE(plan);
  CHECK(doc.find(plan) != std::string::npos);
}
