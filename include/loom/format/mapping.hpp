// Umbrella header of format/mapping/: storage mappings (STOREL), the shipped library of
// mappings and the factories over physical arrays.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_MAPPING_HPP
#define LOOM_FORMAT_MAPPING_HPP

#include <loom/format/mapping/definition.hpp>
#include <loom/format/mapping/hash_map.hpp>
#include <loom/format/mapping/index_expr.hpp>
#include <loom/format/mapping/library.hpp>
#include <loom/format/mapping/loops.hpp>
#include <loom/format/mapping/make.hpp>
#include <loom/format/mapping/mapped_level.hpp>
#include <loom/format/mapping/sum.hpp>

#endif  // LOOM_FORMAT_MAPPING_HPP
