#!/usr/bin/env bash
# Builds and tests loom: the README's test command, and what CI runs (.ci/run).
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/test.sh [gcc|clang]
#   Installs the Debian packages it needs when some are missing (as root, or through sudo; with a
#   message naming them otherwise, see tools/packages.sh), checks the formatting (clang-format-16,
#   tools/check_format.sh), that single_include/ is current (and README.md's quick start, if
#   tools/check_readme.py exists) and the separate-compilation blocks (tools/check_separate.py),
#   then configures, builds and
#   runs ctest in two configurations:
#   build/gcc (g++ -O0; tests/differential over a covering sample of its format combinations;
#   header self-containment; no examples), then an install as a user makes it from a fresh copy,
#   used through find_package, add_subdirectory and pkg-config (tools/check_install.sh), then the
#   examples in Release (-O3, build/release-gcc), built and run, and every benchmark compiled;
#   build/clang (clang++ -O0 under ASan and UBSan, every test and every format combination), then
#   the libFuzzer targets of tests/fuzz (15 s each, tools/fuzz.sh) and every benchmark compiled
#   (build/release-clang). The benchmarks are compiled with -fsyntax-only in both, every
#   diagnostic and no code (tools/syntax_only.sh; tools/run_benchmarks.sh builds them to run). With an argument, only that configuration (`asan` is `clang`).
#   Every build turns warnings into errors (-DLOOM_WERROR=ON) and compiles through ccache when it
#   is installed, with the cache outside the clone (docs/testing.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

only=${1:-all}
case "$only" in
  all | gcc | clang) ;;
  asan) only=clang ;;  # the sanitizers are the clang build's (until 2026-11-26 a third build)
  *)
    echo "usage: bash tools/test.sh [gcc|clang]" >&2
    exit 2
    ;;
esac

# What CI installs on a fresh Debian 12 (.ci/run): compilers, the sanitizer runtime, the test
# framework, and what optional tests use (Eigen, SQLite, MPI, Google Benchmark, scipy).
packages=(cmake ninja-build g++ g++-12 clang-14 libclang-rt-14-dev libboost-dev doctest-dev ccache
          python3 python3-numpy python3-scipy libbenchmark-dev libeigen3-dev sqlite3
          libopenmpi-dev openmpi-bin clang-format-16 pkg-config)

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
    [ "$only" = all ] && echo "        rerun one configuration with: bash tools/test.sh <gcc|clang>" >&2
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
# CMAKE_BUILD_TYPE=None: <flags> alone (CMake adds none for it), not the Release loom defaults to.
run_config() {
  local name=$1 cxx=$2 flags=$3 dir=build/$1
  shift 3
  stage "$name: configure" cmake -S . -B "$dir" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" \
    -DLOOM_TEST=ON -DLOOM_EXAMPLES=ON -DLOOM_WERROR=ON "$@"
  stage "$name: build" cmake --build "$dir" -j "$jobs"
  stage "$name: test" ctest --test-dir "$dir" --output-on-failure -j "$jobs" --timeout 600
}

# release_examples <name> <compiler> [run]: every benchmark compiled (at -O0, below), warnings as
# errors; with `run`, the examples too, built as a user builds them (CMAKE_BUILD_TYPE=Release:
# -O3 -DNDEBUG) and each run once at its smoke size (LOOM_EXAMPLE_SMOKE=1), so optimised code
# runs too (the test builds are -O0).
# What each choice here costs or saves is measured in docs/testing.md, "Why these flags".
release_examples() {
  local name=release-$1 cxx=$2 dir=build/release-$1
  # every benchmark, and with `run` the examples (every build type builds). Without
  # `run` (clang), not the examples: the sanitized build compiles them with the same -Werror, and
  # clang's diagnostics do not depend on -O (they were 62 s of that stage's CPU).
  # The benchmarks are only checked (LOOM_BENCH_SYNTAX_ONLY: -fsyntax-only, nothing linked):
  # CI checks that they build with both compilers and -Werror, and keeps benchmark builds out of
  # its time (code generation is two thirds of a g++ -O0 compile; clang's optimiser triples one).
  # tools/run_benchmarks.sh builds them optimised; the examples here stay optimised and run.
  local examples=ON
  [ "${3:-}" = run ] || examples=OFF
  stage "$name: configure" cmake -S . -B "$dir" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS= \
    -DLOOM_TEST=OFF -DLOOM_EXAMPLES=$examples -DLOOM_BENCH=ON -DLOOM_INSTALL=OFF -DLOOM_WERROR=ON \
    -DLOOM_BENCH_SYNTAX_ONLY=ON
  stage "$name: build" cmake --build "$dir" -j "$jobs"
  if [ "${3:-}" = run ]; then
    stage "$name: run" run_examples "$dir"
  fi
}

# run_examples <build dir>: every example.* executable of the build, from the repository root.
run_examples() {
  local exe found=0
  while IFS= read -r exe; do
    found=1
    echo "--- $exe"
    LOOM_EXAMPLE_SMOKE=1 "$exe" > "$exe.out" 2>&1 || { cat "$exe.out"; return 1; }
    tail -n 3 "$exe.out"
  done < <(find "$1/examples" -type f -name 'example.*' -perm -u+x | sort)
  [ "$found" = 1 ] || { echo "no example executable under $1/examples" >&2; return 1; }
  # examples/scipy: loom's SpMV called from python through ctypes. Its ctest (example.scipy)
  # belongs to an uninstrumented test build, and the gcc test build has no examples: run here,
  # with Debian's python3 (where python3-scipy installs); 77 means numpy or scipy is missing.
  local lib="$1/examples/scipy/libloom_spmv.so" py=/usr/bin/python3 rc=0
  [ -x "$py" ] || py=$(command -v python3 || true)
  if [ -f "$lib" ] && [ -n "$py" ]; then
    echo "--- examples/scipy/spmv.py"
    "$py" examples/scipy/spmv.py "$lib" > "$1/spmv.out" 2>&1 || rc=$?
    case "$rc" in
      0) tail -n 3 "$1/spmv.out" ;;
      77) echo "skipped: $(tail -n 1 "$1/spmv.out")" ;;
      *)
        cat "$1/spmv.out"
        return 1
        ;;
    esac
  fi
}

stage "packages" install_packages

# ccache: the cache in ccache's default place outside the clone, the build directory not hashed,
# and the sloppiness ccache's manual asks for with the tests' precompiled headers. Not
# CCACHE_BASEDIR: it would make __FILE__ relative to the build directory, and five TUs find their
# data beside __FILE__ (tests/format/user_level.cpp, tests/format/mapping/doc_example*.cpp,
# tests/fuzz, examples/tpch); so a clone hits the cache of an earlier clone at the same path
# (docs/testing.md).
if command -v ccache > /dev/null 2>&1; then
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
fi

stage "format check" bash tools/check_format.sh
stage "single_include check" bash tools/check_single_include.sh
stage "layering check" python3 tools/check_layers.py
stage "walk check" python3 tools/check_walk.py
stage "runtime split check" python3 tools/check_separate.py
if [ -f tools/check_readme.py ]; then
  stage "README sync check" python3 tools/check_readme.py
fi

if [ "$only" = all ] || [ "$only" = gcc ]; then
  t0=$SECONDS
  gxx=$(pick g++-12 g++)
  # The choices below are measured in docs/testing.md, "Why these flags".
  # -O0: g++'s optimiser costs a third more compile time on loom's template-heavy tests;
  # optimised code, and g++'s flow-sensitive warnings at -O3, are the Release stage's below, which
  # builds and runs the examples. tests/differential: the covering sample of its format products
  # (every format at every position); every combination runs in the clang build.
  # The --param pair delays gcc's garbage collector until the heap reaches 4 GB: less compile
  # time for more memory.
  # Every test folder, the opt-in decompose variants included (bitmap and hashed intermediates,
  # a format per intermediate).
  # The examples are built here only in Release (below, then run); their ctests (example.*) run
  # in the clang build, under the sanitizers.
  run_config gcc "$gxx" "-O0 --param ggc-min-expand=400 --param ggc-min-heapsize=4194304" \
    -DLOOM_EXAMPLES=OFF \
    -DLOOM_TEST_DIFFERENTIAL_OPTIONS="-DLOOM_TEST_COVERING_SAMPLE=1"
  # What a user does: a fresh copy of HEAD configured with no options, built (the runtime library
  # alone, in Release), installed, and the README's first example built and run through
  # find_package, add_subdirectory and pkg-config.
  stage "install: consumer" env CXX="$gxx" bash tools/check_install.sh
  release_examples gcc "$gxx" run
  total gcc "$t0"
fi
if [ "$only" = all ] || [ "$only" = clang ]; then
  t0=$SECONDS
  clangxx=$(pick clang++-14 clang++)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # One clang build, under AddressSanitizer and UndefinedBehaviorSanitizer: every test, every
  # format combination of tests/differential, the opt-in decompose variants, the work counters
  # and the compile-fail tests (a plain clang build of the same tests, the third configuration
  # until 2026-11-26, added nothing the sanitized one does not check).
  # The choices below are measured in docs/testing.md, "Why these flags".
  # -O0: clang's optimiser triples the compile time of the template-heavy tests, and -O1 plus
  # instrumentation costs more again; the sanitizers find the same errors at -O0.
  # UBSan's pointer checks are left out: a null dereference is reported by ASan itself, loom's
  # storage is std::vector (aligned), and no kernel dispatches virtually; the arithmetic, shift,
  # bounds, enum, bool and return checks stay, and the build takes a third less.
  # No debug information, not even -gline-tables-only: a report still names each frame's function
  # (from the symbol table), and line tables cost a fifth of a TU's time and a quarter of its
  # memory. For file:line in a report, rebuild that test with -gline-tables-only (docs/testing.md).
  # Header self-containment depends on the headers, not the compiler: the gcc build checks it.
  # Precompiled headers as under gcc, but for the six TUs clang 14 crashes on with them
  # (tests/CMakeLists.txt lists them; docs/testing.md).
  run_config clang "$clangxx" \
    "-O0 -fsanitize=address,undefined -fno-sanitize=alignment,null,vptr,function -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    -DLOOM_TEST_HEADERS=OFF
  # The libFuzzer targets of the readers and views (tests/fuzz, -O1, ASan + UBSan), built apart
  # and each run 15 s from its seed corpus, two at a time; a crash fails CI (docs/testing.md, "Fuzzing").
  stage "clang: fuzz (5 x 15 s, 2 at a time)" bash tools/fuzz.sh 15 build/fuzz
  release_examples clang "$clangxx"
  total clang "$t0"
fi

echo ""
echo "All passed ($only) in $((SECONDS - started)) s:"
printf '  %s\n' "${timings[@]}"
