// LOOM_EXPECT_ERROR: rewrite_rules_did_not_reach_a_fixpoint
// A rule set whose rules undo each other never reaches a fixpoint: the engine stops at its pass
// bound and names the expression it cycles on (LOOM_EXPECT_OK: a rule set without the cycle).
// SPDX-License-Identifier: BSL-1.0
#include <loom/expr/operators.hpp>
#include <loom/format/tensor.hpp>
#include <loom/rewrite.hpp>

struct swap_add {
  static constexpr std::string_view name = "swap_add";
  template <class L, class R>
  static constexpr auto apply(const loom::expr::add<L, R>& e) -> loom::expr::add<R, L> {
    return {e.rhs, e.lhs};
  }
};

int main() {
  constexpr loom::index<"i"> i;
  loom::tensor<double, loom::dense_vector> x({3}), y({3});
#ifdef LOOM_EXPECT_OK
  using rules = boost::mp11::mp_list<loom::rules::add_zero>;
#else
  using rules = boost::mp11::mp_list<swap_add>;
#endif
  const auto r = loom::rewrite::rewrite<rules, 4>(x(i) + y(i));
  return r.expr.lhs.tensor == &x ? 0 : 1;
}
