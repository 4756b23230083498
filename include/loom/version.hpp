// Defines loom's version macros (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_VERSION_HPP
#define LOOM_VERSION_HPP

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION (LOOM_VERSION_MAJOR * 10000 + LOOM_VERSION_MINOR * 100 + LOOM_VERSION_PATCH)

#endif  // LOOM_VERSION_HPP
