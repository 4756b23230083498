#!/usr/bin/env python3
# The helper of loom_add_build_cost_report() (cmake/LoomBuildCost.cmake; docs/build-cost.md):
# a compiler launcher that records each translation unit's compile time and peak compiler memory,
# and the report step that turns those records into a Markdown table and a plot. Installed with
# loom's CMake package; needs only Python 3 (no GNU time: the child's rusage comes from wait4).
# SPDX-License-Identifier: BSL-1.0
#
# usage:
#   loom_build_cost.py wrap LOG -- [LAUNCHER...] COMPILER ARGS...
#       runs the command; for a compile (-c), appends one JSON line to LOG: object, source, wall,
#       user and system seconds, peak resident memory (KiB) and object size. Anything else
#       (links) is executed as it is.
#   loom_build_cost.py report --log LOG --targets FILE --out REPORT.md [--plot PLOT.png]
#                             [--title T] [--source-dir DIR]
#       FILE has one line per target: its name, then its object files, tab-separated. The report
#       lists every object of every target, with the latest record of each (or "not measured").
import argparse
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

SOURCE = re.compile(r"\.(c|cc|cp|cpp|cxx|c\+\+|C|cu|m|mm)$")
CACHES = re.compile(r"^s?ccache(\.exe)?$")


def exit_code(status):
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def run_measured(cmd):
    """(exit code, wall s, user s, system s, peak RSS KiB or None) of cmd."""
    start = time.monotonic()
    if not hasattr(os, "wait4"):  # not POSIX: time only
        rc = subprocess.call(cmd)
        return rc, time.monotonic() - start, None, None, None
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except InterruptedError:
            continue
    wall = time.monotonic() - start
    # wait4's rusage covers the child and the descendants it waited for (the compiler driver's
    # cc1plus, ccache's compiler); ru_maxrss is the largest of them, in KiB (bytes on macOS).
    rss = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return exit_code(status), wall, usage.ru_utime, usage.ru_stime, rss


def cmd_wrap(argv):
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("loom_build_cost.py wrap: usage: wrap LOG -- COMMAND...")
    log, cmd = argv[0], argv[2:]
    src = next((a for a in reversed(cmd) if SOURCE.search(a) and not a.startswith("-")), None)
    if "-c" not in cmd or src is None:
        os.execvp(cmd[0], cmd)  # links and anything else run as they are
    out = cmd[cmd.index("-o") + 1] if "-o" in cmd[:-1] else None
    try:
        rc, wall, user, system, rss = run_measured(cmd)
    except OSError as e:
        sys.exit(f"loom_build_cost.py: cannot run {cmd[0]}: {e}")
    if rc == 0:
        # the compiler is the last word before the first option; the words before it are
        # launchers (ccache, another recording wrapper such as tools/build_cost.py wrap LOG)
        first_option = next((k for k, a in enumerate(cmd) if a.startswith("-")), len(cmd))
        compiler = cmd[max(0, first_option - 1)]
        launchers = [os.path.basename(a) for a in cmd[:max(0, first_option - 1)]]
        rec = {"object": os.path.abspath(out) if out else None, "source": os.path.abspath(src),
               "wall_s": round(wall, 3),
               "user_s": None if user is None else round(user, 3),
               "sys_s": None if system is None else round(system, 3),
               "peak_rss_kb": rss,
               "object_bytes": os.path.getsize(out) if out and os.path.exists(out) else None,
               "compiler": os.path.basename(compiler), "launchers": launchers,
               "finished": datetime.datetime.now().isoformat(timespec="seconds")}
        line = json.dumps(rec) + "\n"
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))  # one write in append mode: parallel TUs interleave whole lines
        finally:
            os.close(fd)
    sys.exit(rc)


def load_records(log):
    """{normalized object path: latest record}."""
    records = {}
    path = pathlib.Path(log)
    if not path.exists():
        return records
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interrupted build
        if rec.get("object"):
            records[os.path.normpath(rec["object"])] = rec
    return records


def load_targets(path):
    """[(target, [object...])] from the file CMake generated."""
    targets = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        fields = [f for f in line.split("\t") if f]
        if fields:
            targets.append((fields[0], [os.path.normpath(f) for f in fields[1:]]))
    return targets


def cpu(rec):
    if rec.get("user_s") is None:
        return None
    return rec["user_s"] + (rec.get("sys_s") or 0.0)


def fmt(x, spec):
    return "—" if x is None else format(x, spec)


def plot(rows, path, title):
    """Draws CPU time and peak memory per TU into path; returns a note on what happened."""
    measured = [r for r in rows if r["rec"] is not None]
    if not measured:
        return "No plot: no translation unit was measured."
    measured = sorted(measured, key=lambda r: cpu(r["rec"]) or r["rec"]["wall_s"])
    labels = [f"{r['target']}: {r['label']}" for r in measured]
    secs = [cpu(r["rec"]) or r["rec"]["wall_s"] for r in measured]
    mems = [(r["rec"]["peak_rss_kb"] or 0) / 1024 for r in measured]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        height = 1.2 + 0.3 * len(labels)
        fig, (a, b) = plt.subplots(1, 2, figsize=(11, height), sharey=True)
        a.barh(labels, secs, color="#4477aa")
        a.set_xlabel("compile CPU time (s)")
        b.barh(labels, mems, color="#cc6677")
        b.set_xlabel("peak compiler memory (MB)")
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return None
    except ImportError:
        pass
    except Exception as e:  # a broken matplotlib must not fail the build
        return f"No plot: matplotlib failed ({e})."
    gnuplot = shutil.which("gnuplot")
    if gnuplot:
        data = pathlib.Path(str(path) + ".dat")
        with open(data, "w", encoding="utf-8") as f:
            for i, (label, s, m) in enumerate(zip(labels, secs, mems)):
                f.write(f'{i} {s} {m} "{label.replace(chr(34), chr(39))}"\n')
        script = f"""set terminal png noenhanced size 1100,{160 + 24 * len(labels)}
set output '{path}'
set style fill solid
set multiplot layout 1,2 title '{title.replace("'", "")}'
set ytics nomirror
set yrange [-0.5:{len(labels) - 0.5}]
set xrange [0:*]
set xlabel 'compile CPU time (s)'
plot '{data}' using (0.5*$2):1:(0.5*$2):(0.4):ytic(4) with boxxyerror lc rgb '#4477aa' notitle
set ytics format ''
set xlabel 'peak compiler memory (MB)'
plot '{data}' using (0.5*$3):1:(0.5*$3):(0.4) with boxxyerror lc rgb '#cc6677' notitle
unset multiplot
"""
        proc = subprocess.run([gnuplot], input=script, text=True, capture_output=True)
        data.unlink(missing_ok=True)
        if proc.returncode == 0 and pathlib.Path(path).exists():
            return None
        return f"No plot: gnuplot failed ({proc.stderr.strip().splitlines()[-1:]})."
    return ("No plot: neither matplotlib nor gnuplot was found "
            "(`pip install matplotlib` or `apt-get install gnuplot` draws one).")


def cmd_report(args):
    records = load_records(args.log)
    targets = load_targets(args.targets)
    src_dir = os.path.normpath(args.source_dir) if args.source_dir else None

    def label(rec, obj):
        if rec is None or not rec.get("source"):
            return re.sub(r"^.*\.dir/", "", obj).removesuffix(".o").removesuffix(".obj")
        s = os.path.normpath(rec["source"])
        if src_dir and (s + os.sep).startswith(src_dir + os.sep):
            return os.path.relpath(s, src_dir)
        return s

    rows = []
    for target, objects in targets:
        for obj in objects:
            rec = records.get(obj)
            rows.append({"target": target, "object": obj, "rec": rec, "label": label(rec, obj)})
    key = lambda r: -(cpu(r["rec"]) or r["rec"]["wall_s"]) if r["rec"] else 0.0  # noqa: E731
    rows.sort(key=key)
    measured = [r["rec"] for r in rows if r["rec"] is not None]

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    plot_note = plot(rows, args.plot, args.title) if args.plot else None
    lines = [f"# Build cost: {args.title}", ""]
    compilers = sorted({r["compiler"] for r in measured})
    caches = sorted({l for r in measured for l in r.get("launchers", []) if CACHES.match(l)})
    lines.append(f"Compile time and peak compiler memory per translation unit, recorded by "
                 f"loom_add_build_cost_report() while the targets were built"
                 f"{' with ' + ', '.join(compilers) if compilers else ''}. Report written "
                 f"{datetime.datetime.now().isoformat(timespec='seconds')}.")
    lines.append("")
    lines.append("| target | translation unit | CPU (s) | wall (s) | peak memory (MB) | object (KB) |")
    lines.append("|---|---|---:|---:|---:|---:|")
    for r in rows:
        rec = r["rec"]
        if rec is None:
            lines.append(f"| {r['target']} | {r['label']} | not measured | | | |")
            continue
        mem = None if rec.get("peak_rss_kb") is None else rec["peak_rss_kb"] / 1024
        obj = None if rec.get("object_bytes") is None else rec["object_bytes"] / 1024
        lines.append(f"| {r['target']} | {r['label']} | {fmt(cpu(rec), '.2f')} | "
                     f"{rec['wall_s']:.2f} | {fmt(mem, '.0f')} | {fmt(obj, '.0f')} |")
    if measured:
        cpus = [cpu(r) for r in measured if cpu(r) is not None]
        mems = [r["peak_rss_kb"] for r in measured if r.get("peak_rss_kb") is not None]
        objs = [r["object_bytes"] for r in measured if r.get("object_bytes") is not None]
        lines.append(f"| **total** | {len(measured)} of {len(rows)} TUs measured | "
                     f"{fmt(sum(cpus) if cpus else None, '.2f')} | "
                     f"{sum(r['wall_s'] for r in measured):.2f} | "
                     f"{fmt(max(mems) / 1024 if mems else None, '.0f')} (max) | "
                     f"{fmt(sum(objs) / 1024 if objs else None, '.0f')} |")
    lines.append("")
    lines.append("CPU is the compiler's user + system time, the number to compare on a shared "
                 "machine (wall time also counts waiting for a core); peak memory is the largest "
                 "resident set of the compiler's processes.")
    if caches:
        lines.append(f"The TUs were compiled through {', '.join(caches)}: a cache hit is timed "
                     f"as the hit. Pass NO_CACHE to loom_add_build_cost_report() to time every "
                     f"compile.")
    if len(measured) < len(rows):
        lines.append("A TU is \"not measured\" when it was last compiled before the report was "
                     "set up: touch its source, or clean the target, and build again.")
    lines.append("")
    if plot_note:
        lines.append(plot_note)
    elif args.plot:
        rel = os.path.relpath(args.plot, out.parent)
        lines.append(f"![compile time and peak memory per translation unit]({rel})")
    lines.append("")
    out.write_text("\n".join(lines), encoding="utf-8")
    total = sum(c for c in (cpu(r) for r in measured) if c is not None)
    print(f"loom build cost: {len(measured)} of {len(rows)} TUs measured, {total:.1f} s CPU "
          f"-> {out}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "wrap":
        cmd_wrap(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description="build cost per translation unit (loom)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report")
    r.add_argument("--log", required=True)
    r.add_argument("--targets", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--plot")
    r.add_argument("--title", default="build cost")
    r.add_argument("--source-dir")
    cmd_report(ap.parse_args())


if __name__ == "__main__":
    main()
