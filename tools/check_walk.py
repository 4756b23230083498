#!/usr/bin/env python3
# Checks the walk of one assignment that docs/architecture.md lists between "<!-- walk: begin -->"
# and "<!-- walk: end -->": every function exists in the header named, calls the next function of
# the spine and each side call listed on its line, and the spine has at most MAX_SPINE calls. A
# new hop between the user's line and the loops makes this fail until the walk is shortened or
# the page is updated. SPDX-License-Identifier: BSL-1.0
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
MAX_SPINE = 10
LINE = re.compile(r"^\d+\. `([^`]+)` in `([^`]+)`(?:; side: (.*))?$")


def definitions(text, name):
    """The bodies of every definition of `name` (a function, a member, an operator) in text."""
    bodies = []
    for m in re.finditer(r"(?<![\w.>])" + re.escape(name) + r"\s*\(", text):
        i, depth = m.end() - 1, 0
        while i < len(text):  # the parameter list, then anything up to '{' or ';' at depth 0
            c = text[i]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif depth == 0 and c in "{;":
                break
            i += 1
        if i >= len(text) or text[i] == ";":
            continue
        start, depth = i, 0
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    bodies.append(text[start:i + 1])
                    break
            i += 1
    return bodies


def calls(body, name):
    return re.search(r"(?<![\w])" + re.escape(name) + r"\s*[(<]", body) is not None


def main():
    page = PAGE.read_text()
    try:
        block = page.split("<!-- walk: begin -->")[1].split("<!-- walk: end -->")[0]
    except IndexError:
        sys.exit(f"check_walk: {PAGE.name} has no walk block")
    steps = []
    for line in block.strip().splitlines():
        m = LINE.match(line.strip())
        if not m:
            sys.exit(f"check_walk: cannot read the walk line: {line!r}")
        side = [s.strip().strip("`") for s in (m.group(3) or "").split(",") if s.strip()]
        steps.append((m.group(1), m.group(2), side))
    errors = []
    if len(steps) > MAX_SPINE:
        errors.append(f"the spine has {len(steps)} calls, more than {MAX_SPINE}")
    for n, (name, path, side) in enumerate(steps):
        file = ROOT / path
        if not file.exists():
            errors.append(f"{path} does not exist")
            continue
        bodies = definitions(file.read_text(), name)
        if not bodies:
            errors.append(f"no definition of {name} in {path}")
            continue
        wanted = side + ([steps[n + 1][0]] if n + 1 < len(steps) else [])
        if not any(all(calls(b, w) for w in wanted) for b in bodies):
            missing = [w for w in wanted if not any(calls(b, w) for b in bodies)]
            errors.append(f"{name} ({path}) does not call {', '.join(missing) or 'all of ' + ', '.join(wanted)}")
    if errors:
        for e in errors:
            print(f"check_walk: {e}", file=sys.stderr)
        sys.exit(1)
    sides = sum(len(s) for _, _, s in steps)
    print(f"check_walk: {len(steps)} calls on the spine (at most {MAX_SPINE}), {sides} side calls")


if __name__ == "__main__":
    main()
