// The runtime skip policy (skip::runtime, opt-in): one kernel per plan whose intersections of
// ordered operands read their policy from the kernel context, compiled into one copy of the loop
// per policy. Every code at every loop against a dense reference (elementwise product, SpMSpV, a
// three-way product at one loop), over formats, densities and seeds; the codes the cost model
// picks (worked values); loom::assign and loom::explain with `opt::runtime_skips`.
// (stream/combinators.hpp mul_stream, optimize/choice/skip_choice.hpp runtime_skip_codes.)
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec/skip_queries.hpp>
#include <loom/loom.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "skip_random.hpp"

namespace {

namespace mp11 = boost::mp11;
namespace sk = loom::stream::skip;
using loom_test::random_tensor;
using mp11::mp_list;
// one kernel per plan, its intersections' codes chosen from statistics or forced (skip_codes)
using runtime = loom::options<loom::opt::runtime_skips>;

constexpr loom::index<"ri"> ri;
constexpr loom::index<"rj"> rj;

constexpr std::array<sk::code, 4> all_codes{sk::code::leapfrog, sk::code::merge,
                                            sk::code::lead_first, sk::code::lead_last};

sk::codes codes_of(sk::code outer, sk::code inner) {
  sk::codes c = sk::default_codes;
  c[0] = outer;
  c[1] = inner;
  return c;
}

const char* name(sk::code c) { return loom::optimize::skip_code_name(c); }

template <class FA, class FB>
void check_elementwise(std::int64_t m, std::int64_t n, double pa, double pb, unsigned seed) {
  std::vector<double> da, db;
  const auto A = random_tensor<FA, 2>({m, n}, pa, seed, da);
  const auto B = random_tensor<FB, 2>({m, n}, pb, seed * 5 + 2, db);
  auto same = [&](const auto& C) {
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t q = 0; q < n; ++q) {
        const auto k = static_cast<std::size_t>(r * n + q);
        CHECK(C.at(r, q) == da[k] * db[k]);
      }
  };
  for (sk::code outer : all_codes)
    for (sk::code inner : all_codes) {
      CAPTURE(name(outer));
      CAPTURE(name(inner));
      loom::tensor<double, loom::dcsr> C({m, n});
      loom::assign(C(ri, rj), A(ri, rj) * B(ri, rj), runtime{.skip_codes = codes_of(outer, inner)});
      same(C);
    }
  loom::tensor<double, loom::dcsr> C({m, n});
  loom::assign(C(ri, rj), A(ri, rj) * B(ri, rj), runtime{});  // chosen codes
  same(C);
  loom::tensor<double, loom::csr> D({m, n});
  loom::assign(D(ri, rj), A(ri, rj) * B(ri, rj), runtime{});  // the codes chosen, into csr
  same(D);
}

template <class FA, class FX>
void check_spmspv(std::int64_t m, std::int64_t n, double pa, double px, unsigned seed) {
  std::vector<double> da, dx;
  const auto A = random_tensor<FA, 2>({m, n}, pa, seed, da);
  const auto x = random_tensor<FX, 1>({n}, px, seed * 3 + 11, dx);
  const std::vector<double> ref = loom_test::dense_matvec(da, dx, m, n);
  auto same = [&](const auto& y) {
    for (std::int64_t r = 0; r < m; ++r) CHECK(y.at(r) == ref[static_cast<std::size_t>(r)]);
  };
  for (sk::code inner : all_codes) {
    CAPTURE(name(inner));
    loom::tensor<double, loom::sparse_vector> y({m});
    loom::assign(y(ri), loom::sum(rj, A(ri, rj) * x(rj)),
                 runtime{.skip_codes = codes_of(sk::code::leapfrog, inner)});
    same(y);
  }
  loom::tensor<double, loom::dense_vector> y({m});
  loom::assign(y(ri), loom::sum(rj, A(ri, rj) * x(rj)), runtime{});
  same(y);
}

using elementwise_formats = mp_list<mp_list<loom::csr, loom::csr>, mp_list<loom::dcsr, loom::coo>,
                                    mp_list<loom::csc, loom::csc>, mp_list<loom::coo, loom::dcsr>>;
using spmspv_formats =
    mp_list<mp_list<loom::csr, loom::sparse_vector>, mp_list<loom::dcsr, loom::sparse_vector>>;

constexpr std::array<std::pair<double, double>, 4> densities{
    std::pair{0.3, 0.3}, std::pair{0.02, 0.8}, std::pair{0.7, 0.05}, std::pair{1.0, 0.0}};

}  // namespace

TEST_CASE("runtime skip: every code at every loop gives the reference elementwise product") {
  mp11::mp_for_each<elementwise_formats>([&](auto combo) {
    using FA = mp11::mp_first<decltype(combo)>;
    using FB = mp11::mp_second<decltype(combo)>;
    CAPTURE(loom::format_name<FA>());
    CAPTURE(loom::format_name<FB>());
    for (unsigned seed : {1u, 2u})
      for (const auto& p : densities) {
        CAPTURE(seed);
        CAPTURE(p.first);
        CAPTURE(p.second);
        check_elementwise<FA, FB>(13, 29, p.first, p.second, seed);
      }
  });
  check_elementwise<loom::csr, loom::csr>(0, 7, 0.5, 0.5, 3);  // empty shapes
  check_elementwise<loom::csr, loom::csr>(5, 0, 0.5, 0.5, 3);
}

TEST_CASE("runtime skip: every code at the inner loop gives the reference SpMSpV") {
  mp11::mp_for_each<spmspv_formats>([&](auto combo) {
    using FA = mp11::mp_first<decltype(combo)>;
    using FX = mp11::mp_second<decltype(combo)>;
    CAPTURE(loom::format_name<FA>());
    for (unsigned seed : {1u, 2u, 3u})
      for (const auto& p : densities) {
        CAPTURE(seed);
        CAPTURE(p.first);
        check_spmspv<FA, FX>(17, 41, p.first, p.second, seed);
      }
  });
}

TEST_CASE("runtime skip: a three-way product at one loop, every code") {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::vector<double> dx, dy, dz;
    const auto x = random_tensor<loom::sparse_vector, 1>({300}, 0.5, seed, dx);
    const auto y = random_tensor<loom::sparse_vector, 1>({300}, 0.05, seed + 10, dy);
    const auto z = random_tensor<loom::sparse_vector, 1>({300}, 0.9, seed + 20, dz);
    double ref = 0;
    for (std::size_t q = 0; q < dx.size(); ++q) ref += dx[q] * dy[q] * dz[q];
    for (sk::code c : all_codes) {
      CAPTURE(name(c));
      sk::codes codes = sk::default_codes;
      codes[0] = c;
      loom::tensor<double, loom::format<>> s;
      loom::assign(loom::expr::access<decltype(s)>{&s}, loom::sum(ri, x(ri) * y(ri) * z(ri)),
                   runtime{.skip_codes = codes});
      CHECK(s.values()[0] == ref);
    }
    loom::tensor<double, loom::format<>> s;
    loom::assign(loom::expr::access<decltype(s)>{&s}, loom::sum(ri, x(ri) * y(ri) * z(ri)),
                 runtime{});
    CHECK(s.values()[0] == ref);
  }
}

TEST_CASE("runtime skip: the cost model's codes (worked values)") {
  // One loop, two sorted vectors (one fiber each). Costs per fiber (step = seek = 1):
  //   balanced, 100 and 100 entries: leapfrog 2 * 100 * (1 + log2(2)) = 400, merge 200,
  //   lead first 100 + 100 * (1 + log2(2)) = 300, lead last 300: merge.
  //   skewed, 1000 and 10 entries: leapfrog 10 (1 + log2 101) + 10 (1 + 1) = 96.6,
  //   merge 1010, lead first 1000 + 1000 (1 + log2 1.01) = 2014, lead last 10 + 76.6 = 86.6:
  //   lead last (the short vector iterates).
  auto vec = [](std::int64_t n, std::int64_t every) {
    std::vector<std::array<std::int64_t, 1>> c;
    std::vector<double> v;
    for (std::int64_t q = 0; q < n; q += every) c.push_back({q}), v.push_back(1.0);
    return loom::from_coo<loom::sparse_vector>({n}, c, v);
  };
  auto a = vec(1000, 10), b = vec(1000, 10);  // 100 entries each
  loom::tensor<double, loom::format<>> s;
  const loom::expr::access<decltype(s)> out{&s};
  auto chosen = loom::plan_runtime_skips(out, loom::sum(ri, a(ri) * b(ri)));
  CHECK(name(chosen[0]) == std::string("merge"));
  auto big = vec(1000, 1), small = vec(1000, 100);  // 1000 and 10 entries
  chosen = loom::plan_runtime_skips(out, loom::sum(ri, big(ri) * small(ri)));
  CHECK(name(chosen[0]) == std::string("lead last"));
  chosen = loom::plan_runtime_skips(out, loom::sum(ri, small(ri) * big(ri)));
  CHECK(name(chosen[0]) == std::string("lead first"));

  // the kernel runs with them, and the table shows the choice starred
  loom::assign(out, loom::sum(ri, big(ri) * small(ri)), runtime{});
  CHECK(s.values()[0] == 10.0);
  big.set_name("big");
  small.set_name("small");
  const std::string plan = loom::explain(out, loom::sum(ri, big(ri) * small(ri)), runtime{});
  MESSAGE(plan);
  // the default options run the static table, and explain says nothing of a choice
  CHECK(loom::explain(out, loom::sum(ri, big(ri) * small(ri))).find("skip policy per loop") ==
        std::string::npos);
  // forced codes are said to be
  CHECK(loom::explain(out, loom::sum(ri, big(ri) * small(ri)), runtime{.skip_codes = chosen})
            .find("codes forced by the options") != std::string::npos);
  CHECK(plan.find("skip policy per loop (chosen at run time from statistics, one kernel)") !=
        std::string::npos);
  CHECK(plan.find("* lead last (small [sparse_vector] iterates): estimated cost 87") !=
        std::string::npos);
  CHECK(plan.find("  merge: estimated cost 1010") != std::string::npos);
}

TEST_CASE("runtime skip: no choice where an operand is random-access") {
  using dense_hashed = loom::format<loom::dense, loom::hashed>;
  std::vector<double> da, dx;
  const auto A = random_tensor<dense_hashed, 2>({9, 31}, 0.3, 4, da);
  const auto x = random_tensor<loom::sparse_vector, 1>({31}, 0.5, 5, dx);
  for (sk::code c : all_codes) {  // hashed rows are located whatever the code says
    loom::tensor<double, loom::dense_vector> y({9});
    loom::assign(y(ri), loom::sum(rj, A(ri, rj) * x(rj)),
                 runtime{.skip_codes = codes_of(sk::code::leapfrog, c)});
    for (std::int64_t r = 0; r < 9; ++r) {
      double ref = 0;
      for (std::int64_t q = 0; q < 31; ++q)
        ref += da[static_cast<std::size_t>(r * 31 + q)] * dx[static_cast<std::size_t>(q)];
      CHECK(y.at(r) == ref);
    }
  }
  loom::tensor<double, loom::dense_vector> y({9});
  CHECK(loom::explain(y(ri), loom::sum(rj, A(ri, rj) * x(rj)), runtime{}).find("skip policy") ==
        std::string::npos);
  CHECK(loom::explain(y(ri), loom::sum(rj, A(ri, rj) * x(rj))).find("skip policy") ==
        std::string::npos);
}
