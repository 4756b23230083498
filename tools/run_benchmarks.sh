#!/usr/bin/env bash
# Builds and runs loom's benchmarks, then writes BENCHMARKS.md. One command, one progress line per binary:
#   1. configures the build (Release, -DLOOM_BENCH=ON; benchmarks compile with -O2) with
#      tools/build_cost.py as compiler launcher, and builds every benchmark, the peer kernels'
#      binary-size drivers and the STREAM triad (target bench.all); the launcher records compile
#      time and peak compiler memory of every benchmark TU (-> build_cost_bench.json);
#   2. STREAM-like triad at each thread count           -> stream_t<N>.json (the bandwidth peak);
#   3. the runtime suite (benchmarks/runtime/*.cpp, loom vs hand vs Eigen, one thread)
#                                                       -> runtime_<kernel>.json;
#   4. the peer comparison (benchmarks/peers/: loom, hand, Eigen, GraphBLAS) at each thread
#      count, one process per input -> peers.json, then scipy.sparse on the inputs the peers
#      binary exports (results checked equal to the hand-written kernel's) -> peers_scipy.json;
#   5. binary size per kernel                           -> binary_size.json;
#   6. compile time (benchmarks/compile_time/measure.py, g++ and clang++) -> compile_time.json;
#   7. tools/bench_report.py -> BENCHMARKS.md and the plots in benchmarks/results/*.png.
# The test suite's build cost (tools/build_cost.sh, ~1.5 h on 2 cores) is not rerun here unless
# --build-cost-tests is given; the report shows the last build_cost_tests.json.
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/run_benchmarks.sh [--quick] [--no-compile-time] [--no-runtime] [--no-peers]
#                                     [--no-stream] [--filter REGEX] [--repetitions N]
#                                     [--threads "1 2"] [--committed] [--build-cost-tests]
#                                     [--min-time SECONDS] [--report-only] [--build-only]
#                                     [--no-build]
#   --quick            1 repetition, short minimum times, compile-time TUs compiled once, up to 4
#                      operands (a smoke run)
#   --filter REGEX     only the runtime and peer benchmarks whose name matches (Google
#                      Benchmark's filter; scipy's runner takes it as a Python regex)
#   --repetitions N, --min-time S  Google Benchmark's repetitions (5) and minimum time per
#                      repetition (0.5 s), also used by scipy's runner
#   --threads LIST     thread counts of the peer comparison and STREAM (default: "1 $(nproc)")
#   --committed        build from `git archive HEAD` (in $BUILD_DIR/src), not from the work tree:
#                      measures the committed loom while others edit the checkout
#   --report-only      only step 7, from the JSON files already in benchmarks/results
#   --build-only       only step 1; --no-build: skip it (measure what the build dir holds), e.g.
#                      build first, then measure when the machine is quiet
# Environment: BUILD_DIR (default build/bench), LOOM_BENCH_DATA (folder of the real matrices),
#              CXX (compiler of the runtime benchmarks).
# Needs: cmake, a C++20 compiler, libbenchmark-dev, libeigen3-dev, libboost-dev, python3, GNU
# time (package `time`), binutils; optional: libgraphblas-dev (GraphBLAS rows), python3-scipy
# (scipy rows), python3-matplotlib (plots).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

repetitions=5
min_time=0.5
compile_repeat=3
max_operands=8
run_runtime=1
run_compile=1
run_peers=1
run_stream=1
run_cost_tests=0
committed=0
report_only=0
build_only=0
no_build=0
filter=""
threads="1 $(nproc)"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) repetitions=1; min_time=0.05; compile_repeat=1; max_operands=4 ;;
    --no-compile-time) run_compile=0 ;;
    --no-runtime) run_runtime=0 ;;
    --no-peers) run_peers=0 ;;
    --no-stream) run_stream=0 ;;
    --filter) filter="$2"; shift ;;
    --repetitions) repetitions="$2"; shift ;;
    --min-time) min_time="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --committed) committed=1 ;;
    --build-cost-tests) run_cost_tests=1 ;;
    --report-only) report_only=1 ;;
    --build-only) build_only=1 ;;
    --no-build) no_build=1 ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "run_benchmarks.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
threads="$(echo "$threads" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')"

build="${BUILD_DIR:-build/bench}"
# OpenMP threads (GraphBLAS, Eigen, the hand-written kernels) sleep when idle instead of
# spinning, as loom's pool does: on a shared machine spinning workers steal the cores
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# the Python that has matplotlib (and scipy) draws the plots and runs scipy: Debian's packages
# live in /usr/bin/python3, which a python3 earlier on PATH (pyenv, venv) does not see
py=python3
if ! python3 -c 'import matplotlib, scipy' > /dev/null 2>&1 && [ -x /usr/bin/python3 ] \
   && /usr/bin/python3 -c 'import matplotlib' > /dev/null 2>&1; then
  py=/usr/bin/python3
fi
results=benchmarks/results
mkdir -p "$results"
t_start=$SECONDS
step() { printf '==> [%4ds] %s\n' "$((SECONDS - t_start))" "$*"; }
# logged LOG CMD...: runs CMD with its output in LOG; shows the end of LOG when it fails
logged() {
  local log=$1
  shift
  "$@" > "$log" 2>&1 || { local rc=$?; tail -n 30 "$log" >&2; echo "FAILED ($rc): $*; full output in $log" >&2; exit "$rc"; }
}

if [ "$report_only" = 1 ]; then
  step "report"
  "$py" tools/bench_report.py report --results "$results" --out BENCHMARKS.md
  exit 0
fi

generator=()
if command -v ninja > /dev/null 2>&1; then generator=(-G Ninja); fi

src=.
mkdir -p "$build"
if [ "$no_build" = 1 ]; then
  [ -f "$build/CMakeCache.txt" ] || { echo "run_benchmarks.sh: --no-build, but $build is not configured" >&2; exit 1; }
  src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:[A-Z]*=//p' "$build/CMakeCache.txt")"
  step "measuring the build in $build (sources: $src), not rebuilding"
elif [ "$committed" = 1 ]; then
  src="$build/src"
  # a fresh snapshot, copied over the previous one file by file only where the content changed,
  # so that an unchanged tree does not rebuild
  rm -rf "$build/src.new"
  mkdir -p "$build/src.new" "$src"
  git archive HEAD | tar -x -C "$build/src.new"
  (cd "$build/src.new" && find . -type f) | while read -r f; do
    cmp -s "$build/src.new/$f" "$src/$f" || { mkdir -p "$(dirname "$src/$f")"; cp "$build/src.new/$f" "$src/$f"; }
  done
  (cd "$src" && find . -type f) | while read -r f; do
    [ -e "$build/src.new/$f" ] || rm -f "$src/$f"
  done
  rm -rf "$build/src.new"
  git rev-parse --short=12 HEAD > "$build/source_commit"
  step "building the committed tree $(cat "$build/source_commit") from $src"
fi
cost_log="$(cd "$build" && pwd)/build_cost.jsonl"
if [ "$no_build" = 0 ]; then
step "configuring $build"
cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLOOM_BENCH=ON \
  -DLOOM_TEST=OFF -DLOOM_EXAMPLES=OFF -DLOOM_INSTALL=OFF -DLOOM_CCACHE=OFF \
  "-DLOOM_BENCH_DATA_DIR=${LOOM_BENCH_DATA:-$PWD/data/matrices}" \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=python3;$PWD/tools/build_cost.py;wrap;$cost_log" \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
export LOOM_BUILD_COST_SRC="$(cd "$src" && pwd)"
step "building the benchmarks (target bench.all)"
cmake --build "$build" --target bench.all -j "$(nproc)"
python3 tools/build_cost.py collect --name bench --build "$build" --log "$cost_log" \
  --out "$results/build_cost_bench.json"
fi
if [ "$build_only" = 1 ]; then step "built"; exit 0; fi
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
commit_args=()
if [ "$src" != "." ] && [ -f "$build/source_commit" ]; then commit_args=(--commit "$(cat "$build/source_commit")"); fi
"$py" tools/bench_report.py meta --out "$results/meta.json" --cxx "$cxx" --flags "-O2 -DNDEBUG" "${commit_args[@]}"

bench_args=(--benchmark_repetitions="$repetitions" --benchmark_enable_random_interleaving=true
            --benchmark_report_aggregates_only=false --benchmark_min_time="$min_time")
if [ -n "$filter" ]; then bench_args+=(--benchmark_filter="$filter"); fi

if [ "$run_stream" = 1 ]; then
  rm -f "$results"/stream_t*.json
  for t in $threads; do
    step "stream_triad, $t thread(s)"
    "$build/benchmarks/stream/stream_triad" --threads="$t" --out="$results/stream_t$t.json"
  done
fi

if [ "$run_runtime" = 1 ]; then
  rm -f "$results"/runtime_*.json   # the report must not mix runs
  exes=()
  for exe in "$build"/benchmarks/runtime/*; do
    [ -x "$exe" ] && [ -f "$exe" ] && exes+=("$exe")
  done
  k=0
  for exe in "${exes[@]}"; do
    k=$((k + 1))
    name="$(basename "$exe")"
    step "runtime [$k/${#exes[@]}] $name"
    # implementations of one input are registered side by side; random interleaving also spreads
    # their repetitions over the run, so that a burst of load on the machine hits all of them
    logged "$build/runtime_$name.log" "$exe" "${bench_args[@]}" \
      --benchmark_out="$results/runtime_$name.json" --benchmark_out_format=json
    # a filter that matches nothing in this binary leaves an empty file
    if [ ! -s "$results/runtime_$name.json" ]; then rm -f "$results/runtime_$name.json"; fi
  done
fi

if [ "$run_peers" = 1 ]; then
  rm -f "$results"/peers*.json
  # one process per input: all its systems at every thread count, repetitions interleaved at
  # random; only that input's copies (loom, Eigen, GraphBLAS, results) are in memory. The inputs
  # are written (as they are built) for scipy_runner.py, which runs right after.
  rm -rf "$build/peers_data" "$build/peers"
  mkdir -p "$build/peers_data" "$build/peers"
  groups="$("$build/benchmarks/peers/peers" --benchmark_list_tests=true ${filter:+--benchmark_filter="$filter"} \
            | sed -n 's|^\(BM_[^/]*/[^/]*\)/.*|\1|p' | awk '!seen[$0]++')"
  n_groups=$(echo "$groups" | grep -c . || true)
  g=0
  for group in $groups; do
    g=$((g + 1))
    step "peers [$g/$n_groups] $group (threads: $threads)"
    logged "$build/peers/$g.log" "$build/benchmarks/peers/peers" --threads="$threads" \
      --export="$build/peers_data" "${bench_args[@]}" --benchmark_filter="^$group/" \
      --benchmark_out="$build/peers/$g.json" --benchmark_out_format=json
  done
  "$py" tools/bench_report.py merge --out "$results/peers.json" "$build/peers"/*.json
  if "$py" -c 'import scipy' > /dev/null 2>&1; then
    step "peers, scipy.sparse (on the same inputs, one thread)"
    logged "$build/peers_scipy.log" "$py" benchmarks/peers/scipy_runner.py \
      --data "$build/peers_data" --out "$results/peers_scipy.json" \
      --repetitions "$repetitions" --min-time "$min_time" ${filter:+--filter "$filter"}
  else
    step "peers, scipy.sparse: skipped (apt-get install python3-scipy)"
  fi
  rm -rf "$build/peers_data"
fi

step "binary size per kernel"
python3 tools/binary_size.py --build "$build" --out "$results/binary_size.json"

if [ "$run_compile" = 1 ]; then
  step "compile time (benchmarks/compile_time/measure.py)"
  "$py" benchmarks/compile_time/measure.py --out "$results/compile_time.json" \
    --work "$build/compile_time" --repeat "$compile_repeat" --max-operands "$max_operands" \
    --loom-include "$src/include"
fi

if [ "$run_cost_tests" = 1 ]; then
  step "build cost of the test suite (tools/build_cost.sh, long)"
  BUILD_DIR="$build/cost" SOURCE_DIR="$src" bash tools/build_cost.sh -j "$(nproc)"
fi

step "report"
"$py" tools/bench_report.py report --results "$results" --out BENCHMARKS.md
step "done"
