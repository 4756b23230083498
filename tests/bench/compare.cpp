// Tests loom::bench (bench.hpp): median, calibration, interleaving, ratios, the load warning and
// the Markdown table, on a fake clock (no timing thresholds).
// SPDX-License-Identifier: BSL-1.0
//
// The #define before the first #include keeps this TU off the tests' precompiled header (see
// tests/CMakeLists.txt), which force-includes loom.hpp: bench.hpp must work without it.
#define LOOM_BENCH_TEST_STANDALONE 1
#include <loom/bench.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#ifdef LOOM_LOOM_HPP
#  error "loom/bench.hpp must stay standalone: it must not include loom.hpp"
#endif

namespace {

// A clock that advances only when a fake kernel "runs": each callable adds its own cost.
struct fake_time {
  double now = 0;
  std::vector<std::string> calls;  // which entry ran, in order
  std::function<void()> kernel(std::string name, double cost) {
    return [this, name, cost] {
      now += cost;
      calls.push_back(name);
    };
  }
  loom::bench::options options(int rounds, double min_time, double load = 0.25) {
    return {.rounds = rounds,
            .min_time = min_time,
            .warmup = 1,
            .max_load = 1.5,
            .clock = [this] { return now; },
            .load_average = [load] { return load; }};
  }
};

}  // namespace

TEST_CASE("median: odd, even, empty, unsorted") {
  using loom::bench::median;
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({7}) == 7);
  CHECK(median({}) == 0);
  CHECK(median({5, 5, 1, 9, 9}) == 5);
}

TEST_CASE("compare: medians per call and ratios to the first entry") {
  fake_time t;
  const auto r = loom::bench::compare("spmv",
                                      {{"hand", t.kernel("hand", 1e-3)},
                                       {"loom csr", t.kernel("csr", 1.5e-3)},
                                       {"loom dcsr", t.kernel("dcsr", 0.5e-3)}},
                                      t.options(5, 0));
  REQUIRE(r.entries.size() == 3);
  CHECK(r.name == "spmv");
  CHECK(r.rounds == 5);
  for (const auto& e : r.entries) {
    CHECK(e.samples.size() == 5);
    CHECK(e.calls_per_sample == 1);  // min_time 0: one call per sample
  }
  CHECK(r.entries[0].median == doctest::Approx(1e-3));
  CHECK(r.entries[1].median == doctest::Approx(1.5e-3));
  CHECK(r.entries[0].ratio == doctest::Approx(1.0));
  CHECK(r.entries[1].ratio == doctest::Approx(1.5));
  CHECK(r.entries[2].ratio == doctest::Approx(0.5));
  REQUIRE(r.find("loom dcsr") != nullptr);
  CHECK(r.find("loom dcsr")->median == doctest::Approx(0.5e-3));
  CHECK(r.find("eigen") == nullptr);
  CHECK(r.quiet());
}

TEST_CASE("compare: warm-up first, then rounds interleaved with a rotating start") {
  fake_time t;
  const auto r = loom::bench::compare(
      "x", {{"a", t.kernel("a", 1)}, {"b", t.kernel("b", 1)}, {"c", t.kernel("c", 1)}},
      t.options(3, 0));
  // one warm-up call of each entry (min_time 0: no calibration calls), then the rounds: round 0
  // starts at a, round 1 at b, round 2 at c
  const std::vector<std::string> expected = {"a", "b", "c",  // warm-up
                                             "a", "b", "c", "b", "c", "a", "c", "a", "b"};
  CHECK(t.calls == expected);
  CHECK(r.entries[2].samples.size() == 3);
}

TEST_CASE("compare: a sample repeats the call to last at least min_time") {
  fake_time t;
  const auto r = loom::bench::compare(
      "short", {{"slow", t.kernel("slow", 1e-3)}, {"fast", t.kernel("fast", 1e-6)}},
      t.options(3, 1e-2));
  const auto& slow = r.entries[0];
  const auto& fast = r.entries[1];
  CHECK(slow.calls_per_sample >= 10);
  CHECK(fast.calls_per_sample >= 10000);
  CHECK(static_cast<double>(fast.calls_per_sample) * 1e-6 >= 0.99e-2);
  CHECK(fast.calls_per_sample <= 20000);        // calibration aims about 20% past min_time
  CHECK(fast.median == doctest::Approx(1e-6));  // still reported per call
  CHECK(fast.ratio == doctest::Approx(1e-3));
}

TEST_CASE("compare: the load average before and after, and the warning above max_load") {
  fake_time t;
  const auto calm = loom::bench::compare("k", {{"a", t.kernel("a", 1)}}, t.options(1, 0, 0.5));
  CHECK(calm.load_before == 0.5);
  CHECK(calm.load_after == 0.5);
  CHECK(calm.quiet());
  CHECK(calm.markdown().find("Warning") == std::string::npos);

  const auto busy = loom::bench::compare("k", {{"a", t.kernel("a", 1)}}, t.options(1, 0, 2.25));
  CHECK_FALSE(busy.quiet());
  CHECK(busy.markdown().find("**Warning**: the load average exceeded 1.50") != std::string::npos);

  const auto unknown = loom::bench::compare("k", {{"a", t.kernel("a", 1)}}, t.options(1, 0, -1));
  CHECK(unknown.quiet());
  CHECK(unknown.markdown().find("load average unknown") != std::string::npos);
}

TEST_CASE("format_time: a unit per magnitude, three significant digits") {
  using loom::bench::format_time;
  CHECK(format_time(812e-9) == "812 ns");
  CHECK(format_time(12.5e-6) == "12.5 µs");
  CHECK(format_time(3.04e-3) == "3.04 ms");
  CHECK(format_time(2.0) == "2.00 s");
  CHECK(format_time(0) == "0.00 ns");
}

TEST_CASE("markdown: the table, the method and the load average") {
  loom::bench::result r;
  r.name = "SpMV";
  r.rounds = 3;
  r.load_before = 0.5;
  r.load_after = 0.75;
  r.entries = {{"hand", {2e-6, 1e-6, 3e-6}, 100}, {"loom csr", {4e-6, 2.5e-6, 2e-6}, 50}};
  loom::bench::summarize(r);
  CHECK(r.entries[1].ratio == doctest::Approx(1.25));
  const std::string expected =
      "| SpMV | median per call | vs hand | min–max over rounds |\n"
      "|---|---:|---:|---:|\n"
      "| hand | 2.00 µs | 1.00× | 1.00 µs–3.00 µs |\n"
      "| loom csr | 2.50 µs | 1.25× | 2.00 µs–4.00 µs |\n"
      "\n"
      "3 interleaved rounds of 50–100 calls per entry, medians per call; load average (1 min) "
      "0.50 before, 0.75 after.\n";
  CHECK(r.markdown() == expected);
}

TEST_CASE("compare: no entries, and real callables with do_not_optimize") {
  const auto none = loom::bench::compare("empty", {}, {.rounds = 3, .min_time = 0});
  CHECK(none.entries.empty());
  CHECK(none.markdown().find("| empty |") == 0);

  // The real clock: only the bookkeeping is checked, never a time.
  std::vector<double> v(64, 1.0);
  const auto r = loom::bench::compare("sum",
                                      {{"loop",
                                        [&] {
                                          double s = 0;
                                          for (double x : v) s += x;
                                          loom::bench::do_not_optimize(s);
                                        }},
                                       {"touch",
                                        [&] {
                                          v[0] = 1.0;
                                          loom::bench::clobber_memory();
                                        }}},
                                      {.rounds = 2, .min_time = 1e-5});
  REQUIRE(r.entries.size() == 2);
  CHECK(r.entries[0].samples.size() == 2);
  CHECK(r.entries[0].ratio == doctest::Approx(1.0));
  CHECK(r.entries[1].median >= 0);
}
