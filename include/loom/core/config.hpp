// Defines loom's configuration macros (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_CONFIG_HPP
#define LOOM_CORE_CONFIG_HPP

// clang at -O0 (the sanitizer builds): forced inlining only copies the loop code into every
// caller, 12-14% of a kernel's compile time, and changes no behaviour; g++ -O0 compiles faster
// with it (7%), and every optimised build keeps it.
#if defined(__clang__) && !defined(__OPTIMIZE__)
#  define LOOM_FORCE_INLINE inline
#elif defined(__GNUC__) || defined(__clang__)
#  define LOOM_FORCE_INLINE inline __attribute__((always_inline))
#else
#  define LOOM_FORCE_INLINE inline
#endif

#include <cstddef>

namespace loom {
/// Extent value meaning "known only at run time".
inline constexpr std::size_t dynamic_extent = static_cast<std::size_t>(-1);
}  // namespace loom

#endif  // LOOM_CORE_CONFIG_HPP
