// The cost model (tra/cost.hpp) against UT-11 and the strategy choice it implies.
// SPDX-License-Identifier: BSL-1.0
#include <loom/tra/cost.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace loom::tra;

TEST_CASE("UT-11 the paper's formulas on a 4x4 grid of 1000x1000 tiles over 4 sites") {
  cost_model cm{.alpha = 1, .beta = 0, .sites = 4};
  matmul_shape sh{.I = 4, .K = 4, .J = 4, .m = 1000, .k = 1000, .n = 1000};
  CHECK(cm.size(16, 1e6) == 1.6e7);
  const auto bl = estimate(cm, sh, matmul_strategy::broadcast_left);
  const auto cp = estimate(cm, sh, matmul_strategy::cross_product);
  const auto r3 = estimate(cm, sh, matmul_strategy::replicated_3d);
  CHECK(bl.cn == 1.28e8);
  CHECK(cp.cn == 9.6e7);
  CHECK(r3.cn == 1.28e8);
  CHECK(estimate(cm, sh, matmul_strategy::broadcast_right).cn == 1.28e8);
  CHECK(bl.cc == 1.28e11 + 4e6);  // join 64 x 2e9, plus Σᴸ as printed
  CHECK(cm.aggregate(64, 16, 1e6) == 4e6);
  cost_model corrected = cm;
  corrected.policy = cost_policy::corrected;
  CHECK(corrected.aggregate(64, 16, 1e6) == 4.8e7);
  CHECK(choose(cm, sh).strategy == matmul_strategy::cross_product);
  sh.y = partitioning::cols;
  CHECK(estimate(cm, sh, matmul_strategy::broadcast_left).cn == 6.4e7);
  CHECK(choose(cm, sh).strategy == matmul_strategy::broadcast_left);
  sh.y = partitioning::none;
  sh.x = partitioning::rows;
  CHECK(choose(cm, sh).strategy == matmul_strategy::broadcast_right);
}

TEST_CASE("explain names every strategy with its communication and compute, and the choice") {
  cost_model cm{.alpha = 1, .beta = 0, .sites = 4};
  matmul_shape sh{.I = 4, .K = 4, .J = 4, .m = 1000, .k = 1000, .n = 1000};
  const std::string e = explain(cm, sh);
  CHECK(e.find("* cross product: Cn 9.6e+07 elements") != std::string::npos);
  CHECK(e.find("broadcast left: Cn 1.28e+08") != std::string::npos);
  CHECK(e.find("chosen: cross product") != std::string::npos);
}

TEST_CASE("a small left matrix is broadcast when the corrected model counts bytes") {
  cost_model cm{.alpha = 1, .beta = 0, .sites = 2, .policy = cost_policy::corrected};
  matmul_shape sh{.I = 1, .K = 8, .J = 8, .m = 64, .k = 64, .n = 64};  // X one block-row
  CHECK(choose(cm, sh).strategy == matmul_strategy::broadcast_left);
}
