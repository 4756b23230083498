// Umbrella header of plan/: loop order, transposition, compile-time checks.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_PLAN_HPP
#define LOOM_PLAN_HPP

#include <loom/plan/checks.hpp>
#include <loom/plan/order.hpp>
#include <loom/plan/transposed_format.hpp>

#endif  // LOOM_PLAN_HPP
