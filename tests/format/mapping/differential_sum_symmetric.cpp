// Differential tests of a sum of mappings (differential_sum.hpp): a symmetric matrix as lower_packed + transposed(strict_lower_packed) over one packed array.
// SPDX-License-Identifier: BSL-1.0
#include "differential_sum.hpp"

using sum_test::run_sum;
namespace lm = loom::mapping;

TEST_CASE(
    "sum of mappings: symmetric = lower_packed + transposed(strict_lower_packed), one array") {
  CHECK(run_sum("S=L+SL^T", true, [](std::int64_t n, const auto& data, auto&& body) {
          std::vector<double> packed(static_cast<std::size_t>(n * (n + 1) / 2), 0.0);
          for (std::size_t e = 0; e < data.coords.size(); ++e) {
            const auto [r, c] = data.coords[e];
            if (c <= r) packed[static_cast<std::size_t>(r * (r + 1) / 2 + c)] += data.values[e];
          }
          auto L = lm::make_view<lm::lower_packed>({n, n}, std::span<double>(packed));
          auto SL = lm::make_view<lm::strict_lower_packed>({n, n}, std::span<double>(packed));
          body(lm::make_sum("S", lm::as_is(L), lm::transposed(SL)));
        }) == 144);
}
