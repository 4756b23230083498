# Defines loom_precompile_headers(): a precompiled header of loom's headers for a user's target, so
# that its translation units load loom's parsed declarations instead of parsing them again each
# (docs/build-cost.md, "Precompiled headers"). Included by loom-config.cmake, so available after
# find_package(loom), and by loom's own CMakeLists.txt (add_subdirectory, FetchContent).
# SPDX-License-Identifier: BSL-1.0
include_guard(GLOBAL)

# loom_precompile_headers(<target> [HEADER <header>])
#   Adds <header> (default <loom/loom.hpp>; <loom/kernels.hpp> for kernels only) to <target>'s
#   precompiled headers with target_precompile_headers(PRIVATE): the compiler builds it once for
#   the target, with the target's flags, and every C++ source of the target includes it first.
#   The target must link loom::loom or loom::runtime (for the include path and, with the runtime,
#   LOOM_SEPARATE_COMPILATION, which the header is then compiled with). The header is written as
#   an include: <loom/kernels.hpp>, loom/kernels.hpp and "loom/kernels.hpp" are the same header.
#   Other targets with the same flags can share the result with
#   target_precompile_headers(<other> REUSE_FROM <target>).
function(loom_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "HEADER" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "loom_precompile_headers(${target}): unknown arguments "
                        "${arg_UNPARSED_ARGUMENTS}; expected HEADER <header>")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "loom_precompile_headers(${target}): no such target; call it after "
                        "add_executable or add_library")
  endif()
  if(NOT arg_HEADER)
    set(arg_HEADER "loom/loom.hpp")
  endif()
  string(REGEX REPLACE "^[<\"](.*)[>\"]$" "\\1" header "${arg_HEADER}")
  if(NOT header MATCHES "^loom/.*\\.hpp$")
    message(FATAL_ERROR "loom_precompile_headers(${target}): HEADER ${arg_HEADER} is not one of "
                        "loom's headers (e.g. <loom/loom.hpp>, <loom/kernels.hpp>)")
  endif()
  # angle brackets: found on the target's include path (loom's, from loom::loom), not as a file
  target_precompile_headers(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<${header}$<ANGLE-R>>")
endfunction()
