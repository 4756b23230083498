// LOOM_EXPECT_ERROR: a guard must compare the loop's own index with an expression of outer indices
// Guards are folded into the loop's bounds, so each must bound the loop's own index.
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;

int main() {
  using namespace lm::literals;
#ifdef LOOM_EXPECT_OK
  constexpr auto m = lm::define<"tri">(lm::range(nm::i, 0_c, lm::extent),
                                       lm::range(nm::j, 0_c, lm::extent, nm::J <= nm::I * 2_c),
                                       lm::values(nm::I * lm::extent + nm::J));
#else
  constexpr auto m =
      lm::define<"tri">(lm::range(nm::i, 0_c, lm::extent),
                        lm::range(nm::j, 0_c, lm::extent, nm::J + 1_c <= nm::I * 2_c),
                        lm::values(nm::I * lm::extent + nm::J));
#endif
  loom::tensor<double, lm::format_of<decltype(m)>> A({3, 3});
  return static_cast<int>(A.nnz());
}
