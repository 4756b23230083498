// The other translation unit of tests/exec/options.cpp: the same kernel under other options.
// SPDX-License-Identifier: BSL-1.0
#include "options_other_tu.hpp"

namespace loom_test::options_odr {

namespace {
using choosing = loom::options<loom::opt::skip_candidates<4>>;
}  // namespace

void assign_in_other_tu(result& y, const matrix& A, const vector& x, std::size_t forced) {
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), choosing{.skip_candidate = forced});
}

std::string explain_in_other_tu(result& y, const matrix& A, const vector& x) {
  return loom::explain(y(i), loom::sum(j, A(i, j) * x(j)), choosing{});
}

}  // namespace loom_test::options_odr
