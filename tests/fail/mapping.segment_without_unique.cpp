// LOOM_EXPECT_ERROR: mark the segment `unique`
// A segment loop whose coordinates may repeat cannot be fused one-to-one with a program's loop
// (STOREL's F3 needs @unique); the mapping is rejected where it is declared.
// SPDX-License-Identifier: BSL-1.0
#include <loom/format/mapping.hpp>

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;

int main() {
  using namespace lm::literals;
#ifdef LOOM_EXPECT_OK
  constexpr auto m = lm::define<"rows">(
      lm::range(nm::i, 0_c, lm::extent),
      lm::each(nm::j, nm::idx2.slice(nm::pos2(lm::pos(nm::i)), nm::pos2(lm::pos(nm::i) + 1_c)), lm::unique),
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
