#!/usr/bin/env python3
# Compile time and peak memory of the rewrite engine as expressions grow: the sum-product normal
# form of sum((X - U V^T - ... )^2) with N low-rank terms ((N + 1)^2 terms after distribution), from
# benchmarks/compile_time/compile.rewrite.normal_form.cpp.in; prints a Markdown table.
# usage: python3 benchmarks/la/compile_rewrite.py [--max N] [--compilers g++,clang++-14]
# SPDX-License-Identifier: BSL-1.0
import argparse
import pathlib
import re
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
TEMPLATE = ROOT / "benchmarks/compile_time/compile.rewrite.normal_form.cpp.in"


def measure(compiler, source):
    with tempfile.TemporaryDirectory() as work:
        src = pathlib.Path(work) / "tu.cpp"
        src.write_text(source)
        start = time.monotonic()
        run = subprocess.run(["/usr/bin/time", "-v", compiler, "-std=c++20", "-O1", "-c", str(src),
                              "-I", str(ROOT / "include"), "-o", str(pathlib.Path(work) / "tu.o")],
                             capture_output=True, text=True)
        wall = time.monotonic() - start
        if run.returncode != 0:
            raise SystemExit(run.stderr[-2000:])
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))
        user = float(re.search(r"User time \(seconds\): ([\d.]+)", run.stderr).group(1))
        return wall, user, rss / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max", type=int, default=4)
    parser.add_argument("--compilers", default="g++,clang++-14")
    args = parser.parse_args()
    template = TEMPLATE.read_text()
    print("| compiler | N | terms | wall s | user s | peak MB |")
    print("|---|---|---|---|---|---|")
    for compiler in args.compilers.split(","):
        for n in range(1, args.max + 1):
            terms = " ".join("- u * loom::la::transpose(v)" for _ in range(n))
            wall, user, mb = measure(compiler, template.replace("@N@", str(n)).replace("@TERMS@", terms))
            print(f"| {compiler} | {n} | {(n + 1) ** 2} | {wall:.2f} | {user:.2f} | {mb:.0f} |", flush=True)


if __name__ == "__main__":
    main()
