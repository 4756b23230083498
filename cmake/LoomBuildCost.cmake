# Defines loom_add_build_cost_report(): the compile time and peak compiler memory of each
# translation unit of a project's own targets, as a Markdown table and a plot
# (docs/build-cost.md). Included by loom-config.cmake, so available after find_package(loom), and
# by loom's own CMakeLists.txt (add_subdirectory, FetchContent).
# SPDX-License-Identifier: BSL-1.0
include_guard(GLOBAL)

# loom_add_build_cost_report(<report-target> TARGETS <target>...
#                            [OUTPUT <file.md>] [PLOT <file.png>] [ALL] [NO_CACHE])
#   Compiles the TUs of each <target> through a launcher (loom_build_cost.py wrap, put in front
#   of the target's C/CXX_COMPILER_LAUNCHER, e.g. ccache) that records each compile's wall and CPU
#   time, peak compiler memory and object size in <report-target>.d/units.jsonl below the current
#   binary directory. Building <report-target> builds the targets, then writes OUTPUT (default
#   <report-target>.md in the current binary directory): one row per TU, the latest compile of
#   each, and PLOT (default OUTPUT with .png) where matplotlib or gnuplot is found; the table says
#   when it is not. ALL adds <report-target> to the default build. NO_CACHE drops a ccache or
#   sccache launcher from these targets, so that every compile is timed rather than cache hits.
#   Needs Python 3.9 or later (no GNU time).
function(loom_add_build_cost_report name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ALL;NO_CACHE" "OUTPUT;PLOT" "TARGETS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "loom_add_build_cost_report(${name}): unknown arguments "
                        "${arg_UNPARSED_ARGUMENTS}; expected TARGETS, OUTPUT, PLOT, ALL, NO_CACHE")
  endif()
  if(NOT arg_TARGETS)
    message(FATAL_ERROR "loom_add_build_cost_report(${name}): no TARGETS; name the targets whose "
                        "translation units to measure")
  endif()
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/loom_build_cost.py")  # installed beside this file
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.d")
  set(log "${dir}/units.jsonl")
  if(NOT arg_OUTPUT)
    set(arg_OUTPUT "${name}.md")
  endif()
  get_filename_component(arg_OUTPUT "${arg_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT arg_PLOT)
    string(REGEX REPLACE "\\.md$" "" arg_PLOT "${arg_OUTPUT}")
    set(arg_PLOT "${arg_PLOT}.png")
  endif()
  get_filename_component(arg_PLOT "${arg_PLOT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")

  find_program(LOOM_PYTHON3 NAMES python3 python DOC "Python 3 for loom_add_build_cost_report()")
  if(NOT LOOM_PYTHON3)
    message(WARNING "loom_add_build_cost_report(${name}): python3 not found; the targets are "
                    "built without measurement and ${name} only says so")
    add_custom_target(${name} COMMAND "${CMAKE_COMMAND}" -E echo
                      "loom: no build cost report: python3 was not found when configuring")
    return()
  endif()

  set(objects "")
  set(targets "")
  foreach(target IN LISTS arg_TARGETS)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "loom_add_build_cost_report(${name}): ${target} is not a target")
    endif()
    get_target_property(real ${target} ALIASED_TARGET)
    if(real)
      set(target ${real})
    endif()
    get_target_property(type ${target} TYPE)
    get_target_property(imported ${target} IMPORTED)
    if(imported OR type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      message(FATAL_ERROR "loom_add_build_cost_report(${name}): ${target} compiles nothing here; "
                          "name executables and libraries built by this project")
    endif()
    get_target_property(other ${target} LOOM_BUILD_COST_REPORT)
    if(other)
      message(FATAL_ERROR "loom_add_build_cost_report(${name}): ${target} is measured by "
                          "${other} already; a target belongs to one report")
    endif()
    set_property(TARGET ${target} PROPERTY LOOM_BUILD_COST_REPORT ${name})
    list(APPEND targets ${target})
    foreach(lang IN ITEMS C CXX)
      get_target_property(previous ${target} ${lang}_COMPILER_LAUNCHER)
      if(NOT previous)
        set(previous "")
      endif()
      if(arg_NO_CACHE)
        list(FILTER previous EXCLUDE REGEX "(^|/)s?ccache(\\.exe)?$")
      endif()
      set_property(TARGET ${target} PROPERTY ${lang}_COMPILER_LAUNCHER
                   "${LOOM_PYTHON3}" "${script}" wrap "${log}" -- ${previous})
    endforeach()
    string(APPEND objects "${target}\t$<JOIN:$<TARGET_OBJECTS:${target}>,\t>\n")
  endforeach()

  # The objects of each target, known only at generation time (one file per configuration).
  file(GENERATE OUTPUT "${dir}/targets-$<CONFIG>.txt" CONTENT "${objects}")
  list(JOIN targets ", " names)
  set(all)
  if(arg_ALL)
    set(all ALL)
  endif()
  add_custom_target(${name} ${all}
                    COMMAND "${LOOM_PYTHON3}" "${script}" report --log "${log}"
                            --targets "${dir}/targets-$<CONFIG>.txt" --out "${arg_OUTPUT}"
                            --plot "${arg_PLOT}" --title "${name}"
                            --source-dir "${CMAKE_SOURCE_DIR}"
                    BYPRODUCTS "${arg_OUTPUT}"
                    COMMENT "loom: build cost of ${names}"
                    VERBATIM)
  add_dependencies(${name} ${targets})
endfunction()
