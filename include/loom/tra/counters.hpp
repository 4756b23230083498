// Defines loom::tra::counters(): the scalar operations done by the tile kernels of this thread,
// which the rewrite tests read (UT-5: R1-6 and R1-7 must save additions) (tra/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_COUNTERS_HPP
#define LOOM_TRA_COUNTERS_HPP

#include <cstdint>

namespace loom::tra {

struct kernel_counters {
  std::int64_t adds = 0;  // scalar additions
  std::int64_t muls = 0;  // scalar multiplications
};
inline kernel_counters& counters() {
  thread_local kernel_counters c;
  return c;
}

/// Restores the counters on exit: kernels run only to learn an output shape are not counted.
struct uncounted {
  kernel_counters saved = counters();
  uncounted() = default;
  uncounted(const uncounted&) = delete;
  uncounted& operator=(const uncounted&) = delete;
  ~uncounted() { counters() = saved; }
};

}  // namespace loom::tra

#endif  // LOOM_TRA_COUNTERS_HPP
