#!/usr/bin/env bash
# Builds and tests loom: the README's test command, and what CI runs (.ci/run).
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/test.sh [gcc|clang|asan]
#   Installs the Debian packages it needs when some are missing (as root, or through sudo; with a
#   message naming them otherwise, see tools/packages.sh), checks that single_include/ is current
#   (and README.md's quick start, if tools/check_readme.py exists), then configures, builds and
#   runs ctest in
#   build/gcc (g++ -O1; tests/differential at -O0 over a covering sample of its format
#   combinations), build/clang (clang++ -O0, every combination) and build/asan (clang++ -O0,
#   address and undefined-behaviour sanitizers, over the covering sample; header and
#   compile-fail checks, which need no sanitizer, are left to the clang build; then the libFuzzer
#   targets of tests/fuzz, 15 s each, tools/fuzz.sh), and builds the
#   examples in Release (-O3) with g++ (build/release-gcc) and clang++ (build/release-clang), the
#   way a user builds them; with an argument, only that configuration. Every build turns warnings
#   into errors (-DLOOM_WERROR=ON) and compiles through ccache when it is installed, with the
#   cache outside the clone (docs/testing.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

only=${1:-all}
case "$only" in
  all | gcc | clang | asan) ;;
  *)
    echo "usage: bash tools/test.sh [gcc|clang|asan]" >&2
    exit 2
    ;;
esac

# What CI installs on a fresh Debian 12 (.ci/run): compilers, the sanitizer runtime, the test
# framework, and what optional tests use (Eigen, SQLite, MPI, Google Benchmark, scipy).
packages=(cmake ninja-build g++ g++-12 clang-14 libclang-rt-14-dev libboost-dev doctest-dev ccache
          python3 python3-numpy python3-scipy libbenchmark-dev libeigen3-dev sqlite3
          libopenmpi-dev openmpi-bin)

jobs=$(nproc 2>/dev/null || echo 2)
generator=()
if command -v ninja > /dev/null 2>&1; then
  generator=(-G Ninja)
fi

timings=()
started=$SECONDS

# stage <name> <command...>: runs one step, prints its time, and stops everything if it fails.
stage() {
  local name=$1
  shift
  local t0=$SECONDS
  echo "==> $name"
  if ! "$@"; then
    echo "" >&2
    echo "FAILED: $name (after $((SECONDS - t0)) s)" >&2
    echo "        command: $*" >&2
    [ "$only" = all ] && echo "        rerun one configuration with: bash tools/test.sh <gcc|clang|asan>" >&2
    exit 1
  fi
  local line
  line=$(printf '[time] %-24s %5d s' "$name" "$((SECONDS - t0))")
  echo "$line"
  timings+=("$line")
}

# pick <compiler...>: the first compiler found on PATH.
pick() {
  local c
  for c in "$@"; do
    if command -v "$c" > /dev/null 2>&1; then
      command -v "$c"
      return 0
    fi
  done
  echo "tools/test.sh: none of these compilers is installed: $* (install: ${packages[*]})" >&2
  return 1
}

# install_packages: the missing packages, or a message naming them (the build then stops at the
# first tool it lacks, and says which).
install_packages() {
  # shellcheck source=tools/packages.sh
  source tools/packages.sh
  loom_install_packages "${packages[@]}" \
    || echo "tools/test.sh: continuing without them; a configuration that needs one will stop" >&2
}

# total <name> <t0>: the time of one configuration, all its stages.
total() {
  local line
  line=$(printf '[time] %-24s %5d s' "$1: total" "$((SECONDS - $2))")
  echo "$line"
  timings+=("$line")
}

# run_config <name> <compiler> <flags> [cmake options...]
run_config() {
  local name=$1 cxx=$2 flags=$3 dir=build/$1
  shift 3
  stage "$name: configure" cmake -S . -B "$dir" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="$flags" \
    -DLOOM_TEST=ON -DLOOM_EXAMPLES=ON -DLOOM_WERROR=ON "$@"
  stage "$name: build" cmake --build "$dir" -j "$jobs"
  stage "$name: test" ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 600
}

# release_examples <name> <compiler>: the examples alone, built as a user builds them
# (CMAKE_BUILD_TYPE=Release: -O3 -DNDEBUG), warnings as errors; not run (the test builds run them).
release_examples() {
  local name=release-$1 cxx=$2 dir=build/release-$1
  stage "$name: configure" cmake -S . -B "$dir" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS= \
    -DLOOM_TEST=OFF -DLOOM_EXAMPLES=ON -DLOOM_INSTALL=OFF -DLOOM_WERROR=ON
  stage "$name: build" cmake --build "$dir" -j "$jobs"
}

stage "packages" install_packages

# ccache: the cache in ccache's default place outside the clone, the build directory not hashed,
# and the sloppiness ccache's manual asks for with the tests' precompiled headers. Not
# CCACHE_BASEDIR: it would make __FILE__ relative to the build directory, and five TUs find their
# data beside __FILE__ (tests/format/user_level.cpp, tests/mapping/doc_example*.cpp,
# tests/fuzz, examples/tpch); so a clone hits the cache of an earlier clone at the same path
# (docs/testing.md).
if command -v ccache > /dev/null 2>&1; then
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
fi

stage "single_include check" bash tools/check_single_include.sh
stage "layering check" python3 tools/check_layers.py
if [ -f tools/check_readme.py ]; then
  stage "README sync check" python3 tools/check_readme.py
fi

if [ "$only" = all ] || [ "$only" = gcc ]; then
  t0=$SECONDS
  gxx=$(pick g++-12 g++)
  # -O1: optimised code (and gcc's flow-sensitive warnings), 20% less compile time than -O2
  # (spgemm.cpp: 23 s against 29 s); the benchmarks build at -O2. tests/differential, half of this
  # build, compiles at -O0 over a covering sample of its format products (both measured: 23% and
  # about 40% less): every kernel shape still meets the optimiser in the other folders, and
  # every format combination is built by clang below.
  # The --param pair delays gcc's garbage collector until the heap reaches 4 GB (loom's heaviest
  # test peaks at 3 GB then, 2.2 GB with the default): 10-15% less compile time
  # (optimize/decompose_shared.cpp 69 -> 60 s, differential/transpose.cpp 17 -> 15 s).
  # The tests of the opt-in decompose variants (bitmap and hashed intermediates, a format per
  # intermediate) are left to clang: the same templates, in their default variants, compile here
  # through decompose.cpp, and the first two cost 50 s of this build.
  run_config gcc "$gxx" "-O1 --param ggc-min-expand=400 --param ggc-min-heapsize=4194304" \
    -DLOOM_TEST_DIFFERENTIAL_OPTIONS="-O0;-DLOOM_TEST_COVERING_SAMPLE=1" \
    -DLOOM_TEST_EXCLUDE="optimize/decompose_bitmap.cpp;optimize/decompose_per_step.cpp;optimize/decompose_hashed.cpp"
  release_examples gcc "$gxx"
  total gcc "$t0"
fi
if [ "$only" = all ] || [ "$only" = clang ]; then
  t0=$SECONDS
  clangxx=$(pick clang++-14 clang++)
  # -O0: clang's optimiser triples the compile time of the template-heavy tests (differential
  # spgemm.cpp: 23 s at -O1, 8 s at -O0); gcc covers optimised code at -O1. This build runs every
  # format combination of tests/differential.
  # headers compile alone with gcc already (the check depends on the headers, not the compiler)
  # Precompiled headers as under gcc, but for the five TUs clang 14 crashes on with them
  # (tests/CMakeLists.txt lists them; the whole build and its tests passed, docs/testing.md).
  run_config clang "$clangxx" "-O0" -DLOOM_TEST_HEADERS=OFF
  release_examples clang "$clangxx"
  total clang "$t0"
fi
if [ "$only" = all ] || [ "$only" = asan ]; then
  t0=$SECONDS
  clangxx=$(pick clang++-14 clang++)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # -O0, not -O1: on loom's template-heavy tests -O1 plus instrumentation costs 2.5-4x the compile
  # time of -O0 (tests/differential: ~40 s against ~15 s per file), far more than the slower runs
  # cost; the sanitizers find the same errors. Header and compile-fail checks need no sanitizer and
  # already ran with this clang: skip them. LOOM_TEST_COVERING_SAMPLE: a differential test over a
  # product of formats runs the combinations that put every format at every position (inner
  # products: 11 of 36) rather than all of them, which gcc and clang already ran; it halves the
  # sanitizer build (inner_product.cpp: 13.5 s against 31.5 s).
  # UBSan's pointer checks are left out: a null dereference is reported by ASan itself, loom's
  # storage is std::vector (aligned), and no kernel dispatches virtually; the arithmetic, shift,
  # bounds, enum, bool and return checks stay. Without alignment, null, vptr and function the
  # build takes a third less (contractions.cpp: 19 s against 28.5 s).
  # Precompiled headers as in the clang build (the same five TUs without them).
  # The opt-in decompose variants' tests run in the clang build only: their kernels are the
  # default ones over other intermediate formats (bitmap writes are sanitized through
  # tests/differential/levels.cpp); they cost 37 s of this build. tests/work (complexity by work
  # counters, a build option of its own) counts the same in every build: gcc and clang run it.
  run_config asan "$clangxx" \
    "-O0 -gline-tables-only -fsanitize=address,undefined -fno-sanitize=alignment,null,vptr,function -fno-sanitize-recover=undefined -fno-omit-frame-pointer -DLOOM_TEST_COVERING_SAMPLE=1" \
    -DLOOM_TEST_HEADERS=OFF -DLOOM_TEST_COMPILE_FAIL=OFF \
    -DLOOM_TEST_EXCLUDE="optimize/decompose_bitmap.cpp;optimize/decompose_per_step.cpp;optimize/decompose_hashed.cpp;work/kernels.cpp;work/rewrites.cpp;work/tpch.cpp"
  # The libFuzzer targets of the readers and views (tests/fuzz, -O1, ASan + UBSan), built apart
  # and each run 15 s from its seed corpus; a crash fails CI (docs/testing.md, "Fuzzing").
  stage "asan: fuzz (4 x 15 s)" bash tools/fuzz.sh 15 build/fuzz
  total asan "$t0"
fi

echo ""
echo "All passed ($only) in $((SECONDS - started)) s:"
printf '  %s\n' "${timings[@]}"
