// Defines loom's compile-time limits (one place, `loom::limits`) and the inlining macros (core
// vocabulary). No macro changes what a template means: the optimizer's choices are
// options (exec/options.hpp), these limits are constants.
// SPDX-License-Identifier: BSL-1.0
#ifndef LOOM_CORE_CONFIG_HPP
#define LOOM_CORE_CONFIG_HPP

// clang at -O0 (the sanitizer builds): forced inlining only copies the loop code into every
// caller, at a cost in compile time (docs/testing.md), and changes no behaviour; g++ -O0
// compiles faster with it, and every optimised build keeps it.
#if defined(__clang__) && !defined(__OPTIMIZE__)
#  define LOOM_FORCE_INLINE inline
#elif defined(__GNUC__) || defined(__clang__)
#  define LOOM_FORCE_INLINE inline __attribute__((always_inline))
#else
#  define LOOM_FORCE_INLINE inline
#endif

// A cold path kept out of the function that holds a kernel's loops: inlined, its code changes
// how the compiler allocates the loops' registers (and follows unrelated changes to the
// compiler's inlining budget).
#if defined(__GNUC__) || defined(__clang__)
#  define LOOM_NOINLINE __attribute__((noinline))
#else
#  define LOOM_NOINLINE
#endif

// The function that holds a kernel's loops starts on a 64-byte boundary, so that where its inner
// loop falls against the front end's fetch blocks is a property of the kernel, not of whatever
// code the linker placed before it (a 2003-row SpMV ran 5% slower when an unrelated header change
// moved it from a 64-byte to a 16-byte boundary).
#if defined(__GNUC__) || defined(__clang__)
#  define LOOM_KERNEL_ALIGN __attribute__((aligned(64)))
#else
#  define LOOM_KERNEL_ALIGN
#endif

// Separate compilation (docs/build-cost.md): with LOOM_SEPARATE_COMPILATION defined, the headers
// only declare loom's heavier non-template functions, and the runtime library (src/runtime.cpp,
// CMake target loom::runtime) defines them once, so a kernel's translation unit neither parses nor
// optimises them. The definitions are the same in both modes: only where the functions are
// compiled does. LOOM_DECL declares one, LOOM_DEF defines it: a plain function in the library; in
// the headers a function template of an unused int, so that a unit compiles only the bodies it
// calls (the std::sort, std::map and std::vector code of every other one would be instantiated
// at the end of each unit otherwise: a sixth of `#include <loom/loom.hpp>`'s time). LOOM_INLINE
// is for the few that cannot be templates (destructors).
#if defined(LOOM_BUILDING_RUNTIME)
#  define LOOM_HEADER_ONLY 1
#  define LOOM_DECL
#  define LOOM_DEF
#  define LOOM_INLINE
#elif defined(LOOM_SEPARATE_COMPILATION)
#  define LOOM_HEADER_ONLY 0
#  define LOOM_DECL
#  define LOOM_DEF
#  define LOOM_INLINE
#else
#  define LOOM_HEADER_ONLY 1
#  define LOOM_DECL template <int = 0>
#  define LOOM_DEF template <int> inline  // inline as before: the same inlining
#  define LOOM_INLINE inline
#endif

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace loom {
/// Extent value meaning "known only at run time".
inline constexpr std::size_t dynamic_extent = static_cast<std::size_t>(-1);

/// Bounds on what the compiler instantiates and on the work of a compile-time search. Each is the
/// default of a template argument or an options field where one exists (`saturation_limits`,
/// `options::max_dense_intermediate_cells`, `opt::skip_candidates<N>`).
namespace limits {
/// Candidate loop orders instantiated per kernel, among which statistics choose at run time.
inline constexpr std::size_t plan_candidates = 4;
/// Skip-policy variants of a kernel under `opt::skip_candidates<>` with no count given.
inline constexpr std::size_t skip_candidates = 4;
/// Elimination prefixes `decompose` instantiates per sum-product (plus the fused kernel).
inline constexpr std::size_t elimination_orders = 8;
/// The most cells `decompose` stores densely in one intermediate.
inline constexpr std::int64_t dense_intermediate_cells = std::int64_t{1} << 26;
/// Bottom-up passes of the rewrite engine before it reports a cycle.
inline constexpr std::size_t rewrite_passes = 64;
/// Equality saturation: e-graph nodes, rule iterations, run-time alternatives kept.
inline constexpr std::size_t saturation_nodes = 640;
inline constexpr std::size_t saturation_iterations = 12;
inline constexpr std::size_t saturation_alternatives = 4;
/// Rule matches per saturation iteration: one iteration is one constant evaluation, and clang
/// allows 2^20 steps per constant without -fconstexpr-steps.
inline constexpr std::size_t saturation_work = 8000;
/// Nodes of the largest term extraction rebuilds.
inline constexpr std::size_t saturation_term = 160;
/// What static extraction assumes for sizes it cannot know: extent of an index, density of a
/// sparse operand.
inline constexpr double saturation_extent = 1000.0;
inline constexpr double saturation_density = 0.01;
}  // namespace limits

/// Whether the optimizer logs its run-time choices to stderr: the environment variable
/// LOOM_DEBUG_PLAN is set (read once). A run-time switch, so every translation unit compiles the
/// same code.
inline bool debug_plan() {
  static const bool on = std::getenv("LOOM_DEBUG_PLAN") != nullptr;
  return on;
}
}  // namespace loom

#endif  // LOOM_CORE_CONFIG_HPP
