// Defines the rule sets (MP11 lists; list order is priority): always_profitable, which the
// evaluator applies to every kernel, and sum_product_normal_form (rewrite/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_REWRITE_RULE_SETS_HPP
#define LOOM_REWRITE_RULE_SETS_HPP

#include <loom/rewrite/rules/add_zero.hpp>
#include <loom/rewrite/rules/distribute.hpp>
#include <loom/rewrite/rules/distribute_contracted.hpp>
#include <loom/rewrite/rules/double_negation.hpp>
#include <loom/rewrite/rules/flatten_product.hpp>
#include <loom/rewrite/rules/fold_constants.hpp>
#include <loom/rewrite/rules/lift_sum.hpp>
#include <loom/rewrite/rules/merge_sums.hpp>
#include <loom/rewrite/rules/mul_by_one.hpp>
#include <loom/rewrite/rules/mul_by_zero.hpp>
#include <loom/rewrite/rules/negation_outward.hpp>
#include <loom/rewrite/rules/push_sum.hpp>
#include <loom/rewrite/rules/split_sum.hpp>
#include <loom/rewrite/rules/sum_absent.hpp>
#include <loom/rewrite/rules/zero_propagation.hpp>

#include <boost/mp11/list.hpp>

namespace loom::rewrite {

/// The zero and one laws and constant folding.
using constant_laws =
    boost::mp11::mp_list<rules::mul_by_zero, rules::add_zero, rules::mul_by_one,
                         rules::zero_propagation, rules::fold_constants, rules::double_negation>;

/// Rules that never make a kernel slower; the evaluator applies them to every assignment.
using always_profitable = boost::mp11::mp_append<
    constant_laws, boost::mp11::mp_list<rules::sum_absent, rules::split_sum, rules::push_sum,
                                        rules::distribute_contracted, rules::merge_sums>>;

/// Towards the sum-of-products normal form: a sum of signed terms, each a block of sums (in
/// name order) over a right-associated product.
using sum_product_normal_form = boost::mp11::mp_append<
    constant_laws,
    boost::mp11::mp_list<rules::negation_outward, rules::distribute, rules::split_sum,
                         rules::lift_sum, rules::flatten_product, rules::merge_sums>>;

}  // namespace loom::rewrite

#endif  // LOOM_REWRITE_RULE_SETS_HPP
