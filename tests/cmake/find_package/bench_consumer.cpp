// Tests that <loom/bench.hpp> is installed and usable on its own by a find_package consumer
//: two trivial entries, the table printed.
// SPDX-License-Identifier: BSL-1.0
#include <loom/bench.hpp>

#include <cstdio>

int main() {
  double s = 0;
  const auto r = loom::bench::compare("sum",
                                      {{"one", [&] { loom::bench::do_not_optimize(s += 1); }},
                                       {"two", [&] { loom::bench::do_not_optimize(s += 2); }}},
                                      {.rounds = 3, .min_time = 1e-4});
  std::fputs(r.markdown().c_str(), stdout);
  return r.entries.size() == 2 && r.entries[0].ratio == 1.0 ? 0 : 1;
}
