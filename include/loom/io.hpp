// Umbrella header of io/: Matrix Market and FROSTT readers and writers.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_IO_HPP
#define LOOM_IO_HPP

#include <loom/io/matrix_market.hpp>
#include <loom/io/matrix_market_options.hpp>
#include <loom/io/read_options.hpp>
#include <loom/io/tns.hpp>

#endif  // LOOM_IO_HPP
