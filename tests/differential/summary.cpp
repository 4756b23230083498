// Prints, once at the end of the run, how many differential cases and points were compared with
// the dense reference (a doctest listener, so it runs last whatever the test order or filter).
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <ostream>

#include <support/compare.hpp>

namespace {

struct coverage_listener : doctest::IReporter {
  std::ostream& out;
  explicit coverage_listener(const doctest::ContextOptions& options) : out(*options.cout) {}

  void test_run_end(const doctest::TestRunStats&) override {
    const auto& s = loom::test::stats();
    if (s.cases == 0) return;
    out << "[loom] differential: " << s.cases << " cases checked against the dense reference ("
        << s.points << " points), " << s.failed_cases << " failed\n";
  }
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("loom_differential_coverage", 1, coverage_listener);
