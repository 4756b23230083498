// The examples of docs/mappings.md for hash maps, non-unique segments and sums of mappings,
// compiled and run: the doc quotes the code between each pair of `// [doc-...]` markers and the
// plans explain prints for them, all checked verbatim here.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace lm = loom::mapping;
using namespace lm::literals;

// [doc-hash]
constexpr loom::index<"r"> r;
constexpr loom::index<"c"> c;
constexpr lm::hash_map<"row_ids"> row_ids;     // a hash map: row -> segment number
constexpr lm::array<"seg", std::int64_t> seg;  // segment bounds
constexpr lm::array<"col", std::int32_t> col;  // sorted columns

// A(r, c) = vals(c_pos) for r in keys(row_ids), c in col(seg(r_pos) : seg(r_pos + 1))
constexpr auto my_hashed_mapping = lm::define<"my_hashed">(
    lm::hashed(r, row_ids),
    lm::each(c, col.slice(seg(lm::pos(r)), seg(lm::pos(r) + 1_c)), lm::unique),
    lm::values(lm::pos(c)));
using my_hashed = lm::format_of<decltype(my_hashed_mapping)>;

std::string sparse_vector_times_hashed(std::vector<double>& result) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  // rows 0 -> {0: 6, 2: 9, 3: 8} and 2 -> {0: 5, 3: 7} of a 3 x 4 matrix, rows hashed
  auto A = lm::make_tensor<my_hashed>({3, 4}, std::vector<double>{6, 9, 8, 5, 7},
                                      lm::bind(row_ids, lm::hash_table<>::from({{0, 0}, {2, 1}})),
                                      lm::bind(seg, std::vector<std::int64_t>{0, 3, 5}),
                                      lm::bind(col, std::vector<std::int32_t>{0, 2, 3, 0, 3}));
  A.set_name("A");
  auto x = loom::from_coo<loom::sparse_vector>({3}, {{2}}, std::vector<double>{1.0});
  loom::tensor<double, loom::dense_vector> w({4});
  x.set_name("x"), w.set_name("w");
  w(j) = loom::sum(i, x(i) * A(i, j));  // x leads: A's rows are probed (F1), never sorted
  result.assign(w.values().begin(), w.values().end());
  return loom::explain(w(j), loom::sum(i, x(i) * A(i, j)));
}
// [doc-hash]

// [doc-coo]
std::vector<double> coo_row_sums() {
  namespace nm = lm::names;
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  // (0,1) (0,3) (1,0) (1,2) (1,3) (3,3): the row array repeats rows, so it is not `unique`
  auto A =
      lm::make_tensor<lm::coo>({4, 4}, std::vector<double>{1, 2, 3, 4, 5, 6},
                               lm::bind(nm::pos1, std::vector<std::int64_t>{0, 6}),
                               lm::bind(nm::idx1, std::vector<std::int32_t>{0, 0, 1, 1, 1, 3}),
                               lm::bind(nm::idx2, std::vector<std::int32_t>{1, 3, 0, 2, 3, 3}));
  loom::tensor<double, loom::dense_vector> s({4});
  s(i) = loom::sum(j, A(i, j));  // one iteration per run of a row: s = {3, 12, 0, 6}
  return {s.values().begin(), s.values().end()};
}
// [doc-coo]

// [doc-sum]
std::string symmetric_times_vector(std::vector<double>& result) {
  constexpr loom::index<"i"> i;
  constexpr loom::index<"j"> j;
  std::vector<double> packed{1, 2, 3, 4, 5, 6};  // the lower triangle of [1 2 4; 2 3 5; 4 5 6]
  auto L = lm::make_view<lm::lower_packed>({3, 3}, std::span<double>(packed));
  auto SL = lm::make_view<lm::strict_lower_packed>({3, 3}, std::span<double>(packed));
  L.set_name("L"), SL.set_name("SL");
  const auto S = lm::make_sum("S", lm::as_is(L), lm::transposed(SL));  // S = L + SL^T
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
  x.values()[0] = 1, x.values()[1] = 2, x.values()[2] = 3;
  x.set_name("x"), y.set_name("y");
  const auto program = [&](const auto& A) { return loom::sum(j, A(i, j) * x(j)); };
  lm::assign_distributed(y(i), program, S);  // y = L x, then y += SL^T x: {17, 23, 32}
  result.assign(y.values().begin(), y.values().end());
  return lm::explain_distributed(y(i), program, S);
}
// [doc-sum]

namespace {
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
std::string marked(const std::string& text, const std::string& tag) {
  const std::string mark = "// [" + tag + "]\n";
  const auto a = text.find(mark);
  const auto b = text.find(mark, a + 1);
  if (a == std::string::npos || b == std::string::npos) return {};
  return text.substr(a + mark.size(), b - a - mark.size());
}
}  // namespace

TEST_CASE("docs/mappings.md: the hash-map, COO and sum examples compile, run, and are quoted") {
  const auto here = std::filesystem::path(__FILE__).parent_path();
  const std::string source = slurp(here / "doc_example_storel.cpp");
  const std::string doc = slurp(here / "../../../docs/mappings.md");
  for (const char* tag : {"doc-hash", "doc-coo", "doc-sum"}) {
    CAPTURE(tag);
    const std::string code = marked(source, tag);
    REQUIRE(!code.empty());
    CHECK(doc.find(code) != std::string::npos);
  }
  std::vector<double> w, y;
  const std::string hash_plan = sparse_vector_times_hashed(w);
  CHECK(w == std::vector<double>{5, 0, 0, 7});
  CAPTURE(hash_plan);
  CHECK(hash_plan.find("F1 (iteration -> lookup)") != std::string::npos);
  CHECK(doc.find(hash_plan) != std::string::npos);
  CHECK(coo_row_sums() == std::vector<double>{3, 12, 0, 6});
  const std::string sum_plan = symmetric_times_vector(y);
  CHECK(y == std::vector<double>{17, 23, 32});
  CAPTURE(sum_plan);
  CHECK(doc.find(sum_plan) != std::string::npos);
}
