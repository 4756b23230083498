#!/usr/bin/env python3
# Build cost of loom's test suite and kernels: compile time and peak compiler memory per
# translation unit, and totals (docs/build-cost.md).
# SPDX-License-Identifier: BSL-1.0
#
# Three sources, combined into one JSON that tools/bench_report.py renders:
#   wrap     a compiler launcher: `-DCMAKE_CXX_COMPILER_LAUNCHER="python3;tools/build_cost.py;wrap;LOG"`
#            runs each compile under GNU time and appends one JSON line per TU to LOG (wall, user,
#            system seconds, peak resident memory, object size). This is the only way to get the
#            compiler's peak memory per TU; it replaces ccache for that build.
#   ninja    the per-output times of ninja's .ninja_log (the latest entry of each output): wall
#            time of every TU of any Ninja build, at no cost, but no memory.
#   collect  merges a wrapped log and/or a .ninja_log of a build directory into
#            benchmarks/results/build_cost_<name>.json.
#
# usage:
#   python3 tools/build_cost.py wrap LOG COMPILER ARGS...          (as a launcher)
#   python3 tools/build_cost.py collect --name tests --build build/h-cost [--log LOG]
#                                       [--out benchmarks/results/build_cost_tests.json]
#   bash tools/build_cost.sh                                       (configures, builds, collects)
import argparse
import datetime
import json
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TIME_FORMAT = "%e %U %S %M"  # wall s, user s, system s, max RSS KiB


def cmd_wrap(argv):
    if len(argv) < 2:
        sys.exit("build_cost.py wrap: usage: wrap LOG COMPILER ARGS...")
    log, cmd = argv[0], argv[1:]
    out = None
    if "-o" in cmd:
        out = cmd[cmd.index("-o") + 1]
    src = next((a for a in reversed(cmd) if re.search(r"\.(cpp|cc|cxx|c)$", a)), None)
    is_compile = "-c" in cmd and src is not None
    if not is_compile or not os.path.exists("/usr/bin/time"):
        os.execvp(cmd[0], cmd)  # links (and anything else) run as they are
    tfile = f"{out or 'a'}.time.{os.getpid()}"
    t0 = time.monotonic()
    rc = subprocess.call(["/usr/bin/time", "-o", tfile, "-f", TIME_FORMAT] + cmd)
    wall = time.monotonic() - t0
    try:
        fields = pathlib.Path(tfile).read_text().split()[-4:]
        os.unlink(tfile)
        _, user, system, rss = float(fields[0]), float(fields[1]), float(fields[2]), int(fields[3])
    except (OSError, ValueError, IndexError):
        user = system = 0.0
        rss = 0
    if rc == 0:
        rec = {"source": os.path.relpath(os.path.abspath(src), os.environ.get("LOOM_BUILD_COST_SRC", ROOT)) if src else None,
               "object": out, "wall_s": round(wall, 3), "user_s": user, "sys_s": system,
               "peak_rss_kb": rss,
               "object_bytes": os.path.getsize(out) if out and os.path.exists(out) else None,
               "compiler": os.path.basename(cmd[0]),
               "flags": [a for a in cmd if re.match(r"-(O\d|g\b|std=|f\w*sanit)", a)],
               "finished": datetime.datetime.now().isoformat(timespec="seconds")}
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")
    sys.exit(rc)


def read_ninja_log(build):
    """{output: seconds} from the latest entry of each output in build/.ninja_log."""
    path = pathlib.Path(build) / ".ninja_log"
    if not path.exists():
        return {}
    times = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 4:
            continue
        start, end, out = int(parts[0]), int(parts[1]), parts[3]
        times[out] = (end - start) / 1000.0  # later entries replace earlier ones
    return times


def target_of(obj):
    """tests/CMakeFiles/tests.core.dir/core/x.cpp.o -> tests.core"""
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", obj or "")
    return m.group(1) if m else None


def cmd_collect(args):
    build = pathlib.Path(args.build)
    units = {}
    if args.log and pathlib.Path(args.log).exists():
        for line in pathlib.Path(args.log).read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            obj = rec["object"]
            rec["target"] = target_of(obj)
            rec["cpu_s"] = round(rec["user_s"] + rec["sys_s"], 2)
            units[obj] = rec  # a rebuilt TU replaces its earlier record
    ninja = read_ninja_log(build)
    # TUs this build did not (yet) compile: ninja times of another build of the same configuration
    for extra in args.extra_ninja_log or []:
        for obj, secs in read_ninja_log(extra).items():
            if obj not in ninja and obj.endswith(".o") and obj.startswith(("tests/", "examples/")):
                ninja[obj] = secs
    for obj, secs in ninja.items():
        if not obj.endswith(".o"):
            continue
        rec = units.setdefault(obj, {"object": obj, "target": target_of(obj),
                                     "source": re.sub(r"^.*\.dir/", "", obj)[:-2]})
        rec["ninja_s"] = secs
    rows = sorted(units.values(), key=lambda r: -(r.get("cpu_s") or r.get("ninja_s") or 0))
    measured = [r for r in rows if "peak_rss_kb" in r]
    targets = {}
    for r in rows:
        t = targets.setdefault(r["target"] or "?", {"units": 0, "cpu_s": 0.0, "wall_s": 0.0,
                                                    "ninja_s": 0.0, "peak_rss_kb": 0,
                                                    "measured": 0})
        t["units"] += 1
        t["ninja_s"] += r.get("ninja_s", 0.0)
        if "peak_rss_kb" in r:
            t["measured"] += 1
            t["cpu_s"] += r["cpu_s"]
            t["wall_s"] += r["wall_s"]
            t["peak_rss_kb"] = max(t["peak_rss_kb"], r["peak_rss_kb"])
    cache = {}
    cache_path = build / "CMakeCache.txt"
    if cache_path.exists():
        for key in ("CMAKE_CXX_COMPILER", "CMAKE_CXX_FLAGS", "CMAKE_BUILD_TYPE"):
            m = re.search(rf"^{key}:\w+=(.*)$", cache_path.read_text(), re.M)
            cache[key] = m.group(1) if m else ""
    data = {
        "name": args.name,
        "build_dir": str(build),
        "configuration": cache,
        "collected": datetime.datetime.now().isoformat(timespec="seconds"),
        "load_avg": [float(x) for x in pathlib.Path("/proc/loadavg").read_text().split()[:3]],
        "totals": {
            "units": len(rows),
            "units_measured": len(measured),
            "cpu_s": round(sum(r["cpu_s"] for r in measured), 1),
            "wall_s": round(sum(r["wall_s"] for r in measured), 1),
            "ninja_s": round(sum(r.get("ninja_s", 0.0) for r in rows), 1),
            "peak_rss_kb_max": max((r["peak_rss_kb"] for r in measured), default=0),
        },
        "targets": targets,
        "units": rows,
    }
    out = pathlib.Path(args.out or ROOT / "benchmarks" / "results" / f"build_cost_{args.name}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(rows)} TUs ({len(measured)} with memory), "
          f"{data['totals']['cpu_s']:.0f} s CPU measured, ninja log {data['totals']['ninja_s']:.0f} s")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "wrap":
        cmd_wrap(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description="build cost per translation unit")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--name", required=True)
    c.add_argument("--build", required=True)
    c.add_argument("--log")
    c.add_argument("--out")
    c.add_argument("--extra-ninja-log", action="append",
                   help="build directory of the same configuration whose .ninja_log gives the "
                        "times of TUs this build has not compiled")
    args = ap.parse_args()
    cmd_collect(args)


if __name__ == "__main__":
    main()
