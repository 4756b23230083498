// Umbrella header of exec/: the driver of every assignment (check, rewrite, plan, choose, run),
// explain(), and the programs of several kernels (decompose, matrix_chain, the skip-policy entry
// points, a program distributed over a sum of mappings).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_EXEC_HPP
#define LOOM_EXEC_HPP

#include <loom/exec/alternatives.hpp>
#include <loom/exec/decision.hpp>
#include <loom/exec/decompose.hpp>
#include <loom/exec/distribute.hpp>
#include <loom/exec/evaluate.hpp>
#include <loom/exec/explain.hpp>
#include <loom/exec/explain_analyze.hpp>
#include <loom/exec/matrix_chain.hpp>
#include <loom/exec/options.hpp>
#include <loom/exec/skip_queries.hpp>
#include <loom/exec/statements.hpp>

#endif  // LOOM_EXEC_HPP
