#!/usr/bin/env bash
# Builds loom's libFuzzer targets (tests/fuzz, standalone, -DLOOM_FUZZ=ON) and runs each for a
# bounded time from its committed seed corpus and dictionary; fails on the first crash, leak,
# timeout or abort (the input is left in the build directory as crash-*, timeout-*, ...).
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/fuzz.sh [seconds per target, default 20] [build dir, default build/fuzz]
#   FUZZ_JOBS: parallel build jobs (default: nproc). tools/test.sh runs it in its clang
#   (sanitized) configuration; docs/testing.md "Fuzzing" says how to run a target longer and keep a crash.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-20}
dir=${2:-build/fuzz}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
targets=(matrix_market tns csv view sql)

clangxx=""
for c in clang++-14 clang++; do
  if command -v "$c" > /dev/null 2>&1; then
    clangxx=$(command -v "$c")
    break
  fi
done
if [ -z "$clangxx" ]; then
  echo "tools/fuzz.sh: libFuzzer needs clang (clang-14 and libclang-rt-14-dev)" >&2
  exit 1
fi
generator=()
if command -v ninja > /dev/null 2>&1; then
  generator=(-G Ninja)
fi

cmake -S tests/fuzz -B "$dir" "${generator[@]}" -DCMAKE_CXX_COMPILER="$clangxx" \
  -DCMAKE_BUILD_TYPE= -DLOOM_FUZZ=ON > /dev/null
cmake --build "$dir" -j "$jobs"

# Each target: its seeds (read-only) plus the corpus it grows in $dir/corpus/<name>; one
# process, -max_len 4096 (the seeds are far shorter), -timeout 10 s per input, 2 GB of memory.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The targets run side by side, `jobs` at a time (each still for `seconds`): on CI's 2 cores the
# stage takes 2 x 15 s rather than 4 x 15 s.
fuzz_one() {
  local name=$1
  local options=(-max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048
                 -print_final_stats=1 -artifact_prefix="$dir/$name-")
  if [ -f "tests/fuzz/$name.dict" ]; then
    options+=(-dict="tests/fuzz/$name.dict")
  fi
  mkdir -p "$dir/corpus/$name"
  "$dir/fuzz_$name" "${options[@]}" "$dir/corpus/$name" "tests/fuzz/corpus/$name" \
    > "$dir/fuzz_$name.log" 2>&1
}
for ((first = 0; first < ${#targets[@]}; first += jobs)); do
  wave=("${targets[@]:first:jobs}")
  pids=()
  for name in "${wave[@]}"; do
    echo "==> fuzz_$name for $seconds s"
    fuzz_one "$name" &
    pids+=($!)
  done
  for k in "${!wave[@]}"; do
    name=${wave[$k]}
    if ! wait "${pids[$k]}"; then
      tail -n 60 "$dir/fuzz_$name.log" >&2
      echo "tools/fuzz.sh: fuzz_$name failed; the input is $dir/$name-*; add it to" \
           "tests/fuzz/corpus/$name once fixed (docs/testing.md, Fuzzing)" >&2
      exit 1
    fi
    echo "fuzz_$name:"
    grep -E "^stat::number_of_executed_units|^Done" "$dir/fuzz_$name.log" || true
  done
done
