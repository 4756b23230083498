// The einsum of two block-sparse matrices (tra/sparse_einsum.hpp): the four products
// "ij,jk->ik", "ji,jk->ik", "ij,kj->ik", "ji,kj->ik" and their transposed outputs, with tiles in
// several formats, against plain loops over dense arrays (tra_test::dense_matmul) at several
// densities and seeds on ragged tiles; the transposes of a tile and of a relation; and the plan
// search over sparse statistics (choose_einsum) on every variant, the transposes charged.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "../support/random.hpp"
#include "support.hpp"

using namespace loom::tra;
namespace lt = loom::test;

namespace {
using csr_matrix = loom::tensor<double, loom::csr>;

// Row-major entries of a loom matrix.
template <class M> std::vector<double> dense_of(const M& m) {
  std::vector<double> d(static_cast<std::size_t>(m.extent(0) * m.extent(1)), 0.0);
  m.for_each_stored([&](const auto& c, double v) {
    d[static_cast<std::size_t>(c[0] * m.extent(1) + c[1])] += v;
  });
  return d;
}

// The transpose of a matrix, built from its coordinates here (not by the code under test).
csr_matrix flipped(const csr_matrix& m) {
  std::vector<std::array<std::int64_t, 2>> coords;
  std::vector<double> values;
  m.for_each_stored([&](const auto& c, double v) {
    coords.push_back({c[1], c[0]});
    values.push_back(v);
  });
  return loom::from_coo<loom::csr>({m.extent(1), m.extent(0)}, coords, values);
}

// einsum S over A (M x K as the product reads it) and B (K x N), stored in the orientation the
// spec names and cut into tiles of FA and FB, against C = A B from plain loops (Cᵀ for "->ki").
template <loom::fixed_string S, class FA, class FB, class Out>
void check_variant(const csr_matrix& A, const csr_matrix& B, std::uint64_t seed) {
  constexpr auto t = detail::einsum_spec<S>::transposes;
  CAPTURE(std::string(S.view()));
  CAPTURE(seed);
  const std::array<std::int64_t, 2> ta{8, 6}, tb{6, 7};  // ragged: 37 x 29 times 29 x 23
  const auto stored_a = t.left ? flipped(A) : A;
  const auto stored_b = t.right ? flipped(B) : B;
  const auto SA = to_sparse_tiles<FA>(stored_a, t.left ? std::array{ta[1], ta[0]} : ta);
  const auto SB = to_sparse_tiles<FB>(stored_b, t.right ? std::array{tb[1], tb[0]} : tb);
  const auto C = einsum<S, Out>(SA, SB);
  const std::int64_t m = A.extent(0), k = A.extent(1), n = B.extent(1);
  const auto want = tra_test::dense_matmul(dense_of(A), dense_of(B), m, k, n);
  const std::array<std::int64_t, 2> shape = t.out ? std::array{n, m} : std::array{m, n};
  CHECK(C.bounds()[0] == (shape[0] + C.tile_shape()[0] - 1) / C.tile_shape()[0]);
  CHECK(C.bounds()[1] == (shape[1] + C.tile_shape()[1] - 1) / C.tile_shape()[1]);
  const auto got = dense_of(from_sparse_tiles<loom::csr>(C, shape));
  bool same = true;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const auto at = static_cast<std::size_t>(t.out ? j * m + i : i * n + j);
      same = same && got[at] == want[static_cast<std::size_t>(i * n + j)];
    }
  CHECK(same);
}

template <loom::fixed_string S> void check_formats(std::uint64_t seed, lt::density d) {
  const auto A = lt::random_tensor<double, loom::csr>({37, 29}, d, seed);
  const auto B = lt::random_tensor<double, loom::csr>({29, 23}, d, seed + 11);
  check_variant<S, loom::csr, loom::dcsr, loom::csr>(A, B, seed);
  check_variant<S, loom::csc, loom::csr, loom::dcsr>(A, B, seed);
  check_variant<S, loom::dense_matrix, loom::coo, loom::dense_matrix>(A, B, seed);
}
}  // namespace

TEST_CASE("sparse einsum: the four products and their transposed outputs equal the dense ones") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (const lt::density d :
         {lt::density::one, lt::density::sparse, lt::density::medium, lt::density::full}) {
      CAPTURE(lt::density_name(d));
      check_formats<"ij,jk->ik">(seed, d);
      check_formats<"ji,jk->ik">(seed, d);
      check_formats<"ij,kj->ik">(seed, d);
      check_formats<"ji,kj->ik">(seed, d);
      check_formats<"ij,jk->ki">(seed, d);
      check_formats<"ji,jk->ki">(seed, d);
      check_formats<"ij,kj->ki">(seed, d);
      check_formats<"ji,kj->ki">(seed, d);
      check_formats<"ba,cb->ac">(seed, d);  // other letters: the same as "ji,kj->ik"
    }
}

TEST_CASE("sparse einsum: transposing a tile in any format, and a relation's keys and tiles") {
  const auto M = lt::random_tensor<double, loom::csr>({13, 9}, lt::density::medium, 4);
  const auto want = dense_of(flipped(M));
  CHECK(dense_of(transpose(M)) == want);
  CHECK(dense_of(transpose(loom::tensor<double, loom::dcsc>(M))) == want);
  CHECK(dense_of(transpose(loom::tensor<double, loom::coo>(M))) == want);
  CHECK(dense_of(transpose(loom::tensor<double, loom::dense_matrix>(M))) == want);
  const auto R = to_sparse_tiles<loom::csr>(M, {4, 3});
  const auto RT = transpose(R);
  CHECK(RT.bounds() == std::array<std::int64_t, 2>{3, 4});
  CHECK(RT.tile_shape()[0] == 3);
  CHECK(RT.tile_shape()[1] == 4);
  CHECK(RT.size() == R.size());
  CHECK(dense_of(from_sparse_tiles<loom::csr>(RT, {9, 13})) == want);
  // a contracted letter cut differently on the two sides
  const auto B = to_sparse_tiles<loom::csr>(M, {3, 4});  // j in tiles of 3 here, of 4 in R
  auto mismatched = [&] { return einsum<"ji,jk->ik", loom::csr>(R, B); };
  CHECK_THROWS_AS(mismatched(), loom::shape_error);
}

TEST_CASE("sparse einsum: choose_einsum costs every variant, the transposes charged") {
  const auto A = lt::random_tensor<double, loom::csr>({64, 48}, lt::density::medium, 7);
  const auto B = lt::random_tensor<double, loom::csr>({48, 40}, lt::density::sparse, 8);
  const auto sa = stats_of(to_sparse_tiles<loom::csr>(A, {8, 8}), A.shape());
  const auto sb = stats_of(to_sparse_tiles<loom::csr>(B, {8, 8}), B.shape());
  const auto sat = stats_of(to_sparse_tiles<loom::csr>(flipped(A), {8, 8}), {48, 64});
  const auto sbt = stats_of(to_sparse_tiles<loom::csr>(flipped(B), {8, 8}), {40, 48});
  const cost_model cm{.alpha = 1e-9, .beta = 1e-11, .sites = 4, .policy = cost_policy::corrected};
  const auto plain = choose_einsum<"ij,jk->ik">(cm, sa, sb);
  const double out_nnz = estimate_product(cm, sa, sb).out.nnz;
  auto check = [&](const einsum_choice& c, double extra, bool left, bool right, bool out) {
    for (const auto& e : c.costs) {
      CHECK(c.chosen.total <= e.total);
      CHECK(e.cc == doctest::Approx(plain.costs[0].cc + extra));
      // the plan names each transpose: λᴸ(_, transpose, ...) over a leaf or over the whole plan
      CHECK((e.plan.find("transpose, R0") != std::string::npos) == left);
      CHECK((e.plan.find("transpose, R1") != std::string::npos) == right);
      CHECK((e.plan.rfind("λᴸ(_, transpose, Σᴸ", 0) == 0) == out);
    }
  };
  check(plain, 0, false, false, false);
  check(choose_einsum<"ji,jk->ik">(cm, sat, sb), sa.nnz, true, false, false);
  check(choose_einsum<"ij,kj->ik">(cm, sa, sbt), sb.nnz, false, true, false);
  check(choose_einsum<"ji,kj->ik">(cm, sat, sbt), sa.nnz + sb.nnz, true, true, false);
  check(choose_einsum<"ij,jk->ki">(cm, sa, sb), out_nnz, false, false, true);
  check(choose_einsum<"ji,kj->ki">(cm, sat, sbt), sa.nnz + sb.nnz + out_nnz, true, true, true);
  // the sparse relations themselves give the same choice as their statistics
  const auto ra = to_sparse_tiles<loom::csr>(flipped(A), {8, 8});
  const auto rb = to_sparse_tiles<loom::csr>(B, {8, 8});
  CHECK(choose_einsum<"ji,jk->ik">(cm, ra, rb).explain() ==
        choose_einsum<"ji,jk->ik">(cm, stats_of(ra, {48, 64}), stats_of(rb, {48, 40})).explain());
}
