// LOOM_EXPECT_ERROR: loom::sanity: this file must not compile
// Proves the compile-fail machinery itself, fmt's sanity case: without
// LOOM_EXPECT_OK the static_assert fires with the message above; with it the file compiles.
// SPDX-License-Identifier: BSL-1.0
#include <loom/loom.hpp>

#ifndef LOOM_EXPECT_OK
static_assert(LOOM_VERSION < 0, "loom::sanity: this file must not compile; it checks the checker");
#endif

static_assert(LOOM_VERSION >= 0);
