// LOOM_EXPECT_ERROR: the innermost loop must be `unique`
// A segment without `unique` may repeat a coordinate (COO's rows): allowed above the innermost
// loop (each run is one iteration of the program's loop), rejected as the innermost loop, where
// entries with equal full coordinates would need their values summed.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;

int main() {
  using namespace lm::literals;
#ifdef LOOM_EXPECT_OK
  constexpr auto m = lm::define<"rows">(
      lm::range(nm::i, 0_c, lm::extent),
      lm::each(nm::j, nm::idx2.slice(nm::pos2(lm::pos(nm::i)), nm::pos2(lm::pos(nm::i) + 1_c)),
               lm::unique),
      lm::values(lm::pos(nm::j)));
#else
  constexpr auto m = lm::define<"rows">(
      lm::range(nm::i, 0_c, lm::extent),
      lm::each(nm::j, nm::idx2.slice(nm::pos2(lm::pos(nm::i)), nm::pos2(lm::pos(nm::i) + 1_c))),
      lm::values(lm::pos(nm::j)));
#endif
  loom::tensor<double, lm::format_of<decltype(m)>> A({3, 3});
  return static_cast<int>(A.nnz());
}
