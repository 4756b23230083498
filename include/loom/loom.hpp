// Defines loom's umbrella header (placeholder until the public API lands).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LOOM_HPP
#define LOOM_LOOM_HPP

#include <loom/version.hpp>

#endif  // LOOM_LOOM_HPP
