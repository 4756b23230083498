// Defines loom::fixed_string, a string usable as a template argument (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_FIXED_STRING_HPP
#define LOOM_CORE_FIXED_STRING_HPP

#include <cstddef>
#include <string_view>

namespace loom {

/// A string literal usable as a non-type template argument: `loom::index<"i">`.
template <std::size_t N> struct fixed_string {
  char chars[N]{};
  constexpr fixed_string(const char (&text)[N]) {  // NOLINT: implicit by design
    for (std::size_t k = 0; k < N; ++k) chars[k] = text[k];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

}  // namespace loom

#endif  // LOOM_CORE_FIXED_STRING_HPP
