// Defines loom::detail::text_sink and static_text: text built while compiling (core vocabulary).
// A message or a name that depends only on types is made once, as a constant, instead of by a
// function per type that runs at each call: that function costs compile time in every kernel.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_STATIC_TEXT_HPP
#define LOOM_CORE_STATIC_TEXT_HPP

#include <array>
#include <cstddef>
#include <string_view>

namespace loom::detail {

/// Where a constexpr writer puts its text: counted first (no buffer), then copied.
struct text_sink {
  char* out = nullptr;
  std::size_t size = 0;

  constexpr void put(std::string_view text) {
    for (const char c : text) {
      if (out != nullptr) out[size] = c;
      ++size;
    }
  }
  constexpr void put_number(std::size_t n) {
    char digits[20]{};
    std::size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + n % 10);
      n /= 10;
    } while (n != 0);
    while (count != 0) put(std::string_view(&digits[--count], 1));
  }
};

/// The text `Writer::write(text_sink&)` writes, as a constant: `static_text<W>::view`.
template <class Writer> struct static_text {
  static constexpr std::size_t size = [] {
    text_sink counter;
    Writer::write(counter);
    return counter.size;
  }();
  static constexpr std::array<char, size + 1> chars = [] {
    std::array<char, size + 1> text{};
    text_sink sink{text.data()};
    Writer::write(sink);
    return text;
  }();
  static constexpr std::string_view view{chars.data(), size};
};

}  // namespace loom::detail

#endif  // LOOM_CORE_STATIC_TEXT_HPP
