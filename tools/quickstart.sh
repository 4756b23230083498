#!/usr/bin/env bash
# The README's first command: installs what is missing (Debian/Ubuntu), then builds and runs
# examples/quickstart.cpp, the README's first code block (STYLE.md H18).
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/quickstart.sh     (as root, or with sudo, when a package must be installed)
set -euo pipefail
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
./build/quickstart/examples/example.quickstart
