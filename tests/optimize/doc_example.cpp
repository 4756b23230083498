// The example of docs/optimizer.md ("Using it"); keep the two in sync.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format.hpp>
#include <loom/optimize.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

TEST_CASE("docs/optimizer.md example") {
  // A is 3 x 4 (indices i, j), B is 4 x 2 (indices j, k).
  using coords = std::vector<std::array<std::int64_t, 2>>;
  const auto A = loom::from_coo<loom::csr>({3, 4}, coords{{0, 0}, {0, 3}, {2, 1}},
                                           std::vector<double>{1, 2, 3});
  const auto B = loom::from_coo<loom::csr>({4, 2}, coords{{0, 1}, {1, 0}, {3, 1}},
                                           std::vector<double>{4, 5, 6});

  loom::statistics_cache cache;  // rescans a tensor only when its storage changed
  const loom::statistics& sa = cache.get(A);
  const loom::statistics& sb = cache.get(B);
  // sa.nnz == 3, sa.max_row_degree() == 2, sa.distinct == {2, 3}

  // C[i,k] = sum_j A[i,j] * B[j,k]: conjunction (0 annihilates *), then aggregate over j.
  using E = loom::chain_bound_estimator;  // or loom::uniform_estimator
  const std::vector<E> ab{E(sa, {"i", "j"}), E(sb, {"j", "k"})};
  const double bound = E::conjunction(ab).aggregate({"j"}).estimate();
  // bound == 3: nnz(A) = 3 entries, each meeting at most 1 entry of B's row j (its max row degree).

  CHECK(sa.nnz == 3);
  CHECK(sa.max_row_degree() == 2);
  CHECK(sa.distinct == std::vector<std::int64_t>{2, 3});
  CHECK(bound == 3);
}
