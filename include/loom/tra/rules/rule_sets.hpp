// Defines the rule sets (MP11 lists, order = priority) used by loom::tra::ia::rewrite_t
// (tra/rules/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_RULES_RULE_SETS_HPP
#define LOOM_TRA_RULES_RULE_SETS_HPP

#include <loom/tra/rules/lambda_composition.hpp>
#include <loom/tra/rules/repartition.hpp>

#include <boost/mp11/list.hpp>

namespace loom::tra::rules {

/// R1-x: fewer flops and less memory inside a site.
using lambda_composition = boost::mp11::mp_list<merge_filters, merge_maps, filter_before_map,
                                                map_into_aggregation, filter_into_aggregation,
                                                filter_into_join, map_into_join, drop_identity_map>;
/// R2-x that always reduce communication (R2-6 alternatives are enumerated, not applied here;
/// R2-5 and R2-7 change the plan's shape and are offered by the strategy generator).
using repartition = boost::mp11::mp_list<collapse_shuffles, filter_before_move, map_before_move,
                                         skip_shuffle_before_aggregation>;
using all = boost::mp11::mp_append<lambda_composition, repartition>;

}  // namespace loom::tra::rules

#endif  // LOOM_TRA_RULES_RULE_SETS_HPP
