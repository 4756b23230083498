// loom::options: the tags and their checks; loom::assign / accumulate / eval / explain /
// decompose under every option against the dense reference over formats, densities and seeds;
// and the same kernel built under other options in another translation unit
// (tests/support/options_other_tu.cpp), linked into this program, each running its own code.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "support/options_other_tu.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"

namespace {

namespace lt = loom::test;
using loom::opt::skip_candidates;
namespace sk = loom::stream::skip;

constexpr loom::index<"opt_i"> i;
constexpr loom::index<"opt_j"> j;
constexpr loom::index<"opt_k"> k;
constexpr loom::index<"opt_l"> l;

// The options the tests run under: every skip tag, and decomposition with every format option.
using static_opts = loom::options<>;
using runtime_opts = loom::options<loom::opt::runtime_skips>;
using choosing_opts = loom::options<skip_candidates<4>>;
using fixed_opts = loom::options<loom::opt::fixed_skips<sk::per_loop<sk::standard, sk::merge>>>;
using eliminate_opts = loom::options<loom::opt::eliminate, loom::opt::bitmap_intermediates,
                                     loom::opt::hashed_intermediates>;

template <class T, std::size_t N>
void check_close(const lt::dense_result<T, N>& got, const lt::dense_result<T, N>& want) {
  REQUIRE(got.values.size() == want.values.size());
  for (std::size_t p = 0; p < got.values.size(); ++p)
    CHECK(got.values[p] == doctest::Approx(want.values[p]));
}

}  // namespace

TEST_CASE("options: tags, their defaults and their checks") {
  static_assert(std::is_same_v<static_opts::skips, loom::opt::static_skips>);
  static_assert(static_opts::skip_cap == 1 && !static_opts::eliminate);
  static_assert(choosing_opts::skip_cap == 4);
  static_assert(loom::options<skip_candidates<>>::skip_cap == loom::limits::skip_candidates);
  static_assert(eliminate_opts::eliminate && eliminate_opts::bitmap_intermediates &&
                eliminate_opts::hashed_intermediates && !eliminate_opts::format_per_step);
  static_assert(eliminate_opts::compiles(loom::intermediate_format::bitmap));
  // every intermediate format is compiled in without its (accepted, former) tag
  static_assert(loom::options<loom::opt::eliminate>::compiles(loom::intermediate_format::hashed));
  static_assert(loom::options_type<const runtime_opts&> && !loom::options_type<int>);
  static_assert(std::is_same_v<loom::default_options, loom::options<>>);
  // the forced fields are empty unless given
  const runtime_opts none{};
  CHECK(!none.skip_codes.has_value());
  const choosing_opts forced{.skip_candidate = 2};
  CHECK(forced.skip_candidate == std::size_t{2});
}

TEST_CASE("options: assign, accumulate and eval under every skip option match the reference") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    for (const lt::density d : {lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(seed);
      CAPTURE(lt::density_name(d));
      const auto A = lt::random_tensor<double, loom::csr>({9, 13}, d, seed);
      const auto B = lt::random_tensor<double, loom::dcsr>({9, 13}, lt::density::medium, seed + 7);
      const auto x = lt::random_tensor<double, loom::sparse_vector>({13}, d, seed + 3);
      loom::tensor<double, loom::dense_vector> y({9});
      loom::tensor<double, loom::csr> C({9, 13});
      const auto want_y = lt::reference_eval(y(i), loom::sum(j, A(i, j) * x(j)));
      const auto want_c = lt::reference_eval(C(i, j), A(i, j) * B(i, j));
      double dot = 0;
      for (std::int64_t r = 0; r < 9; ++r)
        for (std::int64_t q = 0; q < 13; ++q) dot += A.at(r, q) * B.at(r, q);
      auto each = [&](const auto& opts) {
        loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), opts);
        check_close(lt::to_dense(y), want_y);
        loom::accumulate(y(i), loom::sum(j, A(i, j) * x(j)), opts);
        auto twice = want_y;
        for (double& v : twice.values) v *= 2;
        check_close(lt::to_dense(y), twice);
        loom::assign(C(i, j), A(i, j) * B(i, j), opts);
        check_close(lt::to_dense(C), want_c);
        CHECK(loom::eval(loom::sum(i, j, A(i, j) * B(i, j)), opts) == doctest::Approx(dot));
      };
      each(static_opts{});
      each(runtime_opts{});
      each(runtime_opts{.skip_codes = sk::codes{sk::code::lead_first, sk::code::lead_last}});
      each(choosing_opts{});
      for (std::size_t c = 0; c < 6; ++c) each(choosing_opts{.skip_candidate = c});  // clamped
      each(fixed_opts{});
    }
}

TEST_CASE("options: explain says what the options choose") {
  const auto A = lt::random_tensor<double, loom::csr>({40, 300}, lt::density::medium, 5);
  const auto x = lt::random_tensor<double, loom::sparse_vector>({300}, lt::density::sparse, 6);
  loom::tensor<double, loom::dense_vector> y({40});
  const auto e = loom::sum(j, A(i, j) * x(j));
  CHECK(loom::explain(y(i), e).find("skip policy per loop") == std::string::npos);
  CHECK(loom::explain(y(i), e, choosing_opts{}).find("skip policy per loop") != std::string::npos);
  CHECK(loom::explain(y(i), e, choosing_opts{.skip_candidate = 1})
            .find("skip candidate #1 forced by the options") != std::string::npos);
  CHECK(loom::explain(y(i), e, runtime_opts{}).find("chosen at run time from statistics") !=
        std::string::npos);
  CHECK(loom::explain(y(i), e, fixed_opts{})
            .find("skip policies fixed by the options (by loop): standard, merge") !=
        std::string::npos);
  CHECK(loom::explain(y(i), e, eliminate_opts{}).find("decomposition candidates") !=
        std::string::npos);
}

TEST_CASE("options: opt::eliminate runs loom::decompose, its forced fields checked") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const auto A = lt::random_tensor<double, loom::csr>({7, 8}, lt::density::medium, seed);
    const auto B = lt::random_tensor<double, loom::csr>({8, 6}, lt::density::medium, seed + 1);
    const auto C = lt::random_tensor<double, loom::csr>({6, 5}, lt::density::medium, seed + 2);
    loom::tensor<double, loom::dense_matrix> out({7, 5});
    const auto rhs = loom::sum(j, loom::sum(k, A(i, j) * B(j, k) * C(k, l)));
    const auto want = lt::reference_eval(out(i, l), rhs);
    loom::assign(out(i, l), rhs, eliminate_opts{});
    check_close(lt::to_dense(out), want);
    const auto plan = loom::plan_decomposition(out(i, l), rhs, eliminate_opts{});
    for (std::size_t c = 0; c < plan.cost.size(); ++c)
      for (const loom::intermediate_format f : loom::intermediate_formats) {
        CAPTURE(c);
        CAPTURE(loom::intermediate_format_name(f));
        loom::assign(out(i, l), rhs, eliminate_opts{.candidate = c, .intermediates = {f}});
        check_close(lt::to_dense(out), want);
      }
    CHECK_THROWS_WITH_AS(
        loom::assign(out(i, l), rhs, eliminate_opts{.candidate = plan.cost.size()}),
        doctest::Contains("does not exist"), loom::shape_error);
  }
}

TEST_CASE("options: one kernel under other options in another translation unit runs its own") {
  namespace odr = loom_test::options_odr;
  using odr::i;
  using odr::j;
  const auto A = lt::random_tensor<double, loom::csr>({40, 300}, lt::density::medium, 11);
  const auto x = lt::random_tensor<double, loom::sparse_vector>({300}, lt::density::sparse, 12);
  odr::result y({40}), other({40});
  // this unit: the default options (the static skip table)
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)));
  const std::string here = loom::explain(y(i), loom::sum(j, A(i, j) * x(j)));
  // the other unit: the same tensor types and index names under skip_candidates<4>
  const std::string there = odr::explain_in_other_tu(other, A, x);
  CHECK(here.find("skip policy per loop") == std::string::npos);
  CHECK(there.find("skip policy per loop") != std::string::npos);
  for (std::size_t c = 0; c < 4; ++c) {
    CAPTURE(c);
    odr::assign_in_other_tu(other, A, x, c);
    check_close(lt::to_dense(other), lt::to_dense(y));
  }
}

TEST_CASE("options: the cached skip choice of one candidate count is not read under another") {
  // lead last (#3 of 4) is the cheapest here; under two candidates there is no #3
  const auto A = lt::random_tensor<double, loom::csr>({8, 20000}, lt::density::medium, 21);
  const auto x = lt::random_tensor<double, loom::sparse_vector>({20000}, lt::density::sparse, 22);
  loom::tensor<double, loom::dense_vector> y({8}), z({8});
  const auto want = lt::reference_eval(y(i), loom::sum(j, A(i, j) * x(j)));
  const auto four = loom::plan_skip<4>(y(i), loom::sum(j, A(i, j) * x(j)));
  CHECK(four.chosen >= 2);
  loom::assign(y(i), loom::sum(j, A(i, j) * x(j)), loom::options<skip_candidates<4>>{});
  check_close(lt::to_dense(y), want);
  loom::assign(z(i), loom::sum(j, A(i, j) * x(j)), loom::options<skip_candidates<2>>{});
  check_close(lt::to_dense(z), want);
}
