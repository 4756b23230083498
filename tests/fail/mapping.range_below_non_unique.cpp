// LOOM_EXPECT_ERROR: the loop below a non-unique segment must be a segment
// A non-unique segment hands the loop below a run of positions; only a segment over those
// positions can walk it (COO: each(j, idx2.slice(pos(i), pos(i) + 1_c), unique)).
// SPDX-License-Identifier: BSL-1.0
#include <loom/exec.hpp>
#include <loom/format/mapping.hpp>

namespace lm = loom::mapping;
namespace nm = loom::mapping::names;

int main() {
  using namespace lm::literals;
#ifdef LOOM_EXPECT_OK
  constexpr auto m = lm::define<"rows">(
      lm::each(nm::i, nm::idx1.slice(nm::pos1(0_c), nm::pos1(1_c))),
      lm::each(nm::j, nm::idx2.slice(lm::pos(nm::i), lm::pos(nm::i) + 1_c), lm::unique),
      lm::values(lm::pos(nm::j)));
#else
  constexpr auto m = lm::define<"rows">(
      lm::each(nm::i, nm::idx1.slice(nm::pos1(0_c), nm::pos1(1_c))),
      lm::range(nm::j, 0_c, lm::extent), lm::values(lm::pos(nm::i) * lm::extent + nm::J));
#endif
  loom::tensor<double, lm::format_of<decltype(m)>> A({3, 3});
  return static_cast<int>(A.nnz());
}
