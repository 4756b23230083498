// LOOM_TEST_SANITIZED: 1 in a build under AddressSanitizer (the clang build of tools/test.sh),
// else 0. GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature (test support).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_SANITIZED_HPP
#define LOOM_TESTS_SUPPORT_SANITIZED_HPP

#if defined(__SANITIZE_ADDRESS__)
#  define LOOM_TEST_SANITIZED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define LOOM_TEST_SANITIZED 1
#  endif
#endif
#ifndef LOOM_TEST_SANITIZED
#  define LOOM_TEST_SANITIZED 0
#endif

#endif  // LOOM_TESTS_SUPPORT_SANITIZED_HPP
