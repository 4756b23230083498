// Defines loom::rewrite::zero and loom::rewrite::one, the statically known constants the rules
// create and eliminate (rewrite/). They never reach the evaluator: finalize() turns them away.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_CONSTANTS_HPP
#define LOOM_REWRITE_CONSTANTS_HPP

#include <loom/expr/nodes.hpp>
#include <loom/expr/traits.hpp>

#include <boost/mp11/list.hpp>

namespace loom::rewrite {

/// The semiring's 0, known at compile time (annihilates *, neutral for +).
struct zero {};
/// The semiring's 1, known at compile time (neutral for *).
struct one {};

}  // namespace loom::rewrite

// The traits rules consult (free and summed indices, accesses): constants have none.
namespace loom::expr::detail {
template <> struct free_indices<rewrite::zero> {
  using type = boost::mp11::mp_list<>;
};
template <> struct free_indices<rewrite::one> {
  using type = boost::mp11::mp_list<>;
};
}  // namespace loom::expr::detail

#endif  // LOOM_REWRITE_CONSTANTS_HPP
