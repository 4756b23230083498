// Umbrella header of rewrite/: the rule engine, the rules and the rule sets.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_HPP
#define LOOM_REWRITE_HPP

#include <loom/rewrite/constants.hpp>
#include <loom/rewrite/engine.hpp>
#include <loom/rewrite/for_evaluation.hpp>
#include <loom/rewrite/hoist.hpp>
#include <loom/rewrite/patterns.hpp>
#include <loom/rewrite/rule.hpp>
#include <loom/rewrite/rule_sets.hpp>
#include <loom/rewrite/saturation.hpp>

#endif  // LOOM_REWRITE_HPP
