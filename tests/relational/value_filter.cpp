// Value filters fused into a kernel (Etch's valFilter; notes T12): the filtered SpMV against a
// brute-force loop, and the rows below filtered entries are never visited.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {
namespace rel = loom::relational;
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

TEST_CASE("filtered SpMV of the notes (T12): 18, and filtered rows are never entered") {
  const auto A = loom::from_coo<loom::csr>({3, 2}, {{0, 0}, {0, 1}, {1, 1}, {2, 0}},
                                           std::vector<double>{1, 2, 3, 4});
  const auto v = loom::from_coo<loom::sparse_vector>({3}, {{0}, {1}, {2}},
                                                     std::vector<double>{0.5, 2, 3});
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
