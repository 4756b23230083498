// Relations on indexed streams: CSV tables keyed into trie-shaped tensors, predicates, results
// as rows (relational/).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_RELATIONAL_HPP
#define LOOM_RELATIONAL_HPP

#include <loom/relational/aggregate.hpp>
#include <loom/relational/column.hpp>
#include <loom/relational/csv.hpp>
#include <loom/relational/date.hpp>
#include <loom/relational/dictionary.hpp>
#include <loom/relational/error.hpp>
#include <loom/relational/interval.hpp>
#include <loom/relational/predicates.hpp>
#include <loom/relational/relation.hpp>
#include <loom/relational/rows.hpp>
#include <loom/relational/table.hpp>
#include <loom/relational/value_filter.hpp>

namespace loom {
/// Short name: `loom::rel::key_by`, `loom::rel::read_csv`, ...
namespace rel = relational;
}  // namespace loom

#endif  // LOOM_RELATIONAL_HPP
