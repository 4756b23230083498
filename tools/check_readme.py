#!/usr/bin/env python3
"""Fails when README.md's first C++ block differs from examples/quickstart.cpp (STYLE H18)."""
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
