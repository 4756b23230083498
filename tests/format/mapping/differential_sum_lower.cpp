// Differential tests of a sum of mappings (differential_sum.hpp): a lower-triangular matrix as diagonal + strict_lower_compact.
// SPDX-License-Identifier: BSL-1.0
#include "differential_sum.hpp"

using sum_test::run_sum;
namespace lm = loom::mapping;

TEST_CASE("sum of mappings: lower-triangular = diagonal + strict_lower_compact") {
  CHECK(run_sum("L=D+SL", false, [](std::int64_t n, const auto& data, auto&& body) {
          std::vector<double> diag(static_cast<std::size_t>(n), 0.0);
          std::vector<double> strict(static_cast<std::size_t>(n * (n - 1) / 2), 0.0);
          for (std::size_t e = 0; e < data.coords.size(); ++e) {
            const auto [r, c] = data.coords[e];
            if (c == r)
              diag[static_cast<std::size_t>(r)] += data.values[e];
            else
              strict[static_cast<std::size_t>(r * (r - 1) / 2 + c)] += data.values[e];
          }
          auto Dg = lm::make_view<lm::diagonal>({n, n}, std::span<double>(diag));
          auto SL = lm::make_view<lm::strict_lower_compact>({n, n}, std::span<double>(strict));
          body(lm::make_sum("L", lm::as_is(Dg), lm::as_is(SL)));
        }) == 144);
}
