// Defines the lines LOOM_DEBUG_PLAN writes to stderr (core vocabulary): functions, not templates,
// so a kernel that logs its choice calls one instead of compiling stream output of its own.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_DEBUG_HPP
#define LOOM_CORE_DEBUG_HPP

#include <loom/core/config.hpp>

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string_view>

namespace loom::detail {
/// Writes the pieces, then a newline, to stderr in one call.
LOOM_DECL void debug_line(std::initializer_list<std::string_view> pieces);
/// Writes "<head> <chosen> of <n> (estimated costs: <c0> <c1> ...)", a choice among candidates.
LOOM_DECL void debug_choice(std::string_view head, std::size_t chosen,
                            std::span<const double> costs);
}  // namespace loom::detail

#if LOOM_HEADER_ONLY
#  include <cstdio>
#  include <string>

namespace loom::detail {
LOOM_DEF void debug_line(std::initializer_list<std::string_view> pieces) {
  std::string line;
  for (const std::string_view p : pieces) line += p;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

LOOM_DEF void debug_choice(std::string_view head, std::size_t chosen,
                           std::span<const double> costs) {
  std::string text = " (estimated costs:";
  char number[32];
  for (const double c : costs) {
    std::snprintf(number, sizeof number, " %g", c);
    text += number;
  }
  text += ')';
  debug_line({head, " ", std::to_string(chosen), " of ", std::to_string(costs.size()), text});
}
}  // namespace loom::detail
#endif  // LOOM_HEADER_ONLY

#endif  // LOOM_CORE_DEBUG_HPP
