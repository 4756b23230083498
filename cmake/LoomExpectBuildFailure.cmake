# Builds one compile-fail target and prints the compiler's output for ctest to match (STYLE.md H16).
# SPDX-License-Identifier: BSL-1.0
# Usage: cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DSOURCE=<file> -DSTEM=<name> [-DCONFIG=<cfg>]
#              -P LoomExpectBuildFailure.cmake
# The test's own name appears in every diagnostic line (path, object file, target), and a fail test
# named after the message it expects would match on *any* error. So the source path, the target
# name and `<stem>.cpp` are replaced with placeholders before printing, and colour codes are
# dropped; ctest then matches PASS_REGULAR_EXPRESSION against the diagnostics alone.
foreach(var BUILD_DIR TARGET SOURCE STEM)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "LoomExpectBuildFailure.cmake: -D${var}=... is required")
  endif()
endforeach()
set(config_args)
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" ${config_args}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)

string(ASCII 27 esc)
string(REGEX REPLACE "${esc}\\[[0-9;]*[mK]" "" output "${output}")
string(REPLACE "${SOURCE}" "<fail-test>" output "${output}")
string(REPLACE "${TARGET}" "<fail-target>" output "${output}")
string(REPLACE "${STEM}.cpp" "<fail-test>" output "${output}")
message("${output}")

if(result EQUAL 0)
  message(FATAL_ERROR "LOOM_FAIL_TEST_COMPILED: ${TARGET} built, but ${SOURCE} must not compile")
endif()
message("-- <fail-target> failed to build, as expected; ctest now matches the expected message")
