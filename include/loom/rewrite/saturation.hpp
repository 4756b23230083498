// Umbrella header of rewrite/saturation/: equality saturation at compile time.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_SATURATION_HPP
#define LOOM_REWRITE_SATURATION_HPP

#include <loom/rewrite/saturation/egraph.hpp>
#include <loom/rewrite/saturation/encode.hpp>
#include <loom/rewrite/saturation/extract.hpp>
#include <loom/rewrite/saturation/operands.hpp>
#include <loom/rewrite/saturation/print.hpp>
#include <loom/rewrite/saturation/rebuild.hpp>
#include <loom/rewrite/saturation/rules.hpp>
#include <loom/rewrite/saturation/saturate.hpp>

#endif  // LOOM_REWRITE_SATURATION_HPP
