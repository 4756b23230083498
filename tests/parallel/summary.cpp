// Prints, once at the end of the run, how many parallel kernels and runs were compared with the
// serial loops and how many of those runs split their outer loop (a doctest listener, so it runs
// last whatever the test order or filter).
// SPDX-License-Identifier: BSL-1.0
#include <ostream>

#include "support.hpp"

namespace {

struct parallel_listener : doctest::IReporter {
  std::ostream& out;
  explicit parallel_listener(const doctest::ContextOptions& options) : out(*options.cout) {}

  void test_run_end(const doctest::TestRunStats&) override {
    const auto& c = loom::test::par::count();
    if (c.kernels == 0) return;
    out << "[loom] parallel: " << c.kernels << " kernel cases, " << c.runs
        << " parallel runs compared bit for bit with the serial loop (" << c.split
        << " split their outer loop); " << loom::test::stats().cases
        << " serial results checked against the dense reference, "
        << loom::test::stats().failed_cases << " failed\n";
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

REGISTER_LISTENER("loom_parallel_coverage", 1, parallel_listener);
