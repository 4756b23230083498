// Defines loom::rules::flatten_product: products and additions associate to the right, so a
// chain of factors (or terms) has one shape (rewrite/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULES_FLATTEN_PRODUCT_HPP
#define LOOM_REWRITE_RULES_FLATTEN_PRODUCT_HPP

#include <loom/expr/nodes.hpp>

#include <string_view>

namespace loom::rules {

// flatten_product:  (a * b) * c  ==>  a * (b * c),    (a + b) + c  ==>  a + (b + c)
struct flatten_product {
  static constexpr std::string_view name = "flatten_product";
  template <class A, class B, class C>
  static constexpr auto apply(const expr::mul<expr::mul<A, B>, C>& e)
      -> expr::mul<A, expr::mul<B, C>> {
    return {e.lhs.lhs, {e.lhs.rhs, e.rhs}};
  }
  template <class A, class B, class C>
  static constexpr auto apply(const expr::add<expr::add<A, B>, C>& e)
      -> expr::add<A, expr::add<B, C>> {
    return {e.lhs.lhs, {e.lhs.rhs, e.rhs}};
  }
};

}  // namespace loom::rules

#endif  // LOOM_REWRITE_RULES_FLATTEN_PRODUCT_HPP
