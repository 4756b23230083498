// Counts the heap allocations made on the calling thread (test support). Replaces the global
// allocation functions (under ASan: installs ASan's allocation hook): include it in exactly one
// source file of a test executable. Not inlined, so that the compiler does not pair malloc with a
// delete it can see (GCC's -Wmismatched-new-delete).
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_TESTS_SUPPORT_COUNTING_NEW_HPP
#define LOOM_TESTS_SUPPORT_COUNTING_NEW_HPP

#include <cstddef>
#include <cstdlib>
#include <new>

#include <support/sanitized.hpp>

// Under AddressSanitizer the replacement is left out: ASan's runtime brings its own operator new,
// and memory from one freed through the other is reported as an alloc-dealloc mismatch. There the
// allocations are counted by ASan's own allocator hook instead (every heap allocation, operator
// new included), so the sanitized build checks the same counts.
#if LOOM_TEST_SANITIZED
#  include <sanitizer/allocator_interface.h>
#endif

namespace loom_test {
inline thread_local long allocation_count = 0;

/// The allocations `f()` makes on this thread.
template <class F> long allocations_of(F&& f) {
  const long before = allocation_count;
  f();
  return allocation_count - before;
}
}  // namespace loom_test

#if LOOM_TEST_SANITIZED
namespace loom_test::detail {
inline void count_allocation(const volatile void*, std::size_t) { ++allocation_count; }
inline void ignore_free(const volatile void*) {}
inline const int allocation_hooks =
    __sanitizer_install_malloc_and_free_hooks(count_allocation, ignore_free);
}  // namespace loom_test::detail
#else
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
