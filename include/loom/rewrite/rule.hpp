// Defines the rewrite_rule concept and rule_applies_to: a rule is a struct with a `name` and
// `apply` overloads whose parameter is the pattern and whose result is the replacement (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULE_HPP
#define LOOM_REWRITE_RULE_HPP

#include <concepts>
#include <string_view>
#include <utility>

namespace loom {

/// A rewrite rule: a named struct; its static `apply(const Node&)` overloads match node types
/// (overload resolution is the matcher, `requires` the side condition).
template <class R>
concept rewrite_rule = requires {
  { R::name } -> std::convertible_to<std::string_view>;
};

/// Whether rule R rewrites a node of type E (false, never a hard error, when it does not).
template <class R, class E>
concept rule_applies_to = rewrite_rule<R> && requires(const E& e) { R::apply(e); };

/// The node R makes of an E.
template <class R, class E>
  requires rule_applies_to<R, E>
using apply_rule_t = decltype(R::apply(std::declval<const E&>()));

}  // namespace loom

#endif  // LOOM_REWRITE_RULE_HPP
