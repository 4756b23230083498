// Complexity guard of the rewrites: for every family of expressions the evaluator
// rewrites (maps, where, predicates, another semiring, broadcasts, tensor kernels, other
// formats), the kernel it runs does no more work than the kernel as written. The sum-product
// kernels over csr are in kernels.cpp. SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "../support/random.hpp"
#include "support.hpp"

using namespace loom::test::work;

namespace {
struct plus_one {
  double operator()(double v) const { return v + 1; }
};
struct difference {
  double operator()(double a, double b) const { return a - b; }
};
}  // namespace

TEST_CASE("work: maps, where, predicates and broadcasts run no more work than written") {
  const std::int64_t n = 300;
  const auto A = rows_of(n, n, 8, 21), B = rows_of(n, n, 8, 22);
  const auto x =
      loom::test::random_tensor<double, loom::dense_vector>({n}, loom::test::density::full, 23);
  loom::tensor<double, loom::dense_vector> y({n});
  loom::tensor<double, loom::csr> C({n, n});
  rewritten_not_worse("map in a sum", y, y(i), loom::sum(j, loom::map(plus_one{}, A(i, j)) * x(j)));
  rewritten_not_worse("map of a sum", y, y(i), loom::map(plus_one{}, loom::sum(j, A(i, j) * x(j))));
  rewritten_not_worse("binary map", C, C(i, j), loom::map(difference{}, A(i, j), B(i, j)));
  rewritten_not_worse("where", C, C(i, j), loom::where(A(i, j) > 1, B(i, j)));
  rewritten_not_worse("predicate", C, C(i, j), A(i, j) == B(i, j));
  rewritten_not_worse("broadcast product", C, C(i, j), A(i, j) * loom::expand(j, x(i)));
  rewritten_not_worse("sum of a broadcast", y, y(i), loom::sum(j, A(i, j) + x(i)));
  rewritten_not_worse("scaled SpMV", y, y(i), loom::sum(j, 2.0 * A(i, j) * x(j)));
}

TEST_CASE("work: another semiring and other formats run no more work than written") {
  const std::int64_t n = 300;
  const auto A = rows_of(n, n, 8, 31), B = rows_of(n, n, 8, 32);
  using mp = loom::min_plus<double>;
  const auto Am = loom::test::random_tensor<mp, loom::csr>({n, n}, loom::test::density::sparse, 35);
  const auto Bm = loom::test::random_tensor<mp, loom::csr>({n, n}, loom::test::density::sparse, 36);
  const auto xm =
      loom::test::random_tensor<mp, loom::dense_vector>({n}, loom::test::density::full, 33);
  loom::tensor<mp, loom::dense_vector> ym({n});
  loom::tensor<mp, loom::csr> Cm({n, n});
  rewritten_not_worse("min-plus SpMV", ym, ym(i), loom::sum(j, Am(i, j) * xm(j)));
  rewritten_not_worse("min-plus SpGEMM", Cm, Cm(i, j), loom::sum(k, Am(i, k) * Bm(k, j)));

  const loom::tensor<double, loom::csc> Ac(A), Bc(B);
  const loom::tensor<double, loom::dcsr> Ad(A);
  const loom::tensor<double, loom::coo> Ao(A);
  const auto x =
      loom::test::random_tensor<double, loom::dense_vector>({n}, loom::test::density::full, 34);
  loom::tensor<double, loom::dense_vector> y({n});
  loom::tensor<double, loom::csc> Cc({n, n});
  rewritten_not_worse("csc add", Cc, Cc(i, j), Ac(i, j) + Bc(i, j));
  rewritten_not_worse("csc SpMV", y, y(i), loom::sum(j, Ac(i, j) * x(j)));
  rewritten_not_worse("dcsr SpMV", y, y(i), loom::sum(j, Ad(i, j) * x(j)));
  rewritten_not_worse("coo transposed SpMV", y, y(j), loom::sum(i, Ao(i, j) * x(i)));
}

TEST_CASE("work: TTV, TTM and MTTKRP run no more work than written") {
  const std::int64_t n = 40, r = 8;
  using csf3 = loom::format<loom::dense, loom::compressed, loom::compressed>;
  const auto T =
      loom::test::random_tensor<double, csf3>({n, n, n}, loom::test::density::sparse, 41);
  const auto v =
      loom::test::random_tensor<double, loom::dense_vector>({n}, loom::test::density::full, 42);
  const auto M =
      loom::test::random_tensor<double, loom::dense_matrix>({n, r}, loom::test::density::full, 43);
  const auto P =
      loom::test::random_tensor<double, loom::dense_matrix>({n, r}, loom::test::density::full, 44);
  loom::tensor<double, loom::csr> Y({n, n});
  loom::tensor<double, loom::format<loom::dense, loom::compressed, loom::dense>> Z({n, n, r});
  loom::tensor<double, loom::dense_matrix> W({n, r});
  rewritten_not_worse("TTV", Y, Y(i, j), loom::sum(k, T(i, j, k) * v(k)));
  rewritten_not_worse("TTM", Z, Z(i, j, l), loom::sum(k, T(i, j, k) * M(k, l)));
  rewritten_not_worse("MTTKRP", W, W(i, l), loom::sum(j, k, T(i, j, k) * M(j, l) * P(k, l)));
}

TEST_CASE("work: pointwise arithmetic, literals, transposed outputs and reductions") {
  const std::int64_t n = 300;
  const auto A = rows_of(n, n, 8, 51), B = rows_of(n, n, 8, 52), D = rows_of(n, n, 4, 53);
  const auto xs =
      loom::test::random_tensor<double, loom::sparse_vector>({n}, loom::test::density::sparse, 54);
  loom::tensor<double, loom::sparse_vector> ys({n});
  loom::tensor<double, loom::dense_vector> y({n});
  loom::tensor<double, loom::csr> C({n, n});
  loom::tensor<double, loom::format<>> scalar;
  loom::expr::access<decltype(scalar)> s{&scalar};
  rewritten_not_worse("inner product", scalar, s, loom::sum(i, j, A(i, j) * B(i, j)));
  rewritten_not_worse("SpMSpV", ys, ys(i), loom::sum(j, A(i, j) * xs(j)));
  rewritten_not_worse("(A + B) * D", C, C(i, j), (A(i, j) + B(i, j)) * D(i, j));
  rewritten_not_worse("-(A * B) + B", C, C(i, j), -(A(i, j) * B(i, j)) + B(i, j));
  rewritten_not_worse("A - B", C, C(i, j), A(i, j) - B(i, j));
  rewritten_not_worse("A / 4 + 2", C, C(i, j), A(i, j) / 4 + 2);
  rewritten_not_worse("A * B transposed", C, C(i, j), A(i, j) * B(j, i));
  rewritten_not_worse("transposed add", C, C(j, i), A(i, j) + B(i, j));
  rewritten_not_worse("transposed SpGEMM", C, C(j, i), loom::sum(k, A(i, k) * B(k, j)));
  rewritten_not_worse("row sums of A + 1", y, y(i), loom::sum(j, A(i, j) + 1));
  rewritten_not_worse("half the row sums", y, y(i), loom::sum(j, A(i, j)) / 2);
}
