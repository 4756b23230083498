// Umbrella header of stream/: indexed streams, combinators, lowering, run loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_HPP
#define LOOM_STREAM_HPP

#include <loom/format/assembly/workspace.hpp>
#include <loom/format/assembly/workspace_storage.hpp>
#include <loom/stream/combinators.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/level_streams.hpp>
#include <loom/stream/lower.hpp>
#include <loom/stream/run.hpp>

#endif  // LOOM_STREAM_HPP
