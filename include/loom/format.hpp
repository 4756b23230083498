// Umbrella header of format/: levels, formats, tensors, views and assembly.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_FORMAT_HPP
#define LOOM_FORMAT_HPP

#include <loom/format/alternatives.hpp>
#include <loom/format/assembly/appender.hpp>
#include <loom/format/assembly/assemble.hpp>
#include <loom/format/auto_tensor.hpp>
#include <loom/format/format.hpp>
#include <loom/format/levels/adaptive.hpp>
#include <loom/format/levels/banded.hpp>
#include <loom/format/levels/bitmap.hpp>
#include <loom/format/levels/compressed.hpp>
#include <loom/format/levels/coordinate_cursor.hpp>
#include <loom/format/levels/dense.hpp>
#include <loom/format/levels/hashed.hpp>
#include <loom/format/levels/level.hpp>
#include <loom/format/levels/level_base.hpp>
#include <loom/format/levels/singleton.hpp>
#include <loom/format/tensor.hpp>
#include <loom/format/view.hpp>

#endif  // LOOM_FORMAT_HPP
