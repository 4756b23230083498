// loom single header: everything <loom/loom.hpp> includes, in one file. Do not edit:
// generated from include/ by tools/amalgamate.py.
// SPDX-License-Identifier: BSL-1.0
// loom version 0.1.0
// Needs Boost.Hana and Boost.MP11 (Boost >= 1.74) on the include path, and C++20.
#define LOOM_SINGLE_INCLUDE 1
// ---- begin <loom/loom.hpp>
// Defines loom's umbrella header (placeholder until the public API lands).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LOOM_HPP
#define LOOM_LOOM_HPP

// ---- begin <loom/version.hpp>
// Defines loom's version macros (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_VERSION_HPP
#define LOOM_VERSION_HPP

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION (LOOM_VERSION_MAJOR * 10000 + LOOM_VERSION_MINOR * 100 + LOOM_VERSION_PATCH)

#endif  // LOOM_VERSION_HPP
// ---- end <loom/version.hpp>

#endif  // LOOM_LOOM_HPP
// ---- end <loom/loom.hpp>
