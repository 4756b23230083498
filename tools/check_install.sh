#!/usr/bin/env bash
# Installs loom as a user would and builds the README's first example against it three ways.
# SPDX-License-Identifier: BSL-1.0
#
# usage: bash tools/check_install.sh [<revision>] (default HEAD; CI runs it from tools/test.sh)
#   1. a fresh copy of <revision>'s sources (`git archive`: committed files only), in
#      build/check-install/loom;
#   2. `cmake -S <copy> -B <build>` with no options but the generator (the compiler from $CXX),
#      `cmake --build`, which builds the runtime library alone, in Release, and `cmake --install`
#      into build/check-install/prefix;
#   3. examples/hello.cpp built and run through find_package(loom) (tests/cmake/find_package,
#      linked with the installed loom::runtime), through add_subdirectory(<copy>)
#      (tests/cmake/add_subdirectory, which also checks that loom then has no tests, examples,
#      benchmarks or install rules), and with the flags of `pkg-config loom` and `loom-runtime`.
#   4. the same example with loom_precompile_headers(): through find_package(loom) (the default
#      header, <loom/loom.hpp>, with loom::runtime, in a target that also has a C source, which
#      the PCH must leave alone) and through add_subdirectory (HEADER <loom/kernels.hpp>); each
#      build must have made the precompiled header.
#   Every program must print "y = (1, 6, 6)". The consumers compile with -Wall -Wextra and no -O
#   (CMake's default outside loom), the CMake ones through ccache when it is installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

revision=${1:-HEAD}
work=$PWD/build/check-install
src=$work/loom
prefix=$work/prefix
cxx=${CXX:-c++}
generator=()
if command -v ninja > /dev/null 2>&1; then
  generator=(-G Ninja)
fi
launcher=()
if command -v ccache > /dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

fail() {
  echo "check_install: $*" >&2
  exit 1
}

# step <title>: a heading per step, with the seconds since the start.
started=$SECONDS
step() { echo "--- [$((SECONDS - started)) s] $*"; }

step "fresh copy of $revision in $src"
rm -rf "$work"
mkdir -p "$src"
git archive --format=tar "$revision" | tar -x -C "$src"

step "configure, build and install with no options"
cmake -S "$src" -B "$work/build" "${generator[@]}" > "$work/configure.log" \
  || { cat "$work/configure.log"; fail "configuring with no options failed"; }
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$work/build/CMakeCache.txt" \
  || fail "no build type given, but the build type is not Release"
cmake --build "$work/build"
for folder in tests examples benchmarks; do
  [ ! -e "$work/build/$folder" ] || fail "the default build configured loom's $folder"
done
cmake --install "$work/build" --prefix "$prefix" > "$work/install.log"
for file in lib/cmake/loom/loom-config.cmake include/loom/loom.hpp share/doc/loom/LICENSE \
  share/doc/loom/CHANGELOG.md; do
  [ -f "$prefix/$file" ] || fail "the install has no $file"
done
runtime=$(find "$prefix" -name libloom_runtime.a)
pc=$(find "$prefix" -name loom.pc)
[ -n "$runtime" ] || fail "the install has no libloom_runtime.a"
[ -n "$pc" ] || fail "the install has no loom.pc"

# expect <program> <log>: runs a consumer and checks the README's result.
expect() {
  "$1" > "$2" 2>&1 || { cat "$2"; fail "$1 failed"; }
  grep -F 'y = (1, 6, 6)' "$2" || { cat "$2"; fail "$1 did not print y = (1, 6, 6)"; }
}

version=$(sed -n 's/^#define LOOM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
  "$src/include/loom/version.hpp" | paste -sd.)

step "find_package(loom $version) from the prefix, examples/hello.cpp with loom::runtime"
cmake -S "$src/tests/cmake/find_package" -B "$work/find_package" "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" -DLOOM_EXPECTED_VERSION="$version" \
  -DLOOM_CONSUMER_SOURCE="$src/examples/hello.cpp" > "$work/find_package.log"
cmake --build "$work/find_package"
expect "$work/find_package/consumer" "$work/find_package/consumer.out"

step "add_subdirectory(<fresh copy>), examples/hello.cpp with loom::loom"
cmake -S "$src/tests/cmake/add_subdirectory" -B "$work/add_subdirectory" "${generator[@]}" \
  "${launcher[@]}" -DLOOM_SOURCE_DIR="$src" -DLOOM_CONSUMER_SOURCE="$src/examples/hello.cpp" \
  > "$work/add_subdirectory.log"
cmake --build "$work/add_subdirectory"
expect "$work/add_subdirectory/consumer" "$work/add_subdirectory/consumer.out"
# a parent's build and install carry nothing of loom's but what the parent links
[ -z "$(find "$work/add_subdirectory" -name libloom_runtime.a)" ] \
  || fail "add_subdirectory built loom's runtime library, which the consumer does not link"
cmake --install "$work/add_subdirectory" --prefix "$work/parent-prefix" > /dev/null
[ -z "$(find "$work/parent-prefix" -type f 2> /dev/null)" ] \
  || fail "installing a project that adds loom installed loom's files: $(find "$work/parent-prefix" -type f)"

# pch_consumer <folder> <how loom is added> <link target> <loom_precompile_headers arguments>:
# a CMake project that builds examples/hello.cpp (and a C file) with loom's precompiled header.
pch_consumer() {
  mkdir -p "$1"
  cat > "$1/CMakeLists.txt" << EOF
cmake_minimum_required(VERSION 3.20)
project(loom_pch_consumer LANGUAGES C CXX)
$2
add_executable(consumer "$src/examples/hello.cpp" c_part.c)
target_link_libraries(consumer PRIVATE $3)
target_compile_options(consumer PRIVATE -Wall -Wextra)
loom_precompile_headers(consumer $4)
EOF
  printf 'int c_part(void);\nint c_part(void) { return 0; }\n' > "$1/c_part.c"
}

# pch_build <folder> <cmake -D arguments...>: configures, builds, checks the PCH and the output.
pch_build() {
  local folder=$1
  shift
  cmake -S "$folder" -B "$folder/build" "${generator[@]}" "${launcher[@]}" "$@" \
    > "$folder/configure.log" || { cat "$folder/configure.log"; fail "configuring $folder failed"; }
  cmake --build "$folder/build"
  [ -n "$(find "$folder/build" -name 'cmake_pch.hxx.gch' -o -name 'cmake_pch.hxx.pch')" ] \
    || fail "$folder: no precompiled header was built"
  expect "$folder/build/consumer" "$folder/build/consumer.out"
}

step "loom_precompile_headers(): find_package with loom::runtime, add_subdirectory with kernels.hpp"
pch_consumer "$work/pch_find_package" "find_package(loom REQUIRED CONFIG)" loom::runtime ""
pch_build "$work/pch_find_package" -DCMAKE_PREFIX_PATH="$prefix"
pch_consumer "$work/pch_add_subdirectory" "add_subdirectory(\"$src\" loom)" loom::loom \
  "HEADER <loom/kernels.hpp>"
pch_build "$work/pch_add_subdirectory"

step "pkg-config: loom (headers) and loom-runtime (with the library)"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
[ "$(pkg-config --modversion loom)" = "$version" ] || fail "pkg-config's version is not $version"
# the commands of docs/install.md (one compile and link: ccache would not cache it); the
# libraries after the source, which is how a static library is linked
# shellcheck disable=SC2046  # pkg-config's flags are words
"$cxx" -Wall -Wextra "$src/examples/hello.cpp" $(pkg-config --cflags loom) \
  -o "$work/hello_pkg_config"
expect "$work/hello_pkg_config" "$work/hello_pkg_config.out"
# shellcheck disable=SC2046
"$cxx" -Wall -Wextra "$src/examples/hello.cpp" $(pkg-config --cflags --libs loom-runtime) \
  -o "$work/hello_pkg_config_runtime"
expect "$work/hello_pkg_config_runtime" "$work/hello_pkg_config_runtime.out"

step "done: installed from a fresh copy and used three ways, and with the precompiled header"
