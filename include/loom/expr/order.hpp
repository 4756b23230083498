// Defines loom::order: the loop order of one assignment fixed by the user, as Etch allows
// (`C(i, j) = loom::order<i, k, j>(e)`); the evaluator plans that order only (expr/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXPR_ORDER_HPP
#define LOOM_EXPR_ORDER_HPP

#include <loom/core/index.hpp>
#include <loom/expr/operators.hpp>

#include <boost/mp11/list.hpp>

#include <type_traits>

namespace loom {

namespace expr {
/// `expr` to be evaluated as one loop nest in `Order` (an MP11 list of index types, outermost
/// first). Only the right-hand side of an assignment (or of `loom::explain`).
template <class Order, class E> struct ordered {
  E expr;
};
}  // namespace expr

/// The function object behind `loom::order<...>`.
template <class... Is> struct order_option {
  template <expr::operand E> auto operator()(const E& e) const {
    const auto x = expr::as_expr(e);
    return expr::ordered<boost::mp11::mp_list<Is...>, std::remove_cvref_t<decltype(x)>>{x};
  }
};

/// Fixes the loop order of one assignment, outermost first, listing every index once:
/// `C(i, j) = loom::order<i, k, j>(loom::sum(k, A(i, k) * B(k, j)));` (Gustavson's order, whatever
/// the formats). An operand stored in another order is transposed (once, while it is unchanged)
/// and `explain` says so; no candidate is costed and no sum is hoisted.
template <auto... Is>
  requires(index_variable<decltype(Is)> && ...)
inline constexpr order_option<std::remove_cvref_t<decltype(Is)>...> order{};

}  // namespace loom

#endif  // LOOM_EXPR_ORDER_HPP
