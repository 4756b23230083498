// Tests a kernel's decision as a value (loom::decide, loom::run), loom::explain_analyze and its
// JSON form, and the plan log (loom::set_plan_log).
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {
using coords2 = std::vector<std::array<std::int64_t, 2>>;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

// n x n, `per` entries per row at (r, (r * 7 + s * 3) mod n)
loom::tensor<double, loom::csr> scattered(std::int64_t n, std::int64_t per) {
  coords2 c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t s = 0; s < per; ++s) {
      c.push_back({r, (r * 7 + s * 3) % n});
      v.push_back(static_cast<double>((r + s) % 5) - 2);
    }
  return loom::from_coo<loom::csr>({n, n}, c, v, loom::duplicates::sum);
}

// Counts the reports the plan log receives while alive; the log off again after.
struct log_counter {
  std::vector<loom::kernel_report> reports;
  log_counter() {
    loom::set_plan_log([this](const loom::kernel_report& r) { reports.push_back(r); });
  }
  ~log_counter() { loom::set_plan_log({}); }
  log_counter(const log_counter&) = delete;
  log_counter& operator=(const log_counter&) = delete;
};

bool contains(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}
}  // namespace

TEST_CASE("a decision runs the kernel it describes, again on new data") {
  const auto A = scattered(50, 4);
  loom::tensor<double, loom::dense_vector> x({50}), y({50}), expected({50});
  for (std::int64_t r = 0; r < 50; ++r) x.at(r) = static_cast<double>(r % 7) - 3;
  expected(i) = loom::sum(j, A(i, j) * x(j));
  const auto d = loom::decide(y(i), loom::sum(j, A(i, j) * x(j)));
  static_assert(!decltype(d)::accumulate);
  CHECK(d.candidate < decltype(d)::candidate_count);
  CHECK_FALSE(d.hoisted);
  loom::run(d);
  for (std::int64_t r = 0; r < 50; ++r) CHECK(y.at(r) == expected.at(r));
  x.at(3) += 1;  // the operands are held by pointer: the decision runs on what they hold now
  expected(i) = loom::sum(j, A(i, j) * x(j));
  loom::run(d);
  for (std::int64_t r = 0; r < 50; ++r) CHECK(y.at(r) == expected.at(r));
}

TEST_CASE("a decision over a sparse output, and into an output an operand reads") {
  const auto A = scattered(30, 3);
  loom::tensor<double, loom::csr> C({30, 30}), expected({30, 30});
  expected(i, j) = loom::sum(k, A(i, k) * A(k, j));
  loom::run(loom::decide(C(i, j), loom::sum(k, A(i, k) * A(k, j))));
  CHECK(C.nnz() == expected.nnz());
  for (std::int64_t r = 0; r < 30; ++r)
    for (std::int64_t q = 0; q < 30; ++q) CHECK(C.at(r, q) == expected.at(r, q));
  // y = A y reads the output: run writes into a copy, as assign does
  loom::tensor<double, loom::dense_vector> y({30}), y2({30});
  for (std::int64_t r = 0; r < 30; ++r) y.at(r) = y2.at(r) = static_cast<double>(r);
  y2(i) = loom::sum(j, A(i, j) * y2(j));
  log_counter log;
  loom::run(loom::decide(y(i), loom::sum(j, A(i, j) * y(j))));
  for (std::int64_t r = 0; r < 30; ++r) CHECK(y.at(r) == y2.at(r));
  REQUIRE(log.reports.size() == 1);
  CHECK(log.reports[0].aliased);
}

TEST_CASE("the plan log: one report per kernel, named by its expression; nothing when unset") {
  auto A = scattered(40, 3);
  A.set_name("A");
  loom::tensor<double, loom::csr> C({40, 40});
  C.set_name("C");
  loom::tensor<double, loom::dense_vector> x({40}), y({40});
  x.set_name("x"), y.set_name("y");
  {
    log_counter log;
    C(i, j) = loom::sum(k, A(i, k) * A(k, j));
    y(i) = loom::sum(j, A(i, j) * x(j));
    y(i) += loom::sum(j, A(i, j) * x(j));
    REQUIRE(log.reports.size() == 3);
    const loom::kernel_report& spgemm = log.reports[0];
    CHECK(spgemm.kernel == "C(i,j) = sum(k, A(i,k) * A(k,j))");
    CHECK(spgemm.loop_order == "i,k,j");
    CHECK(spgemm.output_format == loom::format_name<loom::csr>());
    CHECK(spgemm.actual_entries == C.nnz());
    CHECK(spgemm.estimated_entries >= spgemm.actual_entries);  // an upper bound: the flops
    CHECK(spgemm.threads >= 1);
    CHECK(spgemm.kernel_seconds >= 0);
    CHECK(log.reports[1].kernel == "y(i) = sum(j, A(i,j) * x(j))");
    CHECK(log.reports[1].actual_entries == -1);  // a dense output
    CHECK_FALSE(log.reports[1].accumulate);
    CHECK(log.reports[2].kernel == "y(i) += sum(j, A(i,j) * x(j))");
    CHECK(log.reports[2].accumulate);
    CHECK(contains(loom::to_line(spgemm), "loom: C(i,j) = sum(k, A(i,k) * A(k,j)): candidate 0"));
  }
  // the log is off: a kernel run now reaches no callback
  std::size_t calls = 0;
  loom::set_plan_log([&](const loom::kernel_report&) { ++calls; });
  loom::set_plan_log({});
  y(i) = loom::sum(j, A(i, j) * x(j));
  CHECK(calls == 0);
}

TEST_CASE("explain_analyze: the plan, then each kernel's estimate next to what it measured") {
  auto A = scattered(60, 4);
  A.set_name("A");
  loom::tensor<double, loom::csr> C({60, 60});
  C.set_name("C");
  const std::string text = loom::explain_analyze(C(i, j), loom::sum(k, A(i, k) * A(k, j)));
  CHECK(contains(text, "explain analyze: C(i,j) = sum(k, A(i,k) * A(k,j))"));
  CHECK(contains(text, "attribute order: i, k, j"));  // explain()'s text first
  CHECK(contains(text, "measured: 1 kernel in "));
  CHECK(contains(text, "output entries: estimated "));
  CHECK(contains(text, ", actual " + std::to_string(C.nnz())));
  CHECK(contains(text, "time: decide "));
  // the assignment ran: C holds the product
  loom::tensor<double, loom::csr> expected({60, 60});
  expected(i, j) = loom::sum(k, A(i, k) * A(k, j));
  CHECK(C.nnz() == expected.nnz());

  const loom::analysis a = loom::analyze(C(i, j), loom::sum(k, A(i, k) * A(k, j)));
  REQUIRE(a.kernels.size() == 1);
  CHECK(a.kernels[0].actual_entries == expected.nnz());
  CHECK(a.seconds >= a.kernels[0].kernel_seconds);

  const std::string json = loom::explain_analyze_json(C(i, j), loom::sum(k, A(i, k) * A(k, j)));
  CHECK(json.front() == '{');
  CHECK(json.back() == '}');
  CHECK(contains(json, "\"kernels\":[{\"kernel\":\"C(i,j) = sum(k, A(i,k) * A(k,j))\""));
  CHECK(contains(json, "\"actual_entries\":" + std::to_string(expected.nnz())));
  CHECK_FALSE(contains(json, "\n"));  // newlines of the plan escaped
  long depth = 0;
  bool in_string = false;
  for (std::size_t c = 0; c < json.size(); ++c) {
    if (json[c] == '\\') {
      ++c;
      continue;
    }
    if (json[c] == '"') in_string = !in_string;
    if (!in_string)
      depth += json[c] == '{' || json[c] == '[' ? 1 : json[c] == '}' || json[c] == ']' ? -1 : 0;
    CHECK(depth >= 0);
  }
  CHECK(depth == 0);
  CHECK_FALSE(in_string);
}

TEST_CASE("explain_analyze of a hoisted sum and of a decomposition lists every kernel") {
  auto A = scattered(80, 3);
  A.set_name("A");
  loom::tensor<double, loom::dense_vector> x({80}), y({80});
  x.set_name("x"), y.set_name("y");
  for (std::int64_t r = 0; r < 80; ++r) x.at(r) = 1.0 + static_cast<double>(r % 3);
  const auto nested = loom::sum(j, A(i, j) * loom::sum(k, A(j, k) * x(k)));
  const loom::analysis a = loom::analyze(y(i), nested);
  if (a.kernels.size() == 3) {  // hoisted: the outer kernel first, then the sum's, then the rest
    CHECK(a.kernels[0].hoisted);
    CHECK(a.kernels[1].depth == 1);
    CHECK(a.kernels[1].kernel == "hoisted(j) = sum(k, A(j,k) * x(k))");
    CHECK(a.kernels[2].kernel == "y(i) = sum(j, A(i,j) * hoisted(j))");
  } else {
    REQUIRE(a.kernels.size() == 1);
    CHECK_FALSE(a.kernels[0].hoisted);
  }
  const loom::analysis steps =
      loom::analyze(y(i), loom::sum(j, loom::sum(k, A(i, j) * A(j, k) * x(k))),
                    loom::options<loom::opt::eliminate>{});
  CHECK(steps.kernels.size() >= 1);
  CHECK(contains(steps.text(), "decomposition candidates"));
}

TEST_CASE("explain_analyze of a kernel with candidate plans gives the runner-up's cost") {
  constexpr std::int64_t n = 200;
  coords2 c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t q = 0; q < n; q += 3) {
      c.push_back({r, q});
      v.push_back(1.0);
    }
  const auto full = loom::from_coo<loom::csr>({n, n}, c, v);
  const loom::tensor<double, loom::dcsc> one_col(loom::from_coo<loom::csr>(
      {n, n}, coords2{{1, 5}, {9, 5}, {30, 5}}, std::vector<double>{1, 2, 3}));
  loom::tensor<double, loom::dense_matrix> C({n, n});
  const loom::analysis a = loom::analyze(C(i, j), loom::sum(k, full(i, k) * one_col(k, j)));
  REQUIRE(a.kernels.size() == 1);
  const loom::kernel_report& r = a.kernels[0];
  REQUIRE(r.candidates == 2);
  REQUIRE(r.candidate_costs.size() == 2);
  CHECK(r.candidate == 1);
  CHECK(r.runner_up_cost() == r.candidate_costs[0]);
  CHECK(r.candidate_costs[1] < r.runner_up_cost());
  CHECK(contains(a.text(), "(runner-up "));
  // explain() prints the same decision
  CHECK(contains(loom::explain(C(i, j), loom::sum(k, full(i, k) * one_col(k, j))),
                 "chosen: candidate #1"));
}

TEST_CASE("the plan log names unnamed tensors as explain does and shows run-time values") {
  const auto A = scattered(20, 3);  // unnamed: operand 0
  loom::tensor<double, loom::dense_vector> x({20}), y({20});
  loom::tensor<double, loom::csr> C({20, 20});
  x.set_name("x");
  log_counter log;
  y(i) = loom::sum(j, A(i, j) * x(j) / 4.0);
  y(i) += loom::sum(j, A(i, j) * -x(j));
  C(i, j) = A(i, j) * A(i, j);
  REQUIRE(log.reports.size() == 3);
  CHECK(log.reports[0].kernel == "out(i) = sum(j, T0(i,j) * x(j) / 4)");
  CHECK(log.reports[1].kernel == "out(i) += sum(j, T0(i,j) * -x(j))");
  CHECK(log.reports[2].kernel == "out(i,j) = T0(i,j) * T1(i,j)");
  CHECK(log.reports[2].output_format == "csr");
  CHECK(log.reports[0].loop_order == "i,j");
  const std::string text = loom::explain_analyze(C(i, j), A(i, j) * A(i, j));
  CHECK(contains(text, "explain analyze: out(i,j) = T0(i,j) * T1(i,j)"));
}
