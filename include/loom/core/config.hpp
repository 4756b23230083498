// Defines loom's configuration macros (core vocabulary).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_CONFIG_HPP
#define LOOM_CORE_CONFIG_HPP

#if defined(__GNUC__) || defined(__clang__)
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
