// The runtime library of separate compilation (docs/build-cost.md): the one translation unit that
// defines the non-template functions the headers only declare under LOOM_SEPARATE_COMPILATION.
// SPDX-License-Identifier: BSL-1.0
#define LOOM_BUILDING_RUNTIME 1
#include <loom/loom.hpp>
