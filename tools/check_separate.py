#!/usr/bin/env python3
# Checks the headers' separate-compilation blocks (docs/build-cost.md): in every header that uses
# LOOM_DECL, each function declared with it outside the `#if LOOM_HEADER_ONLY` block is defined
# once inside it with LOOM_DEF (the counts match; LOOM_INLINE, for destructors, appears once on
# each side), no LOOM_DEF is outside the block and no LOOM_DECL inside it, the header includes
# <loom/core/config.hpp> (where the macros live), and src/runtime.cpp reaches the header through
# its includes, so that loom::runtime defines what the header declares. Run by tools/test.sh, so
# by CI.
# SPDX-License-Identifier: BSL-1.0
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"
LOOM_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](loom/[^>"]+)[>"]', re.M)
BLOCK = re.compile(r"^#if LOOM_HEADER_ONLY\n(.*?)^#endif  // LOOM_HEADER_ONLY$", re.M | re.S)
DECL = re.compile(r"\bLOOM_(?:DECL|INLINE)\b")
DEF = re.compile(r"\bLOOM_(?:DEF|INLINE)\b")
MISPLACED_OUT = re.compile(r"\bLOOM_DEF\b")
MISPLACED_IN = re.compile(r"\bLOOM_DECL\b")


def reachable(start):
    seen, todo = set(), [start]
    while todo:
        path = todo.pop()
        for name in LOOM_INCLUDE.findall(path.read_text(encoding="utf-8")):
            if name not in seen and (INCLUDE / name).is_file():
                seen.add(name)
                todo.append(INCLUDE / name)
    return seen


def main():
    runtime = reachable(ROOT / "src" / "runtime.cpp")
    errors, headers, functions = [], 0, 0
    for path in sorted(INCLUDE.rglob("*.hpp")):
        name = path.relative_to(INCLUDE).as_posix()
        if name == "loom/core/config.hpp":
            continue
        text = path.read_text(encoding="utf-8")
        blocks = BLOCK.findall(text)
        rest = BLOCK.sub("", text)
        outside = DECL.findall(rest)
        inside = sum(len(DEF.findall(b)) for b in blocks)
        if not outside and not inside:
            continue
        headers += 1
        functions += inside
        if len(blocks) != 1:
            errors.append(f"{name}: {len(blocks)} '#if LOOM_HEADER_ONLY' blocks (one expected, "
                          "closed by '#endif  // LOOM_HEADER_ONLY')")
        if len(outside) != inside:
            errors.append(f"{name}: {len(outside)} LOOM_DECL declarations but {inside} "
                          "LOOM_DEF definitions in its LOOM_HEADER_ONLY block")
        if MISPLACED_OUT.search(rest):
            errors.append(f"{name}: LOOM_DEF outside its LOOM_HEADER_ONLY block (declare with "
                          "LOOM_DECL, define in the block with LOOM_DEF)")
        if any(MISPLACED_IN.search(b) for b in blocks):
            errors.append(f"{name}: LOOM_DECL inside its LOOM_HEADER_ONLY block (a definition "
                          "there takes LOOM_DEF: a header-only template's default argument is "
                          "given once, on the declaration)")
        if "#include <loom/core/config.hpp>" not in text:
            errors.append(f"{name}: uses LOOM_DECL without #include <loom/core/config.hpp>")
        if name not in runtime:
            errors.append(f"{name}: not reached from src/runtime.cpp, so loom::runtime would not "
                          "define its functions")
    for e in errors:
        print(f"error: {e}", file=sys.stderr)
    if errors:
        return 1
    print(f"separate compilation: {functions} functions in {headers} headers, each declared once "
          "and defined once, all reached by src/runtime.cpp")
    return 0


if __name__ == "__main__":
    sys.exit(main())
