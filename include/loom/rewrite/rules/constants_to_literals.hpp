// Defines loom::rules::constants_to_literals<V>: the static constants left after rewriting
// become literals of the kernel's value type, which the evaluator understands (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_CONSTANTS_TO_LITERALS_HPP
#define LOOM_REWRITE_RULES_CONSTANTS_TO_LITERALS_HPP

#include <loom/core/semiring.hpp>
#include <loom/expr/nodes.hpp>
#include <loom/rewrite/constants.hpp>

#include <string_view>

namespace loom::rules {

// constants_to_literals<V>:  0 ==> literal<V>(zero),   1 ==> literal<V>(one)
template <class V> struct constants_to_literals {
  static constexpr std::string_view name = "constants_to_literals";
  static constexpr auto apply(const rewrite::zero&) -> expr::literal<V> {
    return {semiring_traits<V>::zero()};
  }
  static constexpr auto apply(const rewrite::one&) -> expr::literal<V> {
    return {semiring_traits<V>::one()};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_CONSTANTS_TO_LITERALS_HPP
