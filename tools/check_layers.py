#!/usr/bin/env python3
"""Fails when a header includes a folder further down loom's pipeline (docs/architecture.md).

A folder may include only folders at its own tier or before it:

    core -> expr -> format -> rewrite -> plan -> stream -> parallel -> optimize -> exec
         -> io, relational, la, tra, interop -> sql

(the umbrella headers include/loom/*.hpp may include anything), and within optimize/,
statistics/ never includes choice/. An upward include tolerated
while code moves would be listed in KNOWN (empty today); the check fails on any other, and on a
KNOWN entry that no longer occurs (so the list only shrinks).

usage: python3 tools/check_layers.py
SPDX-License-Identifier: BSL-1.0
"""
import pathlib
import re
import sys

TIERS = [
    ["core"],
    ["expr"],
    ["format"],
    ["rewrite"],
    ["plan"],
    ["stream"],
    ["parallel"],
    ["optimize"],
    ["exec"],
    ["io", "relational", "la", "tra", "interop"],
    ["sql"],  # SQL text compiled into loops over relational tables (exec below it)
]
TIER = {folder: n for n, folders in enumerate(TIERS) for folder in folders}

# (including header, included header): upward includes tolerated while code moves; none today
# An entry must name a real include, or the check fails.
KNOWN: set = set()

# Sub-folders with an order of their own: (folder, lower, higher): lower/ never includes higher/.
SUBTIERS = [("optimize", "statistics", "choice")]

INCLUDE = re.compile(r'^\s*#\s*include\s*<loom/([a-z_]+)/([^>]+)>', re.M)


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent / "include" / "loom"
    found, errors = set(), []
    for header in sorted(root.rglob("*.hpp")):
        rel = header.relative_to(root)
        if len(rel.parts) < 2:
            continue  # an umbrella header
        folder = rel.parts[0]
        if folder not in TIER:
            errors.append(f"include/loom/{rel}: folder {folder}/ has no tier in tools/check_layers.py")
            continue
        for match in INCLUDE.finditer(header.read_text()):
            target_folder, rest = match.group(1), match.group(2)
            if target_folder not in TIER:
                errors.append(f"include/loom/{rel}: includes <loom/{target_folder}/{rest}>, "
                              f"a folder with no tier")
                continue
            for parent, lower, higher in SUBTIERS:
                if (folder == parent == target_folder and len(rel.parts) > 2
                        and rel.parts[1] == lower and rest.startswith(higher + "/")):
                    errors.append(f"include/loom/{rel}: includes <loom/{target_folder}/{rest}>: "
                                  f"{parent}/{lower}/ may not include {parent}/{higher}/")
            if TIER[target_folder] <= TIER[folder]:
                continue
            pair = (rel.as_posix(), f"{target_folder}/{rest}")
            if pair in KNOWN:
                found.add(pair)
            else:
                errors.append(f"include/loom/{rel}: includes <loom/{target_folder}/{rest}>, "
                              f"which is further down the pipeline ({folder}/ may include "
                              f"only {', '.join(f for t in TIERS[:TIER[folder] + 1] for f in t)})")
    for pair in sorted(KNOWN - found):
        errors.append(f"tools/check_layers.py: KNOWN lists {pair[0]} -> {pair[1]}, which no longer "
                      f"occurs: remove it")
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"{len(errors)} layering error(s); the tiers are in docs/architecture.md",
              file=sys.stderr)
        return 1
    print(f"layering: every include goes down the pipeline ({len(KNOWN)} known exceptions left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
