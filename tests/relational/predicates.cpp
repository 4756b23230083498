// Predicates multiplied into kernels: key ranges as an implicit stream level (rel::interval,
// Etch's predRange) against the materialised range and brute force, iterated or located; and
// value filters fused into a kernel (rel::value_filter, Etch's valFilter; notes T12): the
// filtered SpMV against brute force, with the rows below filtered entries never visited.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {
namespace rel = loom::relational;
constexpr loom::index<"a"> a;
constexpr loom::index<"b"> b;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;

// Counts how often the kernel reads a value of A: a semiring-free probe through loom::map.
struct counting_identity {
  static constexpr bool zero_preserving = true;
  std::int64_t* calls;
  double operator()(double x) const {
    ++*calls;
    return x;
  }
};
}  // namespace

TEST_CASE("interval selects the keys in [lo, hi), iterated or located") {
  std::mt19937 gen(9);
  const std::int64_t n = 50;
  std::vector<std::array<std::int64_t, 2>> crd;
  std::vector<double> val;
  for (int k = 0; k < 300; ++k) {
    crd.push_back({static_cast<std::int64_t>(gen() % n), static_cast<std::int64_t>(gen() % n)});
    val.push_back(static_cast<double>(1 + gen() % 9));
  }
  const auto D = loom::from_coo<loom::dcsr>({n, n}, crd, val, loom::duplicates::sum);  // iterated
  const auto C = loom::from_coo<loom::csr>({n, n}, crd, val, loom::duplicates::sum);   // located
  for (const auto& [lo, hi] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, 50}, {10, 20}, {-5, 3}, {45, 99}, {7, 7}, {30, 10}}) {
    const auto iv = rel::interval<double>(lo, hi, n);
    loom::tensor<double, loom::dense_vector> y1({n}), y2({n}), y3({n});
    y1(b) = loom::sum(a, iv(a) * D(a, b));
    y2(b) = loom::sum(a, iv(a) * C(a, b));
    const auto rg = rel::range<double>(lo, hi, n);
    y3(b) = loom::sum(a, rg(a) * D(a, b));
    for (std::int64_t c = 0; c < n; ++c) {
      double ref = 0;
      for (std::int64_t r = std::max<std::int64_t>(lo, 0); r < std::min(hi, n); ++r)
        ref += D.at(r, c);
      CHECK(y1.at(c) == ref);
      CHECK(y2.at(c) == ref);
      CHECK(y3.at(c) == ref);
    }
  }
  CHECK(rel::interval<double>(3, 8, 10).nnz() == 1);  // no stored keys: one shared value
}

TEST_CASE("an assembled interval level holds consecutive keys and rejects gaps") {
  const auto t = loom::from_coo<loom::format<rel::interval_level>>({10}, {{4}, {3}, {5}},
                                                                   std::vector<double>{2, 1, 3});
  CHECK(t.at(3) == 1);
  CHECK(t.at(5) == 3);
  CHECK(t.at(6) == 0);
  CHECK(loom::eval(loom::sum(a, t(a) * rel::interval<double>(4, 10, 10)(a))) == 5);
  CHECK_THROWS_AS((loom::from_coo<loom::format<rel::interval_level>>({10}, {{1}, {3}},
                                                                     std::vector<double>{1, 1})),
                  loom::shape_error);
}

TEST_CASE("filtered SpMV of the notes (T12): 18, and filtered rows are never entered") {
  const auto A = loom::from_coo<loom::csr>({3, 2}, {{0, 0}, {0, 1}, {1, 1}, {2, 0}},
                                           std::vector<double>{1, 2, 3, 4});
  const auto v =
      loom::from_coo<loom::sparse_vector>({3}, {{0}, {1}, {2}}, std::vector<double>{0.5, 2, 3});
  const auto vf = rel::value_filter<rel::greater>(v, 1.0);
  CHECK(loom::eval(loom::sum(i, j, vf(i) * A(i, j))) == 2 * 3 + 3 * 4);
  std::int64_t calls = 0;
  const double s =
      loom::eval(loom::sum(i, j, vf(i) * loom::map(counting_identity{&calls}, A(i, j))));
  CHECK(s == 18);
  CHECK(calls == 2);  // row 1 (one entry) and row 2 (one entry); row 0 is filtered out
}

TEST_CASE("value filters against brute force, for every comparison") {
  std::mt19937 gen(5);
  const std::int64_t n = 60;
  std::vector<std::array<std::int64_t, 2>> ac;
  std::vector<double> av;
  for (int k = 0; k < 400; ++k) {
    ac.push_back({static_cast<std::int64_t>(gen() % n), static_cast<std::int64_t>(gen() % n)});
    av.push_back(static_cast<double>(gen() % 10));
  }
  const auto A = loom::from_coo<loom::csr>({n, n}, ac, av, loom::duplicates::sum);
  std::vector<std::array<std::int64_t, 1>> vc;
  std::vector<double> vv;
  for (std::int64_t r = 0; r < n; r += 1 + static_cast<std::int64_t>(gen() % 3)) {
    vc.push_back({r});
    vv.push_back(static_cast<double>(gen() % 100) / 10.0);
  }
  const auto v = loom::from_coo<loom::sparse_vector>({n}, vc, vv);
  for (const double t : {-1.0, 0.0, 2.5, 5.0, 9.9, 100.0}) {
    auto run = [&](auto vf, auto keep) {
      loom::tensor<double, loom::dense_vector> y({n});
      y(j) = loom::sum(i, vf(i) * A(i, j));
      std::vector<double> ref(static_cast<std::size_t>(n), 0.0);
      for (std::size_t e = 0; e < vc.size(); ++e)
        if (keep(vv[e]))
          for (std::int64_t c = 0; c < n; ++c) ref[c] += vv[e] * A.at(vc[e][0], c);
      for (std::int64_t c = 0; c < n; ++c) CHECK(y.at(c) == doctest::Approx(ref[c]));
    };
    run(rel::value_filter<rel::greater>(v, t), [t](double x) { return x > t; });
    run(rel::value_filter<rel::greater_equal>(v, t), [t](double x) { return x >= t; });
    run(rel::value_filter<rel::less>(v, t), [t](double x) { return x < t; });
    run(rel::value_filter<rel::less_equal>(v, t), [t](double x) { return x <= t; });
  }
}
