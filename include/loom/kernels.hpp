// The kernels-only entry: index notation over sparse and dense tensors compiled to fused loops,
// without the relational, tensor-relational (tra) and linear-algebra (la) layers that
// <loom/loom.hpp> adds. It declares the index and expression types, the formats and tensors,
// the Matrix Market and FROSTT readers and writers, and the kernel driver (assignment,
// evaluate, explain, decompose, the options); what it declares means the same as in
// <loom/loom.hpp>, and a unit may include both. For a unit that only writes kernels it saves
// parsing the layers it does not use (docs/build-cost.md has the numbers).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_KERNELS_HPP
#define LOOM_KERNELS_HPP

#include <loom/core.hpp>
#include <loom/exec.hpp>
#include <loom/expr.hpp>
#include <loom/format.hpp>
#include <loom/io.hpp>
#include <loom/version.hpp>

#endif  // LOOM_KERNELS_HPP
