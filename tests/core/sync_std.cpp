// core/sync.hpp over the standard library's threads (LOOM_SYNC_STD, what platforms without
// POSIX threads get), in a unit of its own: the cases of sync.cpp.
// SPDX-License-Identifier: BSL-1.0
#define LOOM_SYNC_STD
#define SYNC_PREFIX "sync over std: "
#include "sync.cpp"

static_assert(!LOOM_SYNC_POSIX, "LOOM_SYNC_STD selects the standard library's threads");
