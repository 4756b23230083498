#!/usr/bin/env python3
# Compile-time benchmark (DESIGN.md §10, STYLE.md H19): generates translation units from the
# *.cpp.in templates beside this file, compiles each with every compiler found (g++ and clang++,
# -O2 -std=c++20 -c), and records CPU and wall time, peak memory (GNU time's "Maximum resident set
# size") and object size as JSON. tools/bench_report.py turns the JSON into a table and a plot.
# Where Eigen is installed, Eigen's sparse module and its sparse product are compiled in the same
# run, and loom's include and SpGEMM units are printed beside them with the ratio
# (docs/build-cost.md, "loom beside Eigen").
# SPDX-License-Identifier: BSL-1.0
#
# usage: python3 benchmarks/compile_time/measure.py [--out FILE] [--work DIR] [--repeat R]
#                                                   [--max-operands N] [--compilers g++,clang++]
#                                                   [--loom-include DIR] [--label NAME]
#                                                   [--no-separate] [--only REGEX]
#                                                   [--eigen-include DIR]
#
# loom beside Eigen alone, both compilers, min of 3 CPU times each:
#   python3 benchmarks/compile_time/measure.py --only 'include$|spgemm(_csr)?$' --no-separate
#
# Before and after: measure an older tree's include/ with --loom-include and --out
# benchmarks/results/compile_time_before.json; the report then compares the two.
#
# Each TU is compiled R times (default 3; once when the first compile takes more than --long
# seconds, except the units compared with Eigen, always R times); the JSON keeps every run and the
# report uses the minimum CPU time, user + system (compile time only grows with machine noise, so
# the minimum is the least disturbed run) and the maximum peak memory.
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from bench_report import cpu_model  # noqa: E402  (the report's reading of /proc/cpuinfo)
GNU_TIME = "/usr/bin/time"

# Matrix formats of the growing expressions, cycled in this order; each is (type, short name).
FORMATS = [("loom::csr", "csr"), ("loom::dcsr", "dcsr"), ("loom::dense_matrix", "dense"),
           ("loom::csc", "csc")]


# the sums of products measured: growth should be linear, k = 16 under 30 s
TERM_COUNTS = (1, 2, 4, 8, 12, 16)


def expression_parts(n):
    """Parameters and the product / sum of an expression with n tensor operands."""
    matrices = max(1, n - 1)
    params = [f"const loom::tensor<double, {FORMATS[m % len(FORMATS)][0]}>& M{m + 1}"
              for m in range(matrices)]
    accesses = [f"M{m + 1}(i, j)" for m in range(matrices)]
    if n == 1:
        return params, accesses[0], accesses[0], [FORMATS[0][1]]
    params.append("const loom::tensor<double, loom::dense_vector>& x")
    product = " * ".join(accesses + ["x(j)"])
    total = " + ".join(accesses)
    summed = f"({total}) * x(j)" if matrices > 1 else f"{total} * x(j)"
    names = [FORMATS[m % len(FORMATS)][1] for m in range(matrices)] + ["dense_vector"]
    return params, product, summed, names


# loom's units and Eigen's that do the same, printed side by side with the ratio
EIGEN_PAIRS = [("compile.baseline.include", "compile.eigen.include"),
               ("compile.kernels.include", "compile.eigen.include"),
               ("compile.kernel.spgemm", "compile.eigen.spgemm"),
               ("compile.kernel.spgemm_csr", "compile.eigen.spgemm")]
COMPARED = {name for pair in EIGEN_PAIRS for name in pair}


def find_eigen(given):
    """The folder that holds Eigen/Sparse (the given one, or Debian's), or None."""
    for folder in ([given] if given else ["/usr/include/eigen3", "/usr/local/include/eigen3"]):
        if (pathlib.Path(folder) / "Eigen" / "Sparse").is_file():
            return folder
    return None


def translation_units(max_operands, separate=True, eigen=None):
    """(name, family, operands, formats, source text, extra flags) of every TU to measure."""
    units = []
    # the one-kernel units (operands per kernel): the quickstart's SpMV and SpGEMM, then
    # SDDMM, MTTKRP and the triangle query; SpGEMM into csr is the one compared with Eigen's
    operands = {"include": 0, "spmv": 2, "spgemm": 2, "sddmm": 3, "mttkrp": 3, "triangle": 1,
                "spgemm_csr": 2}
    sources = [(stem, (HERE / f"{stem}.cpp.in").read_text(encoding="utf-8"))
               for stem in ["compile.baseline.include", "compile.kernels.include"] +
               [f"compile.kernel.{k}" for k in operands if k != "include"]]
    for stem, text in sources:
        kernel = stem.rsplit(".", 1)[1]
        units.append((stem, "baseline" if kernel == "include" else "kernel", operands[kernel],
                      [], text, []))
    # the same in separate compilation (docs/build-cost.md): the headers declare the
    # non-template functions that loom::runtime defines, compiled once (not measured here)
    if separate:
        for stem, text in sources:
            units.append((f"{stem}.separate", "separate", 0, [], text,
                          ["-DLOOM_SEPARATE_COMPILATION"]))
    # Eigen's headers as system headers: their own warnings are not the measured code's
    if eigen:
        for stem in ("compile.eigen.include", "compile.eigen.spgemm"):
            text = (HERE / f"{stem}.cpp.in").read_text(encoding="utf-8")
            units.append((stem, "eigen", 0, [], text, ["-isystem", eigen]))
    for family in ("product", "sum"):
        template = (HERE / f"compile.expr.{family}.cpp.in").read_text(encoding="utf-8")
        for n in range(1, max_operands + 1):
            params, product, summed, names = expression_parts(n)
            text = (template.replace("@N@", str(n))
                    .replace("@PARAMETERS@", ",\n            ".join(params))
                    .replace("@PRODUCT@", product)
                    .replace("@SUM@", summed))
            units.append((f"compile.expr.{family}.{n}", family, n, names, text, []))
    template = (HERE / "compile.expr.terms.cpp.in").read_text(encoding="utf-8")
    for k in TERM_COUNTS:
        params = [f"const loom::tensor<double, loom::csr>& A{t + 1}, "
                  f"const loom::tensor<double, loom::csr>& B{t + 1}" for t in range(k)]
        terms = " + ".join(f"A{t + 1}(i, j) * B{t + 1}(i, j)" for t in range(k))
        text = (template.replace("@K@", str(k))
                .replace("@PARAMETERS@", ",\n            ".join(params))
                .replace("@TERMS@", terms))
        units.append((f"compile.expr.terms.{k}", "terms", k, ["csr"], text, []))
    return units


def compiler_version(cxx):
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0].strip() if out else cxx


def parse_gnu_time(text):
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    user = re.search(r"User time \(seconds\): ([\d.]+)", text)
    sys_ = re.search(r"System time \(seconds\): ([\d.]+)", text)
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return {"wall_s": seconds, "user_s": float(user.group(1)), "sys_s": float(sys_.group(1)),
            "peak_rss_kb": int(rss.group(1))}


def compile_once(cxx, source, obj, include_dirs, flags=()):
    cmd = [GNU_TIME, "-v", cxx, "-std=c++20", "-O2", "-DNDEBUG", "-Wall", "-Wextra", "-Werror"]
    cmd += list(flags)
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += ["-c", str(source), "-o", str(obj)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"measure.py: {cxx} failed on {source}")
    run = parse_gnu_time(proc.stderr)
    run["object_bytes"] = obj.stat().st_size
    return run


def cpu_seconds(run):
    return run["user_s"] + run["sys_s"]


def eigen_table(measured, compilers):
    """Markdown lines: loom's units beside Eigen's, min CPU time of each and the ratio."""
    lines = ["| loom | Eigen | compiler | loom CPU s | Eigen CPU s | ratio |",
             "|---|---|---|---:|---:|---:|"]
    for loom_unit, eigen_unit in EIGEN_PAIRS:
        for cxx in compilers:
            a, b = measured.get((loom_unit, cxx)), measured.get((eigen_unit, cxx))
            if a is not None and b is not None:
                lines.append(f"| `{loom_unit}` | `{eigen_unit}` | {cxx} | {a:.2f} | {b:.2f} | "
                             f"{a / b:.2f}× |")
    return lines if len(lines) > 2 else []


def load_average():
    try:
        return [float(x) for x in pathlib.Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "compile_time.json"))
    ap.add_argument("--work", default=str(ROOT / "build" / "bench" / "compile_time"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--long", type=float, default=10.0,
                    help="a TU whose first compile takes longer (seconds) is compiled once")
    ap.add_argument("--max-operands", type=int, default=8)
    ap.add_argument("--compilers", default="g++,clang++")
    ap.add_argument("--loom-include", default=str(ROOT / "include"),
                    help="loom's include/ (default: this checkout's; run_benchmarks.sh --committed "
                         "passes a snapshot's)")
    ap.add_argument("--label", default=None,
                    help="names the measured tree in the report (e.g. a commit)")
    ap.add_argument("--no-separate", action="store_true",
                    help="skip the separate-compilation units (a tree from before loom::runtime)")
    ap.add_argument("--include", action="append", default=[],
                    help="extra include folder (loom's include/ is always first)")
    ap.add_argument("--only", default=None,
                    help="measure only the units whose name matches this regular expression")
    ap.add_argument("--eigen-include", default=None,
                    help="the folder holding Eigen/Sparse (default: Debian's /usr/include/eigen3); "
                         "without Eigen its units are skipped")
    args = ap.parse_args()

    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit("measure.py: /usr/bin/time (GNU time) is missing; apt-get install time")
    compilers = [c for c in args.compilers.split(",") if shutil.which(c)]
    if not compilers:
        raise SystemExit(f"measure.py: none of {args.compilers} is installed")
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    include_dirs = [args.loom_include] + args.include

    eigen = find_eigen(args.eigen_include)
    if eigen is None:
        print("measure.py: Eigen not found (apt-get install libeigen3-dev): its units are skipped",
              flush=True)
    units = translation_units(args.max_operands, not args.no_separate, eigen)
    if args.only:
        units = [u for u in units if re.search(args.only, u[0])]
    results = {
        "context": {
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(),
            "cpu": cpu_model(),
            "flags": "-std=c++20 -O2 -DNDEBUG -Wall -Wextra -Werror -c",
            "eigen": eigen,
            "repeat": args.repeat,
            "long_s": args.long,
            "compilers": {c: compiler_version(c) for c in compilers},
            "load_avg_before": load_average(),
            "label": args.label,
        },
        "units": [],
    }
    measured = {}  # (name, compiler) -> min CPU seconds
    for name, family, operands, formats, text, flags in units:
        source = work / f"{name}.cpp"
        source.write_text(text, encoding="utf-8")
        for cxx in compilers:
            runs = [compile_once(cxx, source, work / f"{name}.{cxx}.o", include_dirs, flags)]
            # a slow compile is measured once: its noise is small relative to its length (but
            # the units compared with Eigen, R times: the ratio is the result)
            while len(runs) < args.repeat and (runs[0]["wall_s"] < args.long or
                                               name in COMPARED):
                runs.append(compile_once(cxx, source, work / f"{name}.{cxx}.o", include_dirs,
                                         flags))
            best = min(cpu_seconds(r) for r in runs)
            measured[(name, cxx)] = best
            peak = max(r["peak_rss_kb"] for r in runs)
            print(f"{name:34s} {cxx:8s} {best:6.2f} s CPU {min(r['wall_s'] for r in runs):6.2f} s "
                  f"wall {peak / 1024:7.0f} MB {runs[-1]['object_bytes'] / 1024:7.0f} KB",
                  flush=True)
            results["units"].append({
                "name": name, "family": family, "operands": operands, "formats": formats,
                "compiler": cxx, "flags": flags, "runs": runs,
            })
    results["context"]["load_avg_after"] = load_average()
    table = eigen_table(measured, compilers)
    if table:
        results["eigen_comparison"] = table
        print(f"\nloom beside Eigen (CPU time, user + system, min of {args.repeat}):")
        print("\n".join(table))
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
