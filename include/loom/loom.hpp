// The whole of loom: index notation over sparse and dense tensors, compiled to fused loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LOOM_HPP
#define LOOM_LOOM_HPP

#include <loom/core.hpp>
#include <loom/exec.hpp>
#include <loom/expr.hpp>
#include <loom/format.hpp>
#include <loom/format/mapping.hpp>
#include <loom/io.hpp>
#include <loom/la.hpp>
#include <loom/optimize.hpp>
#include <loom/parallel.hpp>
#include <loom/plan.hpp>
#include <loom/relational.hpp>
#include <loom/rewrite.hpp>
#include <loom/stream.hpp>
#include <loom/tra.hpp>
#include <loom/version.hpp>

#endif  // LOOM_LOOM_HPP
