#!/usr/bin/env bash
# The README's first command: installs what is missing (Debian/Ubuntu), then builds and runs
# examples/quickstart.cpp, SpMV and SpGEMM in loom against hand-written loops.
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/quickstart.sh [matrix.mtx]
#   (as root, or with sudo, when a package must be installed). Without an argument it runs on the
#   repository's data/matrices/bcsstk13.mtx; with one, on that Matrix Market file.
set -euo pipefail
matrix=()
if [ $# -gt 1 ]; then
  echo "usage: bash tools/quickstart.sh [matrix.mtx]" >&2
  exit 2
fi
if [ $# -eq 1 ]; then  # absolute before the cd below, so a path relative to the caller works
  case "$1" in
    /*) matrix=("$1") ;;
    *) matrix=("$PWD/$1") ;;
  esac
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=tools/packages.sh
source tools/packages.sh
loom_install_packages cmake ninja-build g++ libboost-dev doctest-dev ccache python3 || exit 1

if [ ! -f examples/quickstart.cpp ]; then
  echo "error: examples/quickstart.cpp is missing" >&2
  exit 1
fi

generator=()
command -v ninja > /dev/null 2>&1 && generator=(-G Ninja)
echo "==> configuring build/quickstart"
cmake -S . -B build/quickstart "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DLOOM_TEST=OFF -DLOOM_EXAMPLES=ON -DLOOM_INSTALL=OFF
echo "==> building example.quickstart"
cmake --build build/quickstart --target example.quickstart -j "$(nproc 2>/dev/null || echo 2)"
echo "==> running build/quickstart/examples/example.quickstart"
./build/quickstart/examples/example.quickstart "${matrix[@]}"
