// Umbrella header of expr/: expression nodes, operators and compile-time traits.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_HPP
#define LOOM_EXPR_HPP

#include <loom/expr/access.hpp>
#include <loom/expr/functions.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/expr/operators.hpp>
#include <loom/expr/order.hpp>
#include <loom/expr/sum_product.hpp>
#include <loom/expr/traits.hpp>

#endif  // LOOM_EXPR_HPP
