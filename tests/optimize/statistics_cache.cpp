// Tests loom::statistics_cache: hits while the tensor is unchanged, recomputation when its
// storage signature changes, invalidate and clear.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format.hpp>
#include <loom/optimize/statistics/statistics_cache.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

TEST_CASE("statistics_cache: hit, recompute on change, invalidate") {
  using coords = std::vector<std::array<std::int64_t, 2>>;
  auto a = loom::from_coo<loom::csr>({3, 3}, coords{{0, 0}, {1, 1}}, std::vector<double>{1, 2});
  const auto b = loom::from_coo<loom::dcsr>({3, 3}, coords{{2, 2}}, std::vector<double>{5});
  loom::statistics_cache cache;

  CHECK(cache.get(a).nnz == 2);
  CHECK(cache.get(a).nnz == 2);
  CHECK(cache.get(b).nnz == 1);
  CHECK(cache.misses() == 2);
  CHECK(cache.hits() == 1);
  CHECK(cache.size() == 2);

  // Value edits keep the structure: still a hit.
  a.values()[0] = 7;
  CHECK(cache.get(a).nnz == 2);
  CHECK(cache.hits() == 2);

  // Reassigning the tensor at the same address changes its arrays: recomputed.
  a = loom::from_coo<loom::csr>({3, 3}, coords{{0, 0}, {0, 2}, {2, 1}},
                                std::vector<double>{1, 1, 1});
  const loom::statistics& s = cache.get(a);
  CHECK(s.nnz == 3);
  CHECK(s.max_row_degree() == 2);
  CHECK(cache.misses() == 3);

  cache.invalidate(a);
  CHECK(cache.size() == 1);
  CHECK(cache.get(a).nnz == 3);
  CHECK(cache.misses() == 4);
  cache.clear();
  CHECK(cache.size() == 0);
}
