#!/usr/bin/env python3
"""Checks README.md's code against compiled sources (STYLE H18).

The first C++ block must equal examples/quickstart.cpp. A C++ block right after the comment
`<!-- excerpt of PATH -->` must be a run of consecutive lines of PATH, all indented alike (so it is
compiled and run where PATH is: examples/benchmarking/main.cpp for the bench.hpp block)."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
example = (root / "examples" / "quickstart.cpp").read_text()
match = re.search(r"```cpp\n(.*?)```", readme, re.S)
if not match or match.group(1) != example:
    sys.exit("README.md's first code block is out of sync with examples/quickstart.cpp")
print("README.md quick start block matches examples/quickstart.cpp")


def is_excerpt(block, source):
    """Whether the lines of block are consecutive lines of source, under one common indentation."""
    want = block.splitlines()
    have = source.splitlines()
    for start in range(len(have) - len(want) + 1):
        first = have[start]
        indent = first[: len(first) - len(first.lstrip(" "))]
        if all(have[start + k] == (indent + w if w else "") for k, w in enumerate(want)):
            return True
    return False


for path, block in re.findall(r"<!-- excerpt of (\S+) -->\s*```cpp\n(.*?)```", readme, re.S):
    source = root / path
    if not source.is_file():
        sys.exit(f"README.md quotes {path}, which does not exist")
    if not is_excerpt(block, source.read_text()):
        sys.exit(f"README.md's excerpt of {path} is out of sync with that file")
    print(f"README.md excerpt matches {path}")
