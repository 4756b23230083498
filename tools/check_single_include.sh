#!/usr/bin/env bash
# Checks that the committed single_include/loom/loom.hpp matches include/.
# SPDX-License-Identifier: BSL-1.0
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

committed=single_include/loom/loom.hpp
fresh=$(mktemp "${TMPDIR:-/tmp}/loom-single-include.XXXXXX")
trap 'rm -f "$fresh" "$fresh.diff"' EXIT

python3 tools/amalgamate.py "$fresh"
if [ ! -f "$committed" ]; then
  echo "error: $committed is missing: run python3 tools/amalgamate.py" >&2
  exit 1
fi
if ! diff -u "$committed" "$fresh" > "$fresh.diff"; then
  head -n 40 "$fresh.diff" >&2
  echo "error: single_include/loom/loom.hpp is stale: run python3 tools/amalgamate.py" >&2
  exit 1
fi
echo "single_include/loom/loom.hpp is up to date"
