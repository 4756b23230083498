#!/usr/bin/env bash
# Runs bench.parallel with repetitions, 1- and 2-thread runs interleaved at random, writes
# benchmarks/results/runtime_parallel.json and prints the markdown tables of results.md.
# usage: benchmarks/parallel/run.sh <build dir holding the `parallel` executable> [repetitions]
# SPDX-License-Identifier: BSL-1.0
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build=${1:?usage: run.sh <build dir> [repetitions]}
reps=${2:-5}
exe=$(find "$build" -name parallel -type f -perm -u+x | head -1)
out="$here/../results/runtime_parallel.json"
uptime
"$exe" --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
  --benchmark_out="$out" --benchmark_out_format=json
uptime
python3 "$here/report.py" "$out"
