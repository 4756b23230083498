#!/bin/sh
# A compiler and linker launcher for targets that are compiled only to check them (header
# self-containment, the benchmarks in CI): every diagnostic, no code. At -O0, code generation is
# about two thirds of a loom TU's compile time under g++ (docs/testing.md, "Why these flags").
# SPDX-License-Identifier: BSL-1.0
#
# usage (set by cmake/LoomTesting.cmake's loom_syntax_only):
#   syntax_only.sh compile <compiler> <arguments...>   the compiler with -fsyntax-only (both g++
#                                                      and clang++ still instantiate every
#                                                      template and write the -MD depfile), then
#                                                      an empty object where -o points
#   syntax_only.sh link <linker command...>            the output touched, nothing linked
set -eu
mode=$1
shift
out=
previous=
for argument in "$@"; do
  [ "$previous" = -o ] && out=$argument
  previous=$argument
done
case "$mode" in
  compile)
    "$@" -fsyntax-only
    if [ -n "$out" ]; then
      # a valid (empty) object, so that an archive of such objects still builds
      "$1" -x c++ -c /dev/null -o "$out"
    fi
    ;;
  link)
    [ -n "$out" ] && : > "$out"
    ;;
  *)
    echo "usage: syntax_only.sh compile|link <command...>" >&2
    exit 2
    ;;
esac
