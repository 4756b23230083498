#!/usr/bin/env bash
# Measures the build cost of loom's test suite (docs/build-cost.md): configures
# a test build like tools/test.sh's gcc configuration (g++ -O1, tests and examples on) with
# tools/build_cost.py as compiler launcher (no ccache), builds it, and writes
# benchmarks/results/build_cost_tests.json (per TU: wall, CPU, peak compiler memory, object size;
# per test executable and in total).
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/build_cost.sh [-j N] [--target T]...
#   BUILD_DIR (default build/cost), CXX (default g++), FLAGS (default -O1), SOURCE_DIR (default
#   the checkout; e.g. a `git archive HEAD` snapshot, to measure the committed tree while others
#   edit this one). A TU that fails to compile is reported by ninja and skipped (-k 0).
#   Interrupted builds keep what they measured: rerun to finish (built TUs are not rebuilt, and
#   `collect` keeps their records), or `python3 tools/build_cost.py collect` by hand.
#   To measure from scratch: rm -rf "$BUILD_DIR".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs="$2"; shift ;;
    --target) targets+=(--target "$2"); shift ;;
    *) echo "build_cost.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build="${BUILD_DIR:-build/cost}"
mkdir -p "$build"
log="$(cd "$build" && pwd)/build_cost.jsonl"
generator=()
if command -v ninja > /dev/null 2>&1; then generator=(-G Ninja); fi
mkdir -p "$build"
cmake -S "${SOURCE_DIR:-.}" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="${CXX:-g++}" -DCMAKE_BUILD_TYPE= \
  -DCMAKE_CXX_FLAGS="${FLAGS:--O1}" -DLOOM_TEST=ON -DLOOM_EXAMPLES=ON -DLOOM_CCACHE=OFF \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=python3;$PWD/tools/build_cost.py;wrap;$log" -DLOOM_BENCH=OFF > "$build/configure.log"
export LOOM_BUILD_COST_SRC="$(cd "${SOURCE_DIR:-.}" && pwd)"
t0=$SECONDS
status=0
cmake --build "$build" -j "$jobs" "${targets[@]}" -- -k 0 || status=$?
echo "build_cost.sh: build took $((SECONDS - t0)) s wall (status $status)"
python3 tools/build_cost.py collect --name tests --build "$build" --log "$log"
exit $status
