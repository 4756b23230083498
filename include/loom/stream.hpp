// Umbrella header of stream/: indexed streams, combinators, lowering, run loops.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_STREAM_HPP
#define LOOM_STREAM_HPP

#include <loom/stream/combinators.hpp>
#include <loom/stream/concepts.hpp>
#include <loom/stream/level_streams.hpp>
#include <loom/stream/lower.hpp>
#include <loom/stream/run.hpp>
#include <loom/stream/workspace.hpp>
#include <loom/stream/workspace_storage.hpp>

#endif  // LOOM_STREAM_HPP
