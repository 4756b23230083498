#!/usr/bin/env python3
"""Checks that the C++ in README.md and docs/*.md is code that CI compiles and runs.

README.md's first C++ block must equal examples/hello.cpp (CI builds and runs it, also as an
out-of-tree consumer). Every other C++ block (```cpp or ```c++) of README.md and docs/*.md must
come right after one of two comments:

- `<!-- excerpt of PATH -->`: the block is a run of consecutive lines of PATH, all indented alike,
  and PATH is a source the build compiles (tests/, examples/, benchmarks/, or a header under
  include/loom/). Doc snippets with no other home live in tests/docs/snippets.cpp, one TEST_CASE
  each, which also checks what they compute.
- `<!-- not compiled: REASON -->`: kept for the few blocks that cannot be compiled where they
  stand (e.g. two files of a user's project); REASON must say why.

Exits non-zero with one line per problem."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
compiled_roots = ("tests/", "examples/", "benchmarks/", "include/loom/")
block_re = re.compile(r"^(?P<indent>[ \t]*)```(?:cpp|c\+\+)[ \t]*\n(?P<body>.*?)^(?P=indent)```",
                      re.S | re.M)
marker_re = re.compile(r"<!--\s*(excerpt of (?P<path>\S+)|not compiled:\s*(?P<reason>[^>]*?))\s*-->\s*$")


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


def dedent(body, indent):
    """The block's lines without the indentation of its fence (a block inside a list item)."""
    return "".join(line[len(indent):] if line.startswith(indent) else line
                   for line in body.splitlines(keepends=True))


problems = []
checked = 0
pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
for page in pages:
    name = page.relative_to(root).as_posix()
    text = page.read_text()
    for number, match in enumerate(block_re.finditer(text)):
        line = text.count("\n", 0, match.start()) + 1
        where = f"{name}:{line}"
        body = dedent(match.group("body"), match.group("indent"))
        if name == "README.md" and number == 0:
            if body != (root / "examples" / "hello.cpp").read_text():
                problems.append(f"{where}: README.md's first C++ block is not examples/hello.cpp")
            checked += 1
            continue
        before = text[: match.start()].rstrip().splitlines()
        marker = marker_re.search(before[-1]) if before else None
        if not marker:
            problems.append(f"{where}: a C++ block with neither <!-- excerpt of PATH --> nor "
                            "<!-- not compiled: REASON --> right before it")
            continue
        checked += 1
        if marker.group("reason") is not None:
            if not marker.group("reason").strip():
                problems.append(f"{where}: <!-- not compiled: --> gives no reason")
            continue
        path = marker.group("path")
        source = root / path
        if not path.startswith(compiled_roots):
            problems.append(f"{where}: quotes {path}, which the build does not compile "
                            f"(expected a file under {', '.join(compiled_roots)})")
        elif not source.is_file():
            problems.append(f"{where}: quotes {path}, which does not exist")
        elif not is_excerpt(body, source.read_text()):
            problems.append(f"{where}: the excerpt of {path} is out of sync with that file")

for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(f"check_readme: {len(problems)} problem(s) in the C++ blocks of README.md and docs/")
print(f"check_readme: {checked} C++ blocks of README.md and docs/*.md checked against their sources")
