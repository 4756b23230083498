#!/usr/bin/env bash
# Checks that every C++ source of the repository is formatted by clang-format-16 with the root
# .clang-format; run by tools/test.sh, so by CI.
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/check_format.sh [--fix]
#   Without arguments, lists the files clang-format would change and fails if there are any.
#   With --fix, formats them in place. single_include/ is generated (tools/amalgamate.py) and
#   left out. CLANG_FORMAT names another binary; only 16 is pinned: 14 breaks requires-clauses
#   and lacks RequiresClausePosition, and versions format differently.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  *)
    echo "usage: bash tools/check_format.sh [--fix]" >&2
    exit 2
    ;;
esac

format=${CLANG_FORMAT:-clang-format-16}
if ! command -v "$format" > /dev/null 2>&1; then
  echo "tools/check_format.sh: $format is not installed (Debian: apt-get install clang-format-16)" >&2
  exit 1
fi

# the tracked sources in a clone; every source below the usual folders otherwise (an archive)
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.hpp' '*.cpp' '*.h' | grep -v '^single_include/')
else
  mapfile -t files < <(find include tests examples benchmarks -name '*.hpp' -o -name '*.cpp' -o -name '*.h' | sort)
fi

if [ "$fix" = 1 ]; then
  "$format" -i "${files[@]}"
  echo "formatted ${#files[@]} files with $format"
  exit 0
fi

# one process for every file (one per file took 25 s); each difference is reported as
# `<file>:<line>:<column>: error: code should be clang-formatted`
report=$("$format" --dry-run -Werror "${files[@]}" 2>&1 || true)
mapfile -t unformatted < <(printf '%s\n' "$report" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u)
if [ ${#unformatted[@]} -eq 0 ] && [ -n "$report" ]; then
  printf '%s\n' "$report" >&2  # not a formatting difference: say what clang-format said
  exit 1
fi
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "tools/check_format.sh: ${#unformatted[@]} of ${#files[@]} files are not formatted by $format:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  echo "  fix with: bash tools/check_format.sh --fix" >&2
  exit 1
fi
echo "format: ${#files[@]} files formatted by $format"
