#!/usr/bin/env python3
# Generates single_include/loom/loom.hpp from include/loom/loom.hpp (MP11's manner).
# SPDX-License-Identifier: BSL-1.0
#
# Each `#include <loom/...>` (or "loom/...") is replaced by that header's text the first time it is
# met, depth-first; later ones are dropped. Boost and std includes are left alone. The output is a
# pure function of include/: no date and no commit, so the CI check can compare it byte for byte.
#
# usage: python3 tools/amalgamate.py [OUTPUT]   (default: single_include/loom/loom.hpp)
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "include"
LOOM_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](loom/[^>"]+)[>"]')
# `__has_include(<loom/x.hpp>)` would ask the user's include path, where only the single header is:
# it is decided here instead, from include/, so an optional part is inlined or left out as a whole.
HAS_INCLUDE = re.compile(r'__has_include\s*\(\s*[<"](loom/[^>"]+)[>"]\s*\)')


def has_include(m):
    found = (INCLUDE / m.group(1)).is_file()
    return f"{int(found)} /* {m.group(0)} */"


def version():
    text = (INCLUDE / "loom" / "version.hpp").read_text(encoding="utf-8")
    parts = [re.search(rf"#\s*define\s+LOOM_VERSION_{p}\s+(\d+)", text)
             for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        sys.exit("amalgamate.py: cannot read LOOM_VERSION_MAJOR/MINOR/PATCH from include/loom/version.hpp")
    return ".".join(m.group(1) for m in parts)


IF = re.compile(r"^\s*#\s*if")
ENDIF = re.compile(r"^\s*#\s*endif")


def inline(name, seen, out, conditional=False):
    """Appends the lines of <name> to out, inlining loom headers not yet in seen.

    A header included under a preprocessor condition (other than its includer's include guard) is
    inlined there, but not marked as seen: it may be left out by that condition, so a later
    unconditional include inlines it again (its include guard keeps one definition)."""
    if not conditional:
        seen.add(name)
    path = INCLUDE / name
    out.append(f"// ---- begin <{name}>\n")
    depth = 0  # 1 inside the include guard
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        line = HAS_INCLUDE.sub(has_include, line)
        if IF.match(line):
            depth += 1
        elif ENDIF.match(line):
            depth -= 1
        m = LOOM_INCLUDE.match(line)
        if not m or not (INCLUDE / m.group(1)).is_file():  # a missing one is left for the compiler
            out.append(line)
        elif m.group(1) not in seen:
            if conditional or depth > 1:
                inline(m.group(1), set(seen), out, True)
            else:
                inline(m.group(1), seen, out)
    if out[-1] and not out[-1].endswith("\n"):
        out[-1] += "\n"
    out.append(f"// ---- end <{name}>\n")


def main():
    default = ROOT / "single_include" / "loom" / "loom.hpp"
    target = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
    out = [
        "// loom single header: everything <loom/loom.hpp> includes, in one file. Do not edit:\n",
        "// generated from include/ by tools/amalgamate.py.\n",
        "// SPDX-License-Identifier: BSL-1.0\n",
        f"// loom version {version()}\n",
        "// Needs Boost.Hana and Boost.MP11 (Boost >= 1.74) on the include path, and C++20.\n",
        "#define LOOM_SINGLE_INCLUDE 1\n",
    ]
    inline("loom/loom.hpp", set(), out)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(out))


if __name__ == "__main__":
    main()
