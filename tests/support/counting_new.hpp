// Counts the calls of the global operator new on the calling thread (test support). Replaces the
// global allocation functions: include it in exactly one source file of a test executable. Not
// inlined, so that the compiler does not pair malloc with a delete it can see (GCC's
// -Wmismatched-new-delete).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_COUNTING_NEW_HPP
#define LOOM_TESTS_SUPPORT_COUNTING_NEW_HPP

#include <cstddef>
#include <cstdlib>
#include <new>

// Under AddressSanitizer the replacement is left out: ASan's runtime brings its own operator new,
// and memory from one freed through the other is reported as an alloc-dealloc mismatch. The
// allocation counts are checked by the gcc and clang builds; the ASan build runs the same
// kernels for memory errors only.
#if defined(__SANITIZE_ADDRESS__)
#  define LOOM_TEST_COUNTS_ALLOCATIONS 0
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define LOOM_TEST_COUNTS_ALLOCATIONS 0
#  endif
#endif
#ifndef LOOM_TEST_COUNTS_ALLOCATIONS
#  define LOOM_TEST_COUNTS_ALLOCATIONS 1
#endif

namespace loom_test {
inline constexpr bool counts_allocations = LOOM_TEST_COUNTS_ALLOCATIONS != 0;
inline thread_local long allocation_count = 0;

/// The allocations `f()` makes on this thread.
template <class F>
long allocations_of(F&& f) {
  const long before = allocation_count;
  f();
  return allocation_count - before;
}
}  // namespace loom_test

#if LOOM_TEST_COUNTS_ALLOCATIONS
[[gnu::noinline]] void* operator new(std::size_t n) {
  ++loom_test::allocation_count;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new[](std::size_t n) {
  ++loom_test::allocation_count;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

#endif  // LOOM_TESTS_SUPPORT_COUNTING_NEW_HPP
