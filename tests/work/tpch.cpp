// Complexity guards for the relational queries: TPC-H Q5 and Q9 (examples/tpch) do work within a
// constant of their input's size at SF 0.01 and 0.02 (LOOM_WORK_COUNTERS; no timings). Q5's plan
// hoisted its join over every nation into an (order, nation) matrix for a while, 190x slower;
// that is 25x the work per input tuple, which fails here on any machine.
// SPDX-License-Identifier: BSL-1.0
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "../../examples/tpch/dbgen.hpp"
#include "../../examples/tpch/queries.hpp"

namespace {
namespace fs = std::filesystem;

struct query_work {
  double q5 = 0, q9 = 0;  // work per input tuple
};

query_work measure(double sf) {
  const fs::path dir = fs::temp_directory_path() / ("loom_tests_work_tpch_" + std::to_string(sf));
  fs::remove_all(dir);
  tpch::generate(dir, sf);
  const tpch::database db = tpch::load(dir);
  fs::remove_all(dir);
  const double tuples =
      static_cast<double>(db.orders.rows() + db.lineitem.rows() + db.customer.rows() +
                          db.supplier.rows() + db.part.rows() + db.partsupp.rows());
  query_work w;
  const tpch::q5 q5(db);
  (void)q5.run();  // plans and statistics cached
  loom::reset_work_counters();
  const auto r5 = q5.run();
  w.q5 = static_cast<double>(loom::work_counters().total()) / tuples;
  CHECK(r5.rows() > 0);
  const tpch::q9 q9(db);
  (void)q9.run();
  loom::reset_work_counters();
  const auto r9 = q9.run();
  w.q9 = static_cast<double>(loom::work_counters().total()) / tuples;
  CHECK(r9.rows() > 0);
  return w;
}
}  // namespace

TEST_CASE("work: TPC-H Q5 and Q9 within a constant of the input size (SF 0.01, 0.02)") {
  const query_work small = measure(0.01), larger = measure(0.02);
  INFO("Q5 work per input tuple " << small.q5 << " at SF 0.01, " << larger.q5 << " at SF 0.02");
  INFO("Q9 work per input tuple " << small.q9 << " at SF 0.01, " << larger.q9 << " at SF 0.02");
  CHECK(small.q5 <= 3.0);
  CHECK(larger.q5 <= 3.0);
  CHECK(small.q9 <= 3.0);
  CHECK(larger.q9 <= 3.0);
  CHECK(larger.q5 <= 1.25 * small.q5);
  CHECK(larger.q9 <= 1.25 * small.q9);
}
