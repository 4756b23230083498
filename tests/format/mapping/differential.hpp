// The differential check of a storage mapping: random structured matrices (many seeds, every
// density) built in the mapping and in the built-in CSR; kernels over the mapped tensor compared
// with the dense reference evaluated on the CSR copy (so a wrong offset in the mapping cannot
// hide in the reference, which reads operands through at()).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_FORMAT_MAPPING_DIFFERENTIAL_HPP
#define LOOM_TESTS_FORMAT_MAPPING_DIFFERENTIAL_HPP

#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>
#include <loom/plan.hpp>
#include <loom/stream.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>

#include <support/compare.hpp>
#include <support/random.hpp>
#include <support/reference.hpp>

namespace mapping_test {

namespace lt = loom::test;
constexpr loom::index<"i"> i;
constexpr loom::index<"j"> j;
constexpr loom::index<"k"> k;

/// Which (i, j) a format stores: the mapping's region.
using region = std::function<bool(std::int64_t, std::int64_t)>;

inline const std::array<std::int64_t, 6> sizes{1, 4, 7, 8, 13, 16};

/// Random entries of an n x n matrix inside `inside`; mirrored when `symmetric`.
inline lt::coo_data<double, 2> structured(std::int64_t n, lt::density d, std::uint64_t seed,
                                          const region& inside, bool symmetric) {
  auto all = lt::random_coo<double>(std::array<std::int64_t, 2>{n, n}, d, seed);
  lt::coo_data<double, 2> out;
  out.shape = all.shape;
  for (std::size_t e = 0; e < all.coords.size(); ++e) {
    const auto [r, c] = all.coords[e];
    if (symmetric) {
      if (c > r) continue;
      out.coords.push_back({r, c});
      out.values.push_back(all.values[e]);
      if (c != r) {
        out.coords.push_back({c, r});
        out.values.push_back(all.values[e]);
      }
    } else if (inside(r, c)) {
      out.coords.push_back({r, c});
      out.values.push_back(all.values[e]);
    }
  }
  return out;
}

/// Runs the kernels over `Format` for every size, density and seed; returns the cases run.
/// `All`: the 8 kernels (SpMV both ways, sparse x, multiply, add, SpMM, A*A, sum); else the
/// first four (one instantiation costs ~1.5 s of compile time).
template <class Format, bool All = true>
int run_differential(const std::string& name, const region& inside, bool symmetric = false) {
  int cases = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
    for (const lt::density d : lt::all_densities) {
      const std::int64_t n = sizes[(seed + static_cast<std::uint64_t>(d)) % sizes.size()];
      const auto data = structured(n, d, lt::mix_seed(seed, 7), inside, symmetric);
      auto A = lt::build<Format>(data);
      const auto R = lt::build<loom::csr>(data);
      A.set_name("A");
      lt::case_context ctx{
          "", name, "double", std::string(lt::density_name(d)), seed, std::to_string(n)};
      // the stored contents, without at()
      {
        ctx.expression = "contents";
        lt::dense_result<double, 2> want;
        want.shape = {n, n};
        want.values.assign(static_cast<std::size_t>(n * n), 0.0);
        for (std::size_t e = 0; e < data.coords.size(); ++e)
          want.at(data.coords[e]) += data.values[e];
        CHECK(lt::check_tensor(A, want, ctx));
      }
      const auto x =
          lt::random_tensor<double, loom::dense_vector>({n}, lt::density::full, seed + 11);
      const auto xs =
          lt::random_tensor<double, loom::sparse_vector>({n}, lt::density::medium, seed + 12);
      const auto B =
          lt::random_tensor<double, loom::csr>({n, n}, lt::rotated_density(2, seed), seed + 13);
      const auto D =
          lt::random_tensor<double, loom::dense_matrix>({n, 3}, lt::density::full, seed + 14);
      auto compare = [&](const std::string& what, auto out, auto&& with_mapping, auto&& with_csr) {
        ctx.expression = what;
        const auto want = lt::reference_eval(out, with_csr);
        const bool ran = lt::run_guarded(ctx, [&] { out = with_mapping; });
        CHECK((ran && lt::check_tensor(*out.tensor, want, ctx)));
        ++cases;
      };
      loom::tensor<double, loom::dense_vector> y({n});
      compare("y(i) = sum(j, A(i,j) * x(j))", y(i), loom::sum(j, A(i, j) * x(j)),
              loom::sum(j, R(i, j) * x(j)));
      compare("y(j) = sum(i, A(i,j) * x(i))", y(j), loom::sum(i, A(i, j) * x(i)),
              loom::sum(i, R(i, j) * x(i)));
      loom::tensor<double, loom::sparse_vector> ys({n});
      compare("ys(i) = sum(j, xs(j) * A(i,j))", ys(i), loom::sum(j, xs(j) * A(i, j)),
              loom::sum(j, xs(j) * R(i, j)));
      loom::tensor<double, loom::dcsr> C({n, n});
      compare("C(i,j) = A(i,j) * B(i,j)", C(i, j), A(i, j) * B(i, j), R(i, j) * B(i, j));
      if constexpr (All) {
        loom::tensor<double, loom::csr> E({n, n});
        compare("E(i,j) = A(i,j) + B(i,j)", E(i, j), A(i, j) + B(i, j), R(i, j) + B(i, j));
        loom::tensor<double, loom::dense_matrix> F({n, 3});
        compare("F(i,k) = sum(j, A(i,j) * D(j,k))", F(i, k), loom::sum(j, A(i, j) * D(j, k)),
                loom::sum(j, R(i, j) * D(j, k)));
        loom::tensor<double, loom::dense_matrix> G({n, n});
        compare("G(i,j) = A(i,j) * A(i,j)", G(i, j), A(i, j) * A(i, j), R(i, j) * R(i, j));
        ctx.expression = "sum(i, sum(j, A(i,j)))";
        const double want = lt::reference_eval(loom::sum(i, loom::sum(j, R(i, j))));
        double got = 0;
        CHECK(lt::run_guarded(ctx, [&] { got = loom::eval(loom::sum(i, loom::sum(j, A(i, j)))); }));
        CHECK(lt::check_scalar(got, want, ctx));
        ++cases;
      }
    }
  return cases;
}

}  // namespace mapping_test

#endif  // LOOM_TESTS_FORMAT_MAPPING_DIFFERENTIAL_HPP
