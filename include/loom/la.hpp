// Umbrella header of la/: the linear-algebra front end (SPORES) over loom tensors.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_LA_HPP
#define LOOM_LA_HPP

#include <loom/la/evaluate.hpp>
#include <loom/la/naive.hpp>
#include <loom/la/nodes.hpp>
#include <loom/la/translate.hpp>

#endif  // LOOM_LA_HPP
