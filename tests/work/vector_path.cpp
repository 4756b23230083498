// Guards of the vector path (stream/lanes.hpp): the kernels whose innermost loop is a dense
// counted range over unit-stride rows run it in vector lanes, counted by the work counters'
// `vector_loops` (one per innermost loop run), with the same steps, probes and writes as the
// stream it replaces; a refactor that drops them back to the scalar stream fails here. Kernels
// that cannot take it (a strided row, a sparse innermost level, an integer type, another
// semiring) count none. Each result is also checked against a plain loop.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../support/random.hpp"
#include "support.hpp"

using namespace loom::test::work;

namespace {
constexpr loom::index<"r"> r;
using mat_t = loom::tensor<double, loom::dense_matrix>;

mat_t dense_of(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  return loom::test::random_tensor<double, loom::dense_matrix>({rows, cols},
                                                               loom::test::density::full, seed);
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * (1 + std::abs(b)); }

/// The work of one call after a first one (plans and statistics cached), on one thread.
template <class F> loom::work_counts serial_work(F&& run) {
  loom::set_num_threads(1);
  run();
  const auto w = work_of(run);
  loom::set_num_threads(0);
  return w;
}
}  // namespace

TEST_CASE("vector path: SDDMM and row dots reduce in lanes, one loop per dot product") {
  const std::int64_t n = 60;
  const auto S = rows_of(n, n, 5, 1);
  for (std::int64_t R : {1, 3, 8, 13, 64}) {
    const mat_t U = dense_of(n, R, 2), V = dense_of(n, R, 3);
    loom::tensor<double, loom::csr> C({n, n});
    const auto w = serial_work([&] { C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(j, k)); });
    CHECK(w.vector_loops == static_cast<std::uint64_t>(S.nnz()));
    // the range's steps and the located row's probes, as the stream counted them
    CHECK(w.steps >= static_cast<std::uint64_t>(S.nnz() * R));
    CHECK(w.probes >= static_cast<std::uint64_t>(S.nnz() * R));
    const auto& pos = S.level<1>().pos;
    const auto& crd = S.level<1>().crd;
    for (std::int64_t a = 0; a < n; ++a)
      for (std::int64_t p = pos[a]; p < pos[a + 1]; ++p) {
        double want = 0;
        for (std::int64_t q = 0; q < R; ++q) want += U.at(a, q) * V.at(crd[p], q);
        CHECK(near(C.values()[static_cast<std::size_t>(p)], S.values()[p] * want));
      }

    loom::tensor<double, loom::dense_vector> x({n});
    const auto wd = serial_work([&] { x(i) = loom::sum(k, U(i, k) * V(i, k)); });
    CHECK(wd.vector_loops == static_cast<std::uint64_t>(n));
    CHECK(wd.steps == static_cast<std::uint64_t>(n + n * R));
    for (std::int64_t a = 0; a < n; ++a) {
      double want = 0;
      for (std::int64_t q = 0; q < R; ++q) want += U.at(a, q) * V.at(a, q);
      CHECK(near(x.at(a), want));
    }
  }
}

TEST_CASE("vector path: SpMM (both orientations), MTTKRP and TTM update output rows in lanes") {
  const std::int64_t n = 50, R = 11;
  const auto S = rows_of(n, n, 4, 5);
  const mat_t B = dense_of(n, R, 6);
  mat_t C({n, R});
  const auto w = serial_work([&] { C(i, k) = loom::sum(j, S(i, j) * B(j, k)); });
  CHECK(w.vector_loops == static_cast<std::uint64_t>(S.nnz()));
  CHECK(w.writes == static_cast<std::uint64_t>(S.nnz() * R));
  const auto wt = serial_work([&] { C(i, k) = loom::sum(j, S(j, i) * B(j, k)); });
  CHECK(wt.vector_loops == static_cast<std::uint64_t>(S.nnz()));
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t q = 0; q < R; ++q) {
      double want = 0;
      for (std::int64_t b = 0; b < n; ++b) want += S.at(b, a) * B.at(b, q);
      CHECK(near(C.at(a, q), want));
    }

  const auto T =
      loom::test::random_tensor<double, loom::csf<3>>({12, 10, 9}, loom::test::density::sparse, 7);
  const mat_t Bj = dense_of(10, R, 8), Ck = dense_of(9, R, 9);
  mat_t M({12, R});
  const auto wm =
      serial_work([&] { M(i, r) = loom::sum(j, loom::sum(k, T(i, j, k) * Bj(j, r) * Ck(k, r))); });
  CHECK(wm.vector_loops == static_cast<std::uint64_t>(T.nnz()));
  loom::tensor<double, loom::format<loom::dense, loom::dense, loom::dense>> Y({12, 10, R});
  const mat_t Uk = dense_of(9, R, 10);
  const auto wy = serial_work([&] { Y(i, j, r) = loom::sum(k, T(i, j, k) * Uk(k, r)); });
  CHECK(wy.vector_loops == static_cast<std::uint64_t>(T.nnz()));
  for (std::int64_t a = 0; a < 12; ++a)
    for (std::int64_t q = 0; q < R; ++q) {
      double want = 0;
      for (std::int64_t b = 0; b < 10; ++b)
        for (std::int64_t c = 0; c < 9; ++c) want += T.at(a, b, c) * Bj.at(b, q) * Ck.at(c, q);
      CHECK(near(M.at(a, q), want));
    }
}

TEST_CASE("vector path: element-wise maps of dense operands store rows in lanes") {
  const std::int64_t n = 20, R = 7;
  const mat_t U = dense_of(n, R, 11), V = dense_of(n, R, 12);
  mat_t Z({n, R});
  const auto w = serial_work([&] { Z(i, k) = U(i, k) + V(i, k); });
  CHECK(w.vector_loops == static_cast<std::uint64_t>(n));
  CHECK(w.writes == static_cast<std::uint64_t>(n * R));
  const auto wm = serial_work([&] { Z(i, k) = U(i, k) * V(i, k) * 2.0; });
  CHECK(wm.vector_loops == static_cast<std::uint64_t>(n));
  for (std::int64_t a = 0; a < n; ++a)
    for (std::int64_t q = 0; q < R; ++q) CHECK(near(Z.at(a, q), U.at(a, q) * V.at(a, q) * 2.0));
  // explain() says so
  const std::string plan = loom::explain(Z(i, k), U(i, k) + V(i, k));
  CHECK(plan.find("vectorised, " + std::to_string(loom::stream::lanes::width<double>) + " lanes") !=
        std::string::npos);
}

TEST_CASE("vector path: strided rows, sparse inner levels, integers and semirings keep streams") {
  const std::int64_t n = 30, R = 6;
  const auto S = rows_of(n, n, 4, 13);
  const mat_t U = dense_of(n, R, 14), V = dense_of(R, n, 15);
  loom::tensor<double, loom::csr> C({n, n});
  // V(k, j): the summed index is V's outer mode, its row is strided
  const auto w = serial_work([&] { C(i, j) = loom::sum(k, S(i, j) * U(i, k) * V(k, j)); });
  CHECK(w.vector_loops == 0);
  CHECK(loom::explain(C(i, j), loom::sum(k, S(i, j) * U(i, k) * V(k, j))).find("vectorised") ==
        std::string::npos);
  // a sparse innermost level: SpMV
  loom::tensor<double, loom::dense_vector> x({n}), y({n});
  CHECK(serial_work([&] { y(i) = loom::sum(j, S(i, j) * x(j)); }).vector_loops == 0);
  // integers
  loom::tensor<std::int64_t, loom::dense_matrix> P({n, R}), Q({n, R});
  loom::tensor<std::int64_t, loom::dense_vector> z({n});
  CHECK(serial_work([&] { z(i) = loom::sum(k, P(i, k) * Q(i, k)); }).vector_loops == 0);
  // another semiring
  loom::tensor<loom::min_plus<double>, loom::dense_matrix> G({n, R}), H({n, R});
  loom::tensor<loom::min_plus<double>, loom::dense_vector> g({n});
  CHECK(serial_work([&] { g(i) = loom::sum(k, G(i, k) * H(i, k)); }).vector_loops == 0);
}
