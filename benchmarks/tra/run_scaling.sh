#!/usr/bin/env bash
# Builds mpi_sparse_scaling, runs it at 1-4 ranks, strong then weak scaling, and projects the
# results to 16-256 ranks (project_scaling.py). Usage:
#   benchmarks/tra/run_scaling.sh [build-dir] [results-file]
# (defaults build/tra-bench and build/tra-bench/scaling.jsonl); REPS=3 by default.
# SPDX-License-Identifier: BSL-1.0
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build/tra-bench}"
out="${2:-$build/scaling.jsonl}"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-g++}" >/dev/null
ninja -C "$build" -j1 bench.tra.mpi_sparse_scaling
flags=""
# Open MPI: root, more ranks than free cores, no busy polling on a shared machine, and no binding
# (bound to one core, a rank of a 1- or 2-rank job shares it with whatever else runs there while
# the other core may be idle: 3x slower on a loaded machine)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  flags="--oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1 --bind-to none"
fi
: >"$out"
for mode in "" --weak; do
  for n in 1 2 3 4; do
    mpirun $flags -np "$n" "$build/mpi_sparse_scaling" --reps "${REPS:-3}" $mode | tee -a "$out"
  done
done
python3 "$here/project_scaling.py" "$out"
