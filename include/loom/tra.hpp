// Tiled tensors and the tensor relational algebra (tra/): relations of dense tiles, the TRA
// operators, the IA plans with rules R1-x and R2-x, the cost model and the matmul strategies.
// MPI execution is separate: <loom/tra/mpi.hpp>.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TRA_HPP
#define LOOM_TRA_HPP

#include <loom/tra/chain.hpp>
#include <loom/tra/convert.hpp>
#include <loom/tra/cost.hpp>
#include <loom/tra/counters.hpp>
#include <loom/tra/einsum.hpp>
#include <loom/tra/einsum_plans.hpp>
#include <loom/tra/ia/execute.hpp>
#include <loom/tra/ia/nodes.hpp>
#include <loom/tra/ia/placement.hpp>
#include <loom/tra/ia/rewrite.hpp>
#include <loom/tra/ia/to_string.hpp>
#include <loom/tra/kernels.hpp>
#include <loom/tra/key_functions.hpp>
#include <loom/tra/operators.hpp>
#include <loom/tra/plans.hpp>
#include <loom/tra/relation.hpp>
#include <loom/tra/rules/lambda_composition.hpp>
#include <loom/tra/rules/repartition.hpp>
#include <loom/tra/rules/rule_sets.hpp>
#include <loom/tra/sparse_einsum.hpp>
#include <loom/tra/sparse_maps.hpp>
#include <loom/tra/sparse_operators.hpp>
#include <loom/tra/sparse_tiles.hpp>
#include <loom/tra/strip.hpp>
#include <loom/tra/tile.hpp>

#endif  // LOOM_TRA_HPP
