#!/usr/bin/env bash
# Builds and runs the tra benchmarks: tile matmul vs Eigen, then the distributed matmul on 1 and
# 2 ranks, then one larger product at 1, 2 and 4 ranks (strong scaling). Usage: benchmarks/tra/run.sh [build-dir]   (default build/tra-bench)
# SPDX-License-Identifier: BSL-1.0
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build/tra-bench}"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-g++}" >/dev/null
ninja -C "$build" -j1
"$build/tile_matmul"
if [ -x "$build/mpi_matmul" ]; then
  flags=""
  # Open MPI: root, more ranks than free cores, and no busy polling on a shared machine
  if mpirun --version 2>&1 | grep -q "Open MPI"; then
    flags="--oversubscribe --allow-run-as-root --mca mpi_yield_when_idle 1"
  fi
  for n in 1 2; do
    echo; echo "#### mpirun -np $n"
    mpirun $flags -np "$n" "$build/mpi_matmul" "${REPS:-5}"
  done
  # strong scaling: one product (8 x 8 tiles of 256^2, 17 GFLOP) at 1, 2 and 4 ranks, one loom
  # thread per rank (4 ranks oversubscribe a 2-core machine)
  echo; echo "#### strong scaling"
  for n in 1 2 4; do
    mpirun $flags -np "$n" "$build/mpi_matmul" --scaling "${REPS:-5}" "${BLOCKS:-8}"
  done
else
  echo "MPI not found: distributed benchmarks skipped"
fi
