#!/usr/bin/env bash
# Builds and runs loom's benchmarks, then writes BENCHMARKS.md (DESIGN.md §10, STYLE.md H19):
#   1. configures build/bench (Release, -DLOOM_BENCH=ON; the benchmarks compile with -O2) and
#      builds every runtime benchmark (benchmarks/runtime/*.cpp -> bench.<kernel>);
#   2. runs each with --benchmark_repetitions=5 (repetitions interleaved at random), JSON into
#      benchmarks/results/runtime_<kernel>.json;
#   3. runs benchmarks/compile_time/measure.py (g++ and clang++) -> benchmarks/results/compile_time.json;
#   4. runs tools/bench_report.py -> BENCHMARKS.md and benchmarks/results/compile_time.png.
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/run_benchmarks.sh [--quick] [--no-compile-time] [--no-runtime]
#                                     [--filter REGEX] [--repetitions N]
#   --quick            1 repetition, compile-time TUs compiled once, up to 4 operands (a smoke run)
#   --filter REGEX     only the runtime benchmarks whose name matches (Google Benchmark's filter)
# Environment: BUILD_DIR (default build/bench), LOOM_BENCH_DATA (folder of the real matrices),
#              CXX (compiler of the runtime benchmarks).
# Needs: cmake, a C++20 compiler, libbenchmark-dev, libeigen3-dev, libboost-dev, python3, GNU
# time (package `time`); python3-matplotlib for the plot.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

repetitions=5
compile_repeat=3
max_operands=8
run_runtime=1
run_compile=1
filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) repetitions=1; compile_repeat=1; max_operands=4 ;;
    --no-compile-time) run_compile=0 ;;
    --no-runtime) run_runtime=0 ;;
    --filter) filter="$2"; shift ;;
    --repetitions) repetitions="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run_benchmarks.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

build="${BUILD_DIR:-build/bench}"
# the Python that has matplotlib draws the plot: Debian's python3-matplotlib lives in /usr/bin/python3,
# which a python3 earlier on PATH (pyenv, venv) does not see
py=python3
if ! python3 -c 'import matplotlib' > /dev/null 2>&1 && [ -x /usr/bin/python3 ] \
   && /usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1; then
  py=/usr/bin/python3
fi
results=benchmarks/results
mkdir -p "$results"

generator=()
if command -v ninja > /dev/null 2>&1; then generator=(-G Ninja); fi

mkdir -p "$build"
echo "==> configuring $build"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLOOM_BENCH=ON \
  -DLOOM_TEST=OFF -DLOOM_EXAMPLES=OFF -DLOOM_INSTALL=OFF > "$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; exit 1; }
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"

if [ "$run_runtime" = 1 ]; then
  echo "==> building the runtime benchmarks"
  cmake --build "$build" --target bench -j "$(nproc)"
  "$py" tools/bench_report.py meta --out "$results/meta.json" --cxx "$cxx" --flags "-O2 -DNDEBUG"
  rm -f "$results"/runtime_*.json   # the report must not mix runs
  for exe in "$build"/benchmarks/runtime/*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    name="$(basename "$exe")"
    echo "==> $name"
    # implementations of one input are registered side by side; random interleaving also spreads
    # their repetitions over the run, so that a burst of load on the machine hits all of them
    args=(--benchmark_repetitions="$repetitions" --benchmark_enable_random_interleaving=true
          --benchmark_report_aggregates_only=false
          --benchmark_out="$results/runtime_$name.json" --benchmark_out_format=json)
    if [ -n "$filter" ]; then args+=(--benchmark_filter="$filter"); fi
    "$exe" "${args[@]}"
    # a filter that matches nothing in this binary leaves an empty file
    if [ ! -s "$results/runtime_$name.json" ]; then rm -f "$results/runtime_$name.json"; fi
  done
fi

if [ "$run_compile" = 1 ]; then
  echo "==> compile time"
  "$py" benchmarks/compile_time/measure.py --out "$results/compile_time.json" \
    --work "$build/compile_time" --repeat "$compile_repeat" --max-operands "$max_operands"
fi

echo "==> report"
"$py" tools/bench_report.py report --results "$results" --out BENCHMARKS.md
